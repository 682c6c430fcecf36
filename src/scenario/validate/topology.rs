//! The `[topology]` table: k-ary n-cubes (kind, k, n, links), k-ary m-way networks (wrap,
//! processors, processor_factor), HyperX (k, n) and the fat tree (k, n), with their size
//! limits.

use super::super::*;
use super::{Checker, MAX_NODES};
use crate::error::quoted;
use crate::spec::keys::{Radix, RawTopology};
use crate::topology::{DragonflyShape, Family, Kind, Placement};

pub(super) fn topology(c: &Checker, t: &RawTopology) -> Result<TopologySpec> {
    if t.kind == "dragonfly" {
        return dragonfly_topology(c, t);
    }
    refuse_given(
        c,
        &[
            ("p", t.p.is_some()),
            ("a", t.a.is_some()),
            ("h", t.h.is_some()),
            ("groups", t.groups.is_some()),
        ],
        |key| format!("only a dragonfly has {key}, not a {}", t.kind),
        |key| format!("remove {key}, or use kind = \"dragonfly\""),
    )?;
    if t.kind == "mway" {
        refuse_concentration(
            c,
            t,
            "an m-way network places processors by processors and processor_factor",
        )?;
        return mway_topology(c, t);
    }
    refuse_given(
        c,
        &[
            ("wrap", t.wrap.is_some()),
            ("processors", t.processors.is_some()),
            ("processor_factor", t.processor_factor.is_some()),
        ],
        |key| format!("only k-ary m-way networks have {key}, not a {}", t.kind),
        |key| format!("remove {key}, or use kind = \"mway\""),
    )?;
    let kind = match t.kind.as_str() {
        "mesh" => Kind::Mesh,
        "torus" => Kind::Torus,
        "hypercube" => Kind::Hypercube,
        "hyperx" => return hyperx_topology(c, t),
        "fat-tree" => return fat_tree_topology(c, t),
        other => {
            return Err(c.err(
                "[topology] kind",
                format!("unknown topology {}", quoted(other)),
                "use \"mesh\", \"torus\", \"hypercube\" or \"mway\" (k-ary n-cubes and m-way networks), \"hyperx\", \"dragonfly\" or \"fat-tree\"",
            ));
        }
    };
    let radix = if kind == Kind::Hypercube {
        if t.k.is_some() {
            return Err(c.err(
                "[topology] k",
                "a hypercube has k = 2 by definition",
                "remove k and give only n",
            ));
        }
        let Some(n) = t.n else {
            return Err(c.err(
                "[topology] n",
                "missing",
                "give the hypercube's dimension, e.g. n = 6",
            ));
        };
        vec![2; c.ranged("[topology] n", n)? as usize]
    } else {
        radix_of(c, t)?
    };
    let bidirectional = match (kind, t.links.as_deref()) {
        (Kind::Torus, None | Some("unidirectional")) => false,
        (Kind::Torus, Some("bidirectional")) => true,
        (Kind::Torus, Some(other)) => {
            return Err(c.err(
                "[topology] links",
                format!("unknown link kind {}", quoted(other)),
                "use \"unidirectional\" or \"bidirectional\"",
            ));
        }
        (_, None | Some("bidirectional")) => true,
        (_, Some(other)) => {
            return Err(c.err(
                "[topology] links",
                format!("{} is not possible on a {}", quoted(other), kind.name()),
                "remove the key: mesh and hypercube links are bidirectional",
            ));
        }
    };
    if kind == Kind::Torus && bidirectional && radix.contains(&2) {
        return Err(c.err(
            "[topology] k",
            "a bidirectional torus with k = 2 would join each pair of nodes by two parallel links",
            "use kind = \"hypercube\" (or a unidirectional torus) for k = 2",
        ));
    }
    let concentration = concentration_of(c, t)?;
    check_size(c, &radix, concentration as usize)?;
    Ok(TopologySpec {
        family: Family::KAryNCube,
        kind,
        radix,
        bidirectional,
        concentration,
    })
}

/// The radices of `k` (one for all `n` dimensions, or a list).
fn radix_of(c: &Checker, t: &RawTopology) -> Result<Vec<u32>> {
    let Some(k) = &t.k else {
        return Err(c.err(
            "[topology] k",
            "missing",
            "give the radix, e.g. k = 8, or one per dimension, e.g. k = [8, 4]",
        ));
    };
    Ok(match k {
        Radix::One(k) => {
            let k = c.ranged("[topology] k", *k)? as u32;
            let Some(n) = t.n else {
                return Err(c.err(
                    "[topology] n",
                    "missing",
                    "give the number of dimensions, e.g. n = 2",
                ));
            };
            vec![k; c.ranged("[topology] n", n)? as usize]
        }
        Radix::PerDim(ks) => {
            if ks.is_empty() {
                return Err(c.err(
                    "[topology] k",
                    "the list is empty",
                    "give one radix per dimension",
                ));
            }
            let ks: Vec<u32> = ks
                .iter()
                .map(|&k| c.ranged("[topology] k", k).map(|k| k as u32))
                .collect::<Result<_>>()?;
            if let Some(n) = t.n
                && n != ks.len() as i64
            {
                return Err(c.err(
                    "[topology] n",
                    format!("n = {n} but k lists {} radices", ks.len()),
                    "make n equal the length of k, or remove n",
                ));
            }
            ks
        }
    })
}

