//! Upper bounds on throughput: no channel carries more than one flit per cycle, so the offered
//! load (flits/node/cycle) at which some channel would have to carry more bounds the saturation
//! throughput from above. flitsim keeps the tightest it can state exactly:
//!
//! - the busiest network link, where flitsim has the links' rates exactly ([`LinkRates`]:
//!   dimension-order routing by enumeration, p-cube and Duato by the papers' closed forms);
//! - the average channel load of minimal routing, any pattern: every routing flitsim has is
//!   minimal (dimension order, p-cube, Duato with or without time-out, the ring routings and
//!   ADAPTIVE of paper 004, nearest-common-ancestor on fat trees; the tests check each
//!   message's hops against the distance), so a message crosses exactly its distance in each
//!   dimension's links, in a fixed way but half-way round a bidirectional ring (on an m-way
//!   network, routers passed + 1 m-way channels; on a fat tree, one link each way between
//!   each pair of levels below its nearest common ancestor), and the busiest channel of a
//!   kind carries at least their mean (Dally and Towles, *Principles and Practices of
//!   Interconnection Networks*, ch. 3, throughput and maximum channel load);
//! - the bisection under uniform traffic, per dimension of a k-ary n-cube or HyperX (ibid.):
//!   under uniform traffic tighter than the average only on meshes (on tori, hypercubes and
//!   HyperX the two are equal; on m-way networks flitsim states only the average);
//! - the hot node's ejection channel under a hotspot, and every injection channel.

use super::{ENUMERATION_MAX_NODES, LinkRates};
use crate::scenario::{Pattern, Scenario};
use crate::topology::{Dir, Family, Kind, Topology, TopologySpec};
use crate::traffic::{Addresses, Traffic};

/// An upper bound on the throughput, in flits/node/cycle offered, and what sets it.
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    /// The bound, flits/node/cycle.
    pub flits: f64,
    /// The channel that sets it, in words.
    pub why: String,
}

/// The lower of two bounds (the first on a tie).
fn tighter(a: Option<Bound>, b: Option<Bound>) -> Option<Bound> {
    match (a, b) {
        (Some(a), Some(b)) if b.flits < a.flits => Some(b),
        (Some(a), _) => Some(a),
        (None, b) => b,
    }
}

/// The tightest bound flitsim can compute exactly for a scenario of one traffic variant (the
/// links' rates and the pattern at the first seed, the minimal routes, the hot node's ejection
/// channel, every injection channel), or None when it has none of the network's bounds, or
/// when requests are answered by replies (which follow the reverse pattern, not the one the
/// bounds weigh).
pub fn throughput_bound(s: &Scenario) -> Option<Bound> {
    if s.traffic.options.reply_length > 0 {
        return None;
    }
    let network = [
        busiest_link_bound(s),
        minimal_routing_bound(s),
        hotspot_bound(s),
    ]
    .into_iter()
    .fold(None, tighter)?;
    let injection = Bound {
        flits: 1.0,
        why: "the injection channel (1 flit/cycle)".into(),
    };
    tighter(Some(injection), Some(network))
}

/// The busiest network link's bound, where flitsim has the links' rates exactly
/// ([`LinkRates`], at the first seed).
pub fn busiest_link_bound(s: &Scenario) -> Option<Bound> {
    let model = LinkRates::for_scenario(s)?;
    // Link rates are linear in λ: at λ0 the busiest link carries r(λ0) messages per cycle,
    // M·r(λ0) flits, which reaches 1 at λ = λ0 / (M·r(λ0)), i.e. λ·M = λ0 / r(λ0).
    let lambda = 1e-3;
    let rates = model.rates(s, lambda, s.seeds[0]);
    let busiest = rates.iter().copied().fold(0.0, f64::max);
    (busiest > 0.0).then(|| Bound {
        flits: lambda / busiest,
        why: format!(
            "the busiest network link carries {:.4} of the per-node load ({})",
            busiest / lambda,
            model.name()
        ),
    })
}

