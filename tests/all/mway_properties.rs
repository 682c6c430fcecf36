//! Paper 004 Fig. 3: the properties of k-ary m-way networks (channels, routers, processors,
//! degree, sharing factor m, diameter, mean distance), as `flitsim info --csv` prints them and
//! as the built network holds them, against a model built here from channel coordinates
//! (section 2.1) and breadth-first search over its processor/channel/router graph. Distances
//! count channel crossings (routers passed + 1) over ordered pairs of distinct processors.

use crate::mway_common::{Model, Procs, Wrap, library_processors};
use flitsim::engine::build_engine;
use std::collections::HashMap;
use std::process::Command;

/// `flitsim info --csv` of the network: property -> value.
fn info(m: &Model) -> HashMap<String, String> {
    let tmp = crate::common::temp_dir("mway-info");
    let f = tmp.path().join("s.toml");
    let text = format!(
        "name = \"i\"\n{}\n[traffic]\nrates = [0.001]\n",
        m.topology_toml()
    );
    std::fs::write(&f, &text).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_flitsim"))
        .args(["info", "--csv", f.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{text}: {o:?}");
    let out = String::from_utf8(o.stdout).unwrap();
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("property,value"));
    lines
        .map(|l| {
            let (k, v) = l.split_once(',').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect()
}

/// Every network of the Fig. 3 checks: k = 3..5, n = 1..3, torus and mesh, p = 1, 2 and
/// processors in routers; the m-way hypercube (k = 2 mesh) for n = 2..5.
fn networks() -> Vec<Model> {
    let mut v = Vec::new();
    let placements = [Procs::Channels(1), Procs::Channels(2), Procs::Routers];
    for k in 3..=5 {
        for n in 1..=3 {
            for wrap in [Wrap::Torus, Wrap::Mesh] {
                for procs in placements {
                    v.push(Model::new(wrap, k, n, procs));
                }
            }
        }
    }
    for n in 2..=5 {
        for procs in placements {
            v.push(Model::new(Wrap::Mesh, 2, n, procs));
        }
    }
    v
}

fn name(m: &Model) -> String {
    format!("{:?} k={} n={} {:?}", m.wrap, m.k, m.n, m.procs)
}

/// Fig. 3's closed forms: channels k^n; routers n k^n (torus), n(k-1)k^(n-1) (mesh, and
/// n 2^(n-1) for the hypercube); processors p k^n, or one per router.
fn closed_counts(m: &Model) -> (u64, u64, u64) {
    let (k, n) = (m.k as u64, m.n as u32);
    let channels = k.pow(n);
    let routers = match m.wrap {
        Wrap::Torus => n as u64 * k.pow(n),
        Wrap::Mesh => n as u64 * (k - 1) * k.pow(n - 1),
    };
    let processors = match m.procs {
        Procs::Channels(p) => p as u64 * channels,
        Procs::Routers => routers,
    };
    (channels, routers, processors)
}

#[test]
fn fig3_counts_degree_and_distances_match_the_graph() {
    for m in networks() {
        let ctx = name(&m);
        let (channels, routers, processors) = closed_counts(&m);
        // The model agrees with the closed forms (the model is built from coordinates).
        assert_eq!(m.channels as u64, channels, "{ctx}");
        assert_eq!(m.routers.len() as u64, routers, "{ctx}");
        assert_eq!(m.processors() as u64, processors, "{ctx}");
        let got = info(&m);
        let kind = match (m.wrap, m.k) {
            (Wrap::Torus, _) => "torus",
            (Wrap::Mesh, 2) => "hypercube",
            (Wrap::Mesh, _) => "mesh",
        };
        let on = match m.procs {
            Procs::Channels(p) => format!("channels (p = {p})"),
            Procs::Routers => "routers".to_string(),
        };
        let radix = vec![m.k.to_string(); m.n].join("x");
        let (diameter, mean) = m.diameter_and_mean();
        let want = [
            ("topology", format!("k-ary m-way {kind}")),
            ("radix", radix),
            ("dimensions", m.n.to_string()),
            ("processors_on", on),
            ("processors", processors.to_string()),
            ("routers", routers.to_string()),
            ("channels", channels.to_string()),
            ("degree", "2".to_string()),
            ("diameter", diameter.to_string()),
        ];
        for (key, value) in want {
            assert_eq!(got.get(key), Some(&value), "{ctx}: {key}");
        }
        let num = |key: &str| -> f64 { got[key].parse().unwrap() };
        assert!((num("mean_distance") - mean).abs() < 1e-9, "{ctx}: mean");
        assert!((num("mean_hops") - (mean - 1.0)).abs() < 1e-9, "{ctx}");
        if let Procs::Channels(_) = m.procs {
            assert_eq!(got["m"], m.sharing_factor().to_string(), "{ctx}: m");
        }
    }
}

/// The sharing factor: 2n + p on a torus (every channel), the most of any channel on a mesh
/// (an interior one: 2n + p; the hypercube's n + p), by counting this model's routers and
/// processors per channel; and the closed forms.
#[test]
fn fig3_sharing_factor_with_processors_on_channels() {
    for m in networks() {
        let Procs::Channels(p) = m.procs else {
            continue;
        };
        let n = m.n as u32;
        let want = if m.k == 2 { n + p } else { 2 * n + p };
        assert_eq!(m.sharing_factor(), want, "{}", name(&m));
        assert_eq!(info(&m)["m"], want.to_string(), "{}", name(&m));
    }
    // Paper 004 section 4: a 9-D hypercube has m = 10, an 8x8x8 mesh or torus with p = 1 m = 7.
    for (wrap, k, n, want) in [
        (Wrap::Mesh, 2, 9, "10"),
        (Wrap::Mesh, 8, 3, "7"),
        (Wrap::Torus, 8, 3, "7"),
    ] {
        let m = Model::new(wrap, k, n, Procs::Channels(1));
        assert_eq!(m.sharing_factor().to_string(), want);
        assert_eq!(info(&m)["m"], want, "{}", name(&m));
    }
}

/// Processors inside routers: m = 2n (Fig. 3, section 2: "The sharing factor m = 2n in this
/// case"), the routers of a channel; a processor inside a router drives the channel through
/// its router and adds no way (the mesh's most is 2n, the hypercube's n).
#[test]
fn fig3_sharing_factor_with_processors_in_routers_is_2n() {
    for m in networks() {
        if m.procs != Procs::Routers {
            continue;
        }
        let n = m.n as u32;
        let want = if m.k == 2 { n } else { 2 * n };
        assert_eq!(m.sharing_factor(), want, "{}", name(&m));
        assert_eq!(info(&m)["m"], want.to_string(), "{}: info's m", name(&m));
    }
}

/// The built network: the channel graph has k^n channels, and its links pair up into opposite
/// pairs, one pair per router of the model (every router joins exactly two channels: degree 2);
/// the processors are the model's.
#[test]
fn built_network_is_the_dual_of_the_model() {
    for m in networks() {
        let ctx = name(&m);
        let s = m.scenario(2, 2, "algorithm = \"dor\"", "rates = [0.001]", "");
        let e = build_engine(&s, 0.0, 1);
        let net = &e.net;
        assert_eq!(net.cube().nodes as u32, m.channels, "{ctx}");
        let links = &net.cube().links;
        assert_eq!(links.len(), 2 * m.routers.len(), "{ctx}: links");
        let mut pairs: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
        for (i, l) in links.iter().enumerate() {
            assert_ne!(l.src, l.dst, "{ctx}: link {i} is a loop");
            assert!(
                m.adjacent(l.src, l.dst),
                "{ctx}: link {i} joins non-adjacent channels"
            );
            pairs
                .entry((l.src.min(l.dst), l.src.max(l.dst)))
                .or_default()
                .push(i);
        }
        // One unordered pair per router, each carried by exactly one link each way.
        let mut routers: Vec<(u32, u32)> = m
            .routers
            .iter()
            .map(|&(a, b, _)| (a.min(b), a.max(b)))
            .collect();
        routers.sort_unstable();
        let mut got: Vec<(u32, u32)> = pairs.keys().copied().collect();
        got.sort_unstable();
        assert_eq!(got, routers, "{ctx}: routers");
        for ((a, b), ls) in &pairs {
            assert_eq!(ls.len(), 2, "{ctx}: channels {a},{b}");
            let (x, y) = (&links[ls[0]], &links[ls[1]]);
            assert_eq!((x.src, x.dst), (y.dst, y.src), "{ctx}: not opposite");
            assert_eq!(x.dim, y.dim, "{ctx}");
            if m.k > 2 {
                assert_ne!(x.dir, y.dir, "{ctx}: opposite directions");
            }
        }
        library_processors(&m, &e);
    }
}

/// The printed diameters that the graph confirms: torus with processors on channels
/// n⌊k/2⌋ + 1, mesh n(k-1) + 1 (also the hypercube, k = 2), mesh with processors in routers
/// n(k-1) - 1 (k >= 3), torus with processors in routers ⌈nk/2⌉ for even k.
#[test]
fn fig3_diameter_formulas_where_right() {
    let mut checked = 0;
    for m in networks() {
        let (n, k) = (m.n as u32, m.k);
        let printed = match (m.wrap, m.procs) {
            (Wrap::Torus, Procs::Channels(_)) => n * (k / 2) + 1,
            (Wrap::Mesh, Procs::Channels(_)) => n * (k - 1) + 1,
            (Wrap::Mesh, Procs::Routers) if k >= 3 => n * (k - 1) - 1,
            (Wrap::Torus, Procs::Routers) if k % 2 == 0 => (n * k).div_ceil(2),
            _ => continue,
        };
        let (diameter, _) = m.diameter_and_mean();
        assert_eq!(diameter, printed, "{}", name(&m));
        checked += 1;
    }
    // Torus on channels 18, mesh on channels 18 + hypercube 8, mesh in routers 9, torus in
    // routers with k = 4: 3.
    assert_eq!(checked, 18 + 26 + 9 + 3);
}

/// Where Fig. 3 is wrong. The torus with processors in routers (m = 2n) prints ⌈nk/2⌉, true
/// for even k only. For odd k the two channels of a router are two adjacent coordinates of a
/// ring of odd length, and the farthest coordinate from a pair is ⌊k/2⌋ - 1 away, not ⌈k/2⌉:
/// the graph gives (k-1)/2 for n = 1 and n(k-1)/2 + 1 for n >= 2, less than ⌈nk/2⌉ except
/// for n = 2 where they coincide. Likewise the mesh's n(k-1) - 1 does not carry over to the
/// m-way hypercube (k = 2): there the graph gives n (two routers of one dimension share
/// nothing but still differ in all other bits), one more than the n - 1 printed.
#[test]
fn fig3_torus_in_routers_diameter_is_wrong_for_odd_k() {
    let mut below = 0;
    for m in networks() {
        if m.procs != Procs::Routers {
            continue;
        }
        let (n, k) = (m.n as u32, m.k);
        let (diameter, _) = m.diameter_and_mean();
        match m.wrap {
            Wrap::Torus if k % 2 == 1 => {
                let printed = (n * k).div_ceil(2);
                let graph = if n == 1 {
                    (k - 1) / 2
                } else {
                    n * (k - 1) / 2 + 1
                };
                assert_eq!(diameter, graph, "{}", name(&m));
                if n == 2 {
                    assert_eq!(diameter, printed, "{}", name(&m));
                } else {
                    // The printed value is wrong: the graph's diameter is smaller.
                    assert!(diameter < printed, "{}", name(&m));
                    below += 1;
                }
            }
            Wrap::Mesh if k == 2 => {
                let printed = n * (k - 1) - 1;
                assert_eq!(diameter, n, "{}", name(&m));
                assert_eq!(diameter, printed + 1, "{}", name(&m));
            }
            _ => {}
        }
    }
    // k = 3 and 5, n = 1 and 3.
    assert_eq!(below, 4);
}