/// Refuses networks with more than MAX_NODES routers or processors.
fn check_size(c: &Checker, radix: &[u32], per: usize) -> Result<()> {
    let nodes = radix
        .iter()
        .try_fold(per, |a, &k| a.checked_mul(k as usize));
    if nodes.is_none_or(|n| n > MAX_NODES) {
        return Err(c.err(
            "[topology] k",
            "the network has more than 4194304 nodes",
            "use a smaller radix or fewer dimensions",
        ));
    }
    Ok(())
}

/// A k-ary m-way network (paper 004): `wrap`, `k`, `n`, `processors`, `processor_factor`.
fn mway_topology(c: &Checker, t: &RawTopology) -> Result<TopologySpec> {
    if t.links.is_some() {
        return Err(c.err(
            "[topology] links",
            "an m-way network has no point-to-point links: its channels are shared by all their routers",
            "remove links",
        ));
    }
    let radix = radix_of(c, t)?;
    let wrap = match t.wrap.as_deref() {
        None | Some("torus") => true,
        Some("mesh") => false,
        Some(other) => {
            return Err(c.err(
                "[topology] wrap",
                format!("unknown wrap {}", quoted(other)),
                "use \"torus\" or \"mesh\" (the m-way hypercube is the mesh with k = 2)",
            ));
        }
    };
    if wrap && radix.contains(&2) {
        return Err(c.err(
            "[topology] k",
            "an m-way torus with k = 2 would join each pair of channels by two routers",
            "use k = 3 or more, or wrap = \"mesh\" with k = 2 for the m-way hypercube",
        ));
    }
    let placement = match (t.processors.as_deref(), t.processor_factor) {
        (None | Some("channels"), p) => {
            Placement::Channels(c.ranged("[topology] processor_factor", p.unwrap_or(1))? as u32)
        }
        (Some("routers"), None) => Placement::Routers,
        (Some("routers"), Some(_)) => {
            return Err(c.err(
                "[topology] processor_factor",
                "processors inside routers are one per router",
                "remove processor_factor, or use processors = \"channels\"",
            ));
        }
        (Some(other), _) => {
            return Err(c.err(
                "[topology] processors",
                format!("unknown placement {}", quoted(other)),
                "use \"channels\" (m = 2n + p) or \"routers\" (m = 2n)",
            ));
        }
    };
    let per = match placement {
        Placement::Channels(p) => p as usize,
        Placement::Routers => radix.len(),
    };
    check_size(c, &radix, per)?;
    if placement == Placement::Routers && !wrap && radix == [2] {
        // A line of two channels has one router: one processor has nobody to send to.
        return Err(c.err(
            "[topology] k",
            "this m-way mesh has a single router, so a single processor inside it",
            "use k = 3 or more, n = 2 or more, or processors = \"channels\"",
        ));
    }
    let kind = match (wrap, radix.iter().all(|&k| k == 2)) {
        (true, _) => Kind::Torus,
        (false, true) => Kind::Hypercube,
        (false, false) => Kind::Mesh,
    };
    Ok(TopologySpec {
        family: Family::MWay(placement),
        kind,
        radix,
        bidirectional: true,
        concentration: 1,
    })
}

/// Largest number of network ports of a HyperX router (Σ(k_d − 1)), so that a router's
/// driver slots (ports × V) stay within the arbiter's 16-bit slots.
const HYPERX_MAX_DEGREE: u32 = 1024;

/// A HyperX: `k` (one radix or one per dimension) and `n`; links are bidirectional.
fn hyperx_topology(c: &Checker, t: &RawTopology) -> Result<TopologySpec> {
    if t.links.is_some() {
        return Err(c.err(
            "[topology] links",
            "a HyperX links every pair of routers that differ in one coordinate, both ways",
            "remove links",
        ));
    }
    let radix = radix_of(c, t)?;
    let concentration = concentration_of(c, t)?;
    check_size(c, &radix, concentration as usize)?;
    let degree: u32 = radix.iter().map(|&k| k - 1).sum();
    if degree > HYPERX_MAX_DEGREE {
        return Err(c.err(
            "[topology] k",
            format!("each router would have {degree} links (the sum of k - 1 over the dimensions)"),
            format!("use radices whose k - 1 sum to at most {HYPERX_MAX_DEGREE}"),
        ));
    }
    Ok(TopologySpec {
        family: Family::HyperX,
        kind: Kind::Mesh,
        radix,
        bidirectional: true,
        concentration,
    })
}