/// The hot node's ejection channel under a hotspot: it receives λ((N − 1)xh + 1 − xh) messages
/// per cycle, since with probability xh a message of each other node goes to it, otherwise
/// uniformly to one of N − 1 nodes.
fn hotspot_bound(s: &Scenario) -> Option<Bound> {
    let Pattern::Hotspot { fraction: h, .. } = s.traffic.pattern else {
        return None;
    };
    let n = s.topology.processors() as f64;
    let xh = s.traffic.pattern_fraction * h;
    let share = (n - 1.0) * xh + 1.0 - xh;
    Some(Bound {
        flits: 1.0 / share,
        why: format!("the hot node's ejection channel receives {share:.4} times the per-node load"),
    })
}

/// The bound of minimal routing: the tighter of the average channel load ([`average_bound`])
/// and, under uniform traffic, the bisection ([`bisection_bound`]).
pub fn minimal_routing_bound(s: &Scenario) -> Option<Bound> {
    tighter(average_bound(s), bisection_bound(s))
}

/// True when every source sends uniformly to the N − 1 others.
fn uniform(s: &Scenario) -> bool {
    s.traffic.pattern == Pattern::Uniform || s.traffic.pattern_fraction == 0.0
}

/// Channels of one kind: how many, and the flit-hops per cycle they carry at 1 flit/node/cycle
/// offered.
struct Class {
    /// The channel of the kind, in words ("link of dimension 0").
    what: String,
    /// How many channels of the kind.
    channels: f64,
    /// Flit-hops per cycle over all of them per flit/node/cycle offered.
    load: f64,
}

/// The average channel load's bound: at λ flits/node/cycle the C channels of a kind carry
/// λ·H flit-hops per cycle, H = Σ_s Σ_t P(s sends to t)·(channels of the kind a route from s to
/// t crosses), so the busiest carries at least λ·H/C: λ ≤ C/H, the lowest over the kinds
/// (`link_classes`, or all of an m-way network's channels). H in closed form under uniform
/// traffic, otherwise by enumeration of every source-destination pair (at the first seed) on
/// at most [`ENUMERATION_MAX_NODES`] processors; None beyond.
pub fn average_bound(s: &Scenario) -> Option<Bound> {
    let classes = match s.topology.family {
        Family::MWay(_) => vec![mway_channels(s)?],
        Family::FatTree => fat_tree_levels(s)?,
        _ => link_classes(s)?,
    };
    classes
        .into_iter()
        .filter(|c| c.load > 0.0)
        .map(|c| {
            Some(Bound {
                flits: c.channels / c.load,
                why: format!(
                    "the average {} carries {:.4} of the per-node load under minimal routing",
                    c.what,
                    c.load / c.channels
                ),
            })
        })
        .fold(None, tighter)
}

/// All the channels of an m-way network: every flit crosses routers passed + 1 of them, whose
/// mean over ordered pairs of distinct processors is the network's mean distance.
fn mway_channels(s: &Scenario) -> Option<Class> {
    let topo = Topology::build(&s.topology);
    let Topology::MWay(mw) = &topo else {
        unreachable!("an m-way family builds an m-way network")
    };
    let load = if uniform(s) {
        s.topology.processors() as f64 * mw.properties().mean_distance
    } else {
        let mut h = 0.0;
        pairs(s, &topo, |a, b, q| {
            h += q * (mw.routers_passed(a, b) + 1) as f64
        })?;
        h
    };
    Some(Class {
        what: "m-way channel".into(),
        channels: mw.graph.nodes as f64,
        load,
    })
}

/// The links between levels l and l + 1 of a fat tree, each way: k^n up and k^n down. A route
/// crosses one of each iff its nearest common ancestor is above level l (`nca` is minimal).
/// Under uniform traffic a source's N − k^(l+1) destinations outside its level-l subtree do,
/// so each way carries N(N − k^(l+1))/(N − 1) at 1 message/node/cycle; other patterns by
/// enumeration.
fn fat_tree_levels(s: &Scenario) -> Option<Vec<Class>> {
    let t = &s.topology;
    let (k, levels) = (t.radix[0], t.radix.len());
    let n = t.processors() as f64;
    let mut load: Vec<f64> = (0..levels.saturating_sub(1))
        .map(|l| n * (n - (k as f64).powi(l as i32 + 1)) / (n - 1.0))
        .collect();
    if !uniform(s) {
        let topo = Topology::build(t);
        let f = topo.fat_tree()?;
        load.iter_mut().for_each(|x| *x = 0.0);
        pairs(s, &topo, |a, b, q| {
            for x in &mut load[..f.nca_level(a, b) as usize] {
                *x += q;
            }
        })?;
    }
    Some(
        load.into_iter()
            .enumerate()
            .flat_map(|(l, x)| {
                ["up", "down"].map(|way| Class {
                    what: format!("{way} link between levels {l} and {}", l + 1),
                    channels: n,
                    load: x,
                })
            })
            .collect(),
    )
}

/// The bisection bound under uniform traffic, per dimension d of a k-ary n-cube or HyperX: cut
/// each line of dimension d between its first a = ⌊k/2⌋ routers and the other k − a. Each way,
/// λ·(aN/k)·((k − a)N/k)/(N − 1) flits per cycle must cross from the N processors, on c·R/k
/// links (R = N/q routers of q processors each, q the concentration; c per line: 1 on a mesh,
/// hypercube or unidirectional torus, 2 on a bidirectional torus, a(k − a) on a HyperX), so
/// λ ≤ c·k·(N − 1)/(a(k − a)·N·q): with q = 1, 4(N − 1)/(kN) on a mesh of even k,
/// 8(N − 1)/(kN) on a bidirectional torus. None for other traffic and for m-way networks.
pub fn bisection_bound(s: &Scenario) -> Option<Bound> {
    let t = &s.topology;
    if !uniform(s) || t.mway().is_some() || t.family == Family::FatTree {
        return None;
    }
    let (n, conc) = (t.processors() as f64, t.concentration as f64);
    (0..t.radix.len())
        .map(|d| {
            let k = t.radix[d] as f64;
            let a = (t.radix[d] / 2) as f64;
            let c = match (t.family, t.kind) {
                (Family::HyperX, _) => a * (k - a),
                (_, Kind::Torus) if t.bidirectional => 2.0,
                _ => 1.0,
            };
            let share = a * (k - a) * n * conc / (c * k * (n - 1.0));
            Some(Bound {
                flits: c * k * (n - 1.0) / (a * (k - a) * n * conc),
                why: format!(
                    "the links across the middle of dimension {d} carry {share:.4} of the per-node load each way under uniform traffic (bisection)"
                ),
            })
        })
        .fold(None, tighter)
}

/// The network links of dimension d going each way, of N routers: N(k − 1)/k on a mesh (N/2
/// on a hypercube), N on a bidirectional torus, N(k − 1)/2 on a HyperX (towards the higher or
/// the lower coordinate), N going + and none − on a unidirectional torus.
fn links_each_way(t: &TopologySpec, d: usize) -> (f64, f64) {
    let n = (t.processors() / t.concentration as u64) as f64;
    let k = t.radix[d] as f64;
    match (t.family, t.kind) {
        (Family::HyperX, _) => (n * (k - 1.0) / 2.0, n * (k - 1.0) / 2.0),
        (_, Kind::Torus) if t.bidirectional => (n, n),
        (_, Kind::Torus) => (n, 0.0),
        _ => (n * (k - 1.0) / k, n * (k - 1.0) / k),
    }
}