/// A dragonfly: `p`, `a`, `h` and `groups` (at most a·h + 1, the default).
fn dragonfly_topology(c: &Checker, t: &RawTopology) -> Result<TopologySpec> {
    refuse_given(
        c,
        &[
            ("k", t.k.is_some()),
            ("n", t.n.is_some()),
            ("links", t.links.is_some()),
            ("wrap", t.wrap.is_some()),
            ("processors", t.processors.is_some()),
            ("processor_factor", t.processor_factor.is_some()),
            ("concentration", t.concentration.is_some()),
        ],
        |key| format!("a dragonfly has no {key}: it is given by p, a, h and groups"),
        |key| format!("remove {key}"),
    )?;
    let need = |key: &str, v: Option<i64>, example: &str| {
        let label = format!("[topology] {key}");
        match v {
            Some(v) => c.ranged(&label, v).map(|v| v as u32),
            None => Err(c.err(
                &label,
                "missing",
                format!("give it, e.g. {key} = {example}"),
            )),
        }
    };
    let p = need("p", t.p, "4")?;
    let a = need("a", t.a, "8")?;
    let h = need("h", t.h, "4")?;
    let most = a * h + 1;
    let groups = match t.groups {
        None => most,
        Some(g) => c.int("[topology] groups", g, 1, most as i64)? as u32,
    };
    let shape = DragonflyShape { p, a, h, groups };
    let processors = shape.routers() * p as u64;
    if processors < 2 {
        return Err(c.err(
            "[topology] p",
            "the dragonfly has a single processor, with nobody to send to",
            "give p, a or groups above 1",
        ));
    }
    if processors > MAX_NODES as u64 {
        return Err(c.err(
            "[topology] groups",
            format!("the dragonfly has {processors} processors, more than {MAX_NODES}"),
            "use fewer groups or smaller p, a or h",
        ));
    }
    Ok(TopologySpec {
        family: Family::Dragonfly(shape),
        kind: Kind::Mesh,
        radix: Vec::new(),
        bidirectional: true,
        concentration: 1,
    })
}

/// Most ports each way of a fat tree switch: `nca`'s adaptive up ports are one candidate each
/// (`routing::MAX_CANDIDATES`).
const FAT_TREE_MAX_K: u32 = 48;

/// A fat tree (k-ary n-tree): one `k` (ports each way of a switch) and `n` (levels).
fn fat_tree_topology(c: &Checker, t: &RawTopology) -> Result<TopologySpec> {
    refuse_concentration(c, t, "a fat tree has k processors on each leaf switch")?;
    if t.links.is_some() {
        return Err(c.err(
            "[topology] links",
            "a fat tree's links go both ways, up and down",
            "remove links",
        ));
    }
    let k = match &t.k {
        Some(Radix::One(k)) => c.ranged("[topology] k", *k)? as u32,
        Some(Radix::PerDim(_)) => {
            return Err(c.err(
                "[topology] k",
                "a fat tree has one k: every switch has k ports down and k up",
                "give one radix, e.g. k = 4",
            ));
        }
        None => {
            return Err(c.err(
                "[topology] k",
                "missing",
                "give the ports each way of a switch, e.g. k = 4",
            ));
        }
    };
    if k > FAT_TREE_MAX_K {
        return Err(c.err(
            "[topology] k",
            format!("a fat tree switch of {k} up ports offers more than {FAT_TREE_MAX_K} candidates to adaptive routing"),
            format!("use k = {FAT_TREE_MAX_K} or less"),
        ));
    }
    let Some(n) = t.n else {
        return Err(c.err(
            "[topology] n",
            "missing",
            "give the levels of switches, e.g. n = 3 (k^n processors)",
        ));
    };
    let n = c.ranged("[topology] n", n)? as usize;
    let radix = vec![k; n];
    // k^n processors, and n·k^(n-1) switches: fewer than the processors unless n > k.
    check_size(c, &radix, 1)?;
    check_size(c, &radix[1..], n)?;
    Ok(TopologySpec {
        family: Family::FatTree,
        kind: Kind::Mesh,
        radix,
        bidirectional: true,
        concentration: 1,
    })
}

/// `concentration`: processors per router of a k-ary n-cube or HyperX (default 1).
fn concentration_of(c: &Checker, t: &RawTopology) -> Result<u32> {
    Ok(c.ranged("[topology] concentration", t.concentration.unwrap_or(1))? as u32)
}

/// Refuses `concentration` on a family whose processors are placed otherwise (`how`).
fn refuse_concentration(c: &Checker, t: &RawTopology, how: &str) -> Result<()> {
    refuse_given(
        c,
        &[("concentration", t.concentration.is_some())],
        |_| format!("{how}; concentration is for meshes, tori, hypercubes and HyperX"),
        |_| "remove concentration".to_string(),
    )
}

/// Refuses the first of `keys` ((name, given) in `[topology]`) that the file gives, with the
/// problem and the fix its name gets.
fn refuse_given(
    c: &Checker,
    keys: &[(&str, bool)],
    problem: impl Fn(&str) -> String,
    fix: impl Fn(&str) -> String,
) -> Result<()> {
    match keys.iter().find(|(_, given)| *given) {
        Some((key, _)) => Err(c.err(&format!("[topology] {key}"), problem(key), fix(key))),
        None => Ok(()),
    }
}