/// The link classes of a k-ary n-cube or HyperX: each dimension's links, and, counted pair by
/// pair, those going + and those going − (a minimal route's way in a dimension is fixed but
/// half-way round a bidirectional ring, where its hops count for the dimension only). A route
/// crosses δ_d(s, t) links of dimension d: the ring or line distance of the coordinates, on a
/// HyperX 1 when they differ. Under uniform traffic only the dimension's classes: Σ_{s≠t}
/// δ_d(s, t)/(N − 1) = (N/k)²·S/(N − 1), S = Σ_{a,b} δ(a, b) over a line's coordinates:
/// (k³ − k)/3 on a mesh, k²(k − 1)/2 on a unidirectional ring, k⌊k²/4⌋ on a bidirectional one,
/// k(k − 1) on a HyperX; the two ways carry the same by symmetry. With c processors on each of
/// R routers (N = cR), c² pairs of processors take each pair of routers' route:
/// c²(R/k)²·S/(N − 1).
fn link_classes(s: &Scenario) -> Option<Vec<Class>> {
    let t = &s.topology;
    let n = t.processors() as f64;
    let (conc, r) = (
        t.concentration as f64,
        (t.processors() / t.concentration as u64) as f64,
    );
    let dims = 0..t.radix.len();
    let both = |d: usize| {
        let (plus, minus) = links_each_way(t, d);
        plus + minus
    };
    if uniform(s) {
        return Some(
            dims.map(|d| {
                let k = t.radix[d] as f64;
                let line = match (t.family, t.kind) {
                    (Family::HyperX, _) => k * (k - 1.0),
                    (_, Kind::Torus) if t.bidirectional => {
                        k * ((t.radix[d] as u64).pow(2) / 4) as f64
                    }
                    (_, Kind::Torus) => k * k * (k - 1.0) / 2.0,
                    _ => (k * k * k - k) / 3.0,
                };
                Class {
                    what: format!("link of dimension {d}"),
                    channels: both(d),
                    load: conc * conc * (r / k) * (r / k) * line / (n - 1.0),
                }
            })
            .collect(),
        );
    }
    let topo = Topology::build(t);
    // The routers' grid; processor i is on router i / c.
    let cube = Addresses::grid(t.kind, t.radix.clone(), t.bidirectional);
    let per = t.concentration;
    // Per dimension: hops forced +, forced −, and either way (half-way round a ring).
    let mut hops = vec![[0.0f64; 3]; t.radix.len()];
    pairs(s, &topo, |a, b, q| {
        let (a, b) = (a / per, b / per);
        for (d, h) in hops.iter_mut().enumerate() {
            let (x, y) = (cube.coord(a, d), cube.coord(b, d));
            let (dir, dist) = match t.family {
                Family::HyperX => (if y > x { Dir::Plus } else { Dir::Minus }, (x != y) as u32),
                _ => cube.dim_route(d, x, y),
            };
            let tie = cube.wraps() && t.bidirectional && 2 * dist == t.radix[d];
            let way = if tie { 2 } else { dir as usize };
            h[way] += q * dist as f64;
        }
    })?;
    let mut classes = Vec::new();
    for (d, [plus, minus, either]) in hops.into_iter().enumerate() {
        let (up, down) = links_each_way(t, d);
        classes.push(Class {
            what: format!("link of dimension {d}"),
            channels: up + down,
            load: plus + minus + either,
        });
        for (dir, channels, load) in [(Dir::Plus, up, plus), (Dir::Minus, down, minus)] {
            if channels > 0.0 {
                classes.push(Class {
                    what: format!("{} link of dimension {d}", dir.sign()),
                    channels,
                    load,
                });
            }
        }
    }
    Some(classes)
}

/// Calls `visit(s, t, P(s sends to t))` for every source s and destination t of the
/// scenario's traffic (its pattern at the first seed) on the processors' addresses of `topo`;
/// None, nothing visited, on more than [`ENUMERATION_MAX_NODES`] processors.
fn pairs(s: &Scenario, topo: &Topology, mut visit: impl FnMut(u32, u32, f64)) -> Option<()> {
    if s.topology.processors() > ENUMERATION_MAX_NODES as u64 {
        return None;
    }
    let traffic = Traffic::new(&s.traffic, Addresses::of_processors(topo), s.seeds[0]);
    for src in 0..traffic.addresses().nodes as u32 {
        for (dst, q) in traffic.distribution(src) {
            visit(src, dst, q);
        }
    }
    Some(())
}
