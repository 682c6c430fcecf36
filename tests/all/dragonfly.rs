//! The dragonfly (Kim, Dally, Scott and Abts, ISCA 2008) with `min` and `valiant` routing.
//! The facts are computed here from the links alone (breadth-first search over the router
//! graph, group of router r = r / a), never by the library's distance: every pair of groups
//! joined by ⌊a·h / (g − 1)⌋ global channels each way, the routing's hops equal the graph
//! distance, zero-load latency is exactly M + h, Valiant's route is two minimal legs through a
//! third group, the one global channel out of a group bounds group-shift traffic under `min`,
//! and both routings are deadlock-free past saturation.

use crate::common::{one_message, run_past_saturation};
use flitsim::Scenario;
use flitsim::engine::{Engine, build_engine, run_point};
use std::collections::VecDeque;

/// A dragonfly's (p, a, h, groups).
type Shape = (u32, u32, u32, u32);

/// Small dragonflies: the largest of their routers (g = a·h + 1) and smaller ones whose pairs
/// of groups are joined by two or three channels.
const SHAPES: [Shape; 6] = [
    (1, 2, 1, 3),
    (2, 4, 2, 9),
    (1, 4, 2, 5),
    (2, 3, 2, 4),
    (1, 2, 2, 5),
    (3, 1, 3, 4),
];

fn scenario(shape: Shape, routing: &str, vcs: u32, depth: u32, extra: &str) -> Scenario {
    let (p, a, h, g) = shape;
    let text = format!(
        "name = \"dragonfly-test\"\n[topology]\nkind = \"dragonfly\"\np = {p}\na = {a}\nh = {h}\n\
         groups = {g}\n[router]\nvcs = {vcs}\nbuffer_depth = {depth}\n[routing]\n\
         algorithm = \"{routing}\"\n{extra}"
    );
    let text = if text.contains("[traffic]") {
        text
    } else {
        format!("{text}\n[traffic]\nmessage_length = 4\nrates = [0.001]\n")
    };
    Scenario::from_toml(&text, "dragonfly-test.toml")
        .unwrap_or_else(|e| panic!("test scenario rejected: {e}\n{text}"))
}

/// An engine without sources: messages enter only through `Engine::send`.
fn quiet(shape: Shape, routing: &str, vcs: u32, depth: u32) -> Engine {
    let mut e = build_engine(&scenario(shape, routing, vcs, depth, ""), 0.0, 1);
    e.log_deliveries = true;
    e
}

/// Every router's distance to every router along paths that cross at most one global
/// channel (a dragonfly's minimal routes, Kim et al. 2008), by breadth-first search over the
/// links in two layers: before and after the global channel. The graph's own distance can be
/// shorter (two global channels through a third group); `graph_distances_are_no_longer`
/// checks that it never is longer.
fn bfs(e: &Engine) -> Vec<Vec<u32>> {
    layered_bfs(e, 1)
}

/// Distances along paths crossing at most `globals` global channels.
fn layered_bfs(e: &Engine, globals: usize) -> Vec<Vec<u32>> {
    let routers = e.net.routers();
    let a = match e
        .net
        .topology
        .properties()
        .shape
        .iter()
        .find(|(k, _)| *k == "a")
    {
        Some((_, v)) => v.parse::<u32>().expect("a number"),
        None => panic!("a dragonfly names a"),
    };
    let mut out = vec![Vec::new(); routers];
    for l in e.net.topology.links() {
        out[l.src as usize].push((l.dst, l.src / a != l.dst / a));
    }
    (0..routers)
        .map(|s| {
            let layers = globals + 1;
            let mut d = vec![u32::MAX; routers * layers];
            d[s] = 0;
            let mut q = VecDeque::from([(s as u32, 0usize)]);
            while let Some((r, layer)) = q.pop_front() {
                let here = d[layer * routers + r as usize];
                for &(t, global) in &out[r as usize] {
                    let next = layer + global as usize;
                    if next < layers && d[next * routers + t as usize] == u32::MAX {
                        d[next * routers + t as usize] = here + 1;
                        q.push_back((t, next));
                    }
                }
            }
            (0..routers)
                .map(|t| (0..layers).map(|l| d[l * routers + t]).min().unwrap())
                .collect()
        })
        .collect()
}

#[test]
fn groups_are_complete_and_every_pair_of_groups_has_its_global_channels() {
    for shape in SHAPES {
        let (p, a, h, g) = shape;
        let e = quiet(shape, "min", 2, 2);
        let m = a * h / (g - 1);
        let mut local = vec![vec![0u32; (a * g) as usize]; (a * g) as usize];
        let mut global = vec![vec![0u32; g as usize]; g as usize];
        let (mut out, mut inn) = (vec![0u32; (a * g) as usize], vec![0u32; (a * g) as usize]);
        for l in e.net.topology.links() {
            let (gs, gd) = (l.src / a, l.dst / a);
            if gs == gd {
                local[l.src as usize][l.dst as usize] += 1;
            } else {
                global[gs as usize][gd as usize] += 1;
                out[l.src as usize] += 1;
                inn[l.dst as usize] += 1;
            }
        }
        for r in 0..a * g {
            for t in 0..a * g {
                let want = (r != t && r / a == t / a) as u32;
                assert_eq!(
                    local[r as usize][t as usize], want,
                    "{shape:?} local {r}->{t}"
                );
            }
            assert!(
                out[r as usize] <= h && inn[r as usize] <= h,
                "{shape:?} router {r}"
            );
            assert_eq!(
                out[r as usize], inn[r as usize],
                "{shape:?} router {r} in = out"
            );
        }
        for x in 0..g {
            for y in (0..g).filter(|&y| y != x) {
                assert_eq!(
                    global[x as usize][y as usize], m,
                    "{shape:?} groups {x}->{y}"
                );
            }
        }
        let props = e.net.topology.properties();
        let links = g * a * (a - 1) + g * (g - 1) * m;
        assert_eq!(props.channels, links as u64, "{shape:?}");
        assert_eq!(props.processors, (p * a * g) as u64, "{shape:?}");
        assert_eq!(props.routers, (a * g) as u64, "{shape:?}");
    }
}

#[test]
fn distances_diameter_and_mean_distance_are_the_graphs() {
    for shape in SHAPES {
        let (p, a, _, g) = shape;
        let e = quiet(shape, "min", 2, 2);
        let d = bfs(&e);
        let routers = a * g;
        let (mut diameter, mut sum) = (0, 0u64);
        for r in 0..routers {
            for t in 0..routers {
                let dist = d[r as usize][t as usize];
                assert_eq!(e.net.topology.distance(r, t), dist, "{shape:?} {r}->{t}");
                diameter = diameter.max(dist);
                sum += dist as u64 * (p * p) as u64;
            }
        }
        let n = (p * routers) as f64;
        let props = e.net.topology.properties();
        assert_eq!(props.diameter, diameter, "{shape:?}");
        let mean = sum as f64 / (n * (n - 1.0));
        assert!((props.mean_distance - mean).abs() < 1e-12, "{shape:?}");
    }
}

/// The router graph's distance (any number of global channels) is never longer than the
/// minimal route's, is sometimes shorter (two global channels through a third group), and a
/// minimal route crosses at most 3 links: local, global, local.
#[test]
fn graph_distances_are_no_longer() {
    let mut shorter = 0;
    for shape in SHAPES {
        let e = quiet(shape, "min", 2, 2);
        let (one, any) = (bfs(&e), layered_bfs(&e, e.net.routers()));
        for (r, row) in one.iter().enumerate() {
            for (t, &d) in row.iter().enumerate() {
                assert!(any[r][t] <= d && d <= 3, "{shape:?} {r}->{t}");
                shorter += (any[r][t] < d) as u32;
            }
        }
    }
    assert!(
        shorter > 0,
        "no pair has a shorter path through a third group"
    );
}

/// `min`, and UGAL in an empty network (every queue 0, so q·H ties and UGAL goes minimal): a
/// single message crosses exactly its routers' minimal distance (local, global, local at
/// most) and arrives M + h cycles after it was sent, for every ordered pair of processors.
#[test]
fn minimal_zero_load_latency_is_m_plus_h() {
    for shape in SHAPES {
        let (p, a, _, g) = shape;
        for (routing, vcs, depth) in [
            ("min", 2, 2),
            ("min", 4, 4),
            ("ugal-l", 3, 2),
            ("ugal-l-vch", 3, 2),
            ("ugal-g", 4, 4),
        ] {
            let mut e = quiet(shape, routing, vcs, depth);
            let d = bfs(&e);
            let n = p * a * g;
            for src in 0..n {
                for dst in (0..n).filter(|&x| x != src) {
                    let h = d[(src / p) as usize][(dst / p) as usize];
                    for m in [1u16, 5] {
                        let (got, used) = one_message(&mut e, src, dst, m);
                        let ctx = format!("{shape:?} {routing} V={vcs} {src}->{dst} M={m} h={h}");
                        assert_eq!(got.hops as u32, h, "{ctx}: hops");
                        assert_eq!(used.len() as u32, h, "{ctx}: links");
                        assert_eq!(got.eject - got.created, m as u64 + h as u64, "{ctx}");
                        let globals = used
                            .iter()
                            .filter(|&&l| {
                                let l = e.net.link(l);
                                l.src / a != l.dst / a
                            })
                            .count();
                        assert!(globals <= 1, "{ctx}: {globals} global channels");
                    }
                }
            }
        }
    }
}

/// Global channels of G cycles (`[topology] global_latency`) beside local ones of L: a single
/// message crossing h links of which g are global arrives M + h + (h − g)(L − 1) + g(G − 1)
/// cycles after it was sent, for every ordered pair, under `min` and UGAL-L (which goes
/// minimally at zero load); past saturation the network never freezes and delivers every
/// message once.
#[test]
fn global_channels_take_their_own_latency() {
    let shape = (1, 3, 2, 4);
    let (p, a, _, g) = shape;
    for (routing, vcs, local, global) in [
        ("min", 2, 2, 2),
        ("min", 2, 1, 3),
        ("ugal-l", 3, 2, 4),
        ("min", 2, 3, 1),
    ] {
        let timing = format!("link_latency = {local}\nglobal_latency = {global}\n");
        let text = format!(
            "name = \"dragonfly-test\"\n[topology]\nkind = \"dragonfly\"\np = {p}\na = {a}\n\
             h = 2\ngroups = {g}\n{timing}[router]\nvcs = {vcs}\nbuffer_depth = 8\n[routing]\n\
             algorithm = \"{routing}\"\n[traffic]\nmessage_length = 4\nrates = [0.001]\n"
        );
        let s = Scenario::from_toml(&text, "dragonfly-test.toml").expect("a valid scenario");
        let mut e = build_engine(&s, 0.0, 1);
        let n = p * a * g;
        for src in 0..n {
            for dst in (0..n).filter(|&x| x != src) {
                let (d, used) = one_message(&mut e, src, dst, 4);
                let globals = used
                    .iter()
                    .filter(|&&l| {
                        let l = e.net.link(l);
                        l.src / a != l.dst / a
                    })
                    .count() as u64;
                let h = used.len() as u64;
                let want = 4 + h + (h - globals) * (local - 1) + globals * (global - 1);
                let ctx = format!("{routing} L={local} G={global} {src}->{dst}");
                assert_eq!(d.eject - d.created, want, "{ctx}");
            }
        }
        let mut e = build_engine(&s, 0.0, 1);
        let ctx = format!("{routing} L={local} G={global}");
        run_past_saturation(&mut e, n, (0.1, (8, 16)), 3000, (23, 1), &ctx);
    }
    let text = "name = \"m\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\nglobal_latency = 2\n\
                [traffic]\nrates = [0.001]\n";
    let (code, err) = crate::common::flitsim_check(text, "global-latency");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("[topology] global_latency: only a dragonfly has global channels"),
        "{err}"
    );
}

/// `valiant`: a message between groups crosses a global channel into a third group and one
/// out of it, each leg minimal (the first to the router its global channel enters, the second
/// from there), at zero-load latency M + its hops; within a group it is routed minimally. The
/// intermediate groups drawn cover every other group.
#[test]
fn valiant_is_two_minimal_legs_through_a_third_group() {
    for shape in [(2, 4, 2, 9), (1, 2, 2, 5), (2, 3, 2, 4)] {
        let (p, a, _, g) = shape;
        let mut e = quiet(shape, "valiant", 3, 2);
        let d = bfs(&e);
        let n = p * a * g;
        let mut through = vec![0u32; g as usize];
        for src in 0..n {
            for dst in (0..n).filter(|&x| x != src) {
                let (s, t) = (src / p, dst / p);
                let (got, used) = one_message(&mut e, src, dst, 3);
                let ctx = format!("{shape:?} {src}->{dst}");
                assert_eq!(got.eject - got.created, 3 + got.hops as u64, "{ctx}");
                assert_eq!(used.len() as u32, got.hops as u32, "{ctx}: links");
                if s / a == t / a {
                    assert_eq!(got.hops as u32, d[s as usize][t as usize], "{ctx}");
                    continue;
                }
                let globals: Vec<_> = used
                    .iter()
                    .map(|&l| *e.net.link(l))
                    .filter(|l| l.src / a != l.dst / a)
                    .collect();
                assert_eq!(globals.len(), 2, "{ctx}: {globals:?}");
                let (first, second) = if globals[0].src / a == s / a {
                    (globals[0], globals[1])
                } else {
                    (globals[1], globals[0])
                };
                let inter = first.dst / a;
                assert!(inter != s / a && inter != t / a, "{ctx}: through {inter}");
                assert_eq!(second.src / a, inter, "{ctx}");
                through[inter as usize] += 1;
                let leg1 = d[s as usize][first.dst as usize];
                let leg2 = d[first.dst as usize][t as usize];
                let first_leg_minimal = (0..a)
                    .map(|i| d[s as usize][(inter * a + i) as usize])
                    .min()
                    .unwrap();
                assert_eq!(leg1, first_leg_minimal, "{ctx}: first leg");
                assert_eq!(got.hops as u32, leg1 + leg2, "{ctx}: two minimal legs");
            }
        }
        assert!(
            (0..g as usize).all(|x| through[x] > 0),
            "{shape:?}: intermediate groups {through:?}"
        );
    }
}

/// Under `min`, group-shift traffic sends all a·p processors of group i through the one
/// global channel from group i to i + 1: λ·M·a·p ≤ 1 flit per cycle, so the accepted load
/// saturates at 1/(a·p) flits per processor per cycle. Past saturation it stays within 5% of
/// that bound and never above it; Valiant spreads the same traffic over every group and
/// accepts more than twice as much.
#[test]
fn group_shift_saturates_min_at_the_global_channel_bound() {
    let shape = (2, 4, 2, 9);
    let bound = 1.0 / (4.0 * 2.0);
    let run = "[run]\nwarmup_cycles = 3000\nmeasure_cycles = 12000\nmax_backlog = 100000\n";
    let traffic = |rate: f64| {
        format!(
            "[traffic]\npattern = \"group-shift\"\nprocess = \"bernoulli\"\n\
             message_length = 4\nflit_rates = [{rate}]\n{run}"
        )
    };
    let accepted = |routing: &str, vcs: u32| {
        let s = scenario(shape, routing, vcs, 8, &traffic(0.3));
        let r = run_point(&s, s.traffic.rates[0], 5).expect("no deadlock");
        r.accepted_flits
    };
    let s = scenario(shape, "min", 4, 8, &traffic(0.3));
    let b = flitsim::model::bound::throughput_bound(&s).expect("a bound by enumeration");
    assert!((b.flits - bound).abs() < 1e-12, "{b:?}");
    assert!(b.why.contains("minimal routes"), "{b:?}");
    let min = accepted("min", 4);
    assert!(
        min <= bound * 1.0001,
        "min accepted {min} above the bound {bound}"
    );
    assert!(min >= 0.95 * bound, "min accepted {min}, bound {bound}");
    let valiant = accepted("valiant", 4);
    assert!(valiant > 2.0 * min, "valiant {valiant} against min {min}");
}

/// UGAL chooses well at the source (Kim et al. 2008): on uniform traffic UGAL-L and UGAL-L_VCH
/// accept at least 80% of what `min` accepts past saturation (they seldom detour), where
/// Valiant accepts about half of `min`'s or less, and on group-shift traffic UGAL-L accepts at
/// least 80% of what Valiant accepts (it detours as the queues fill); UGAL-G, which sees the
/// global channels' queues, does at least as well as UGAL-L on group-shift, and so does
/// UGAL-L_VCH, within 10% of Valiant's.
#[test]
fn ugal_follows_the_better_of_minimal_and_valiant() {
    let shape = (2, 4, 2, 9);
    let accepted = |routing: &str, pattern: &str, rate: f64| {
        let extra = format!(
            "[traffic]\npattern = \"{pattern}\"\nprocess = \"bernoulli\"\nmessage_length = 4\n\
             flit_rates = [{rate}]\n[run]\nwarmup_cycles = 3000\nmeasure_cycles = 10000\n\
             max_backlog = 100000\n"
        );
        let s = scenario(shape, routing, 4, 8, &extra);
        let r = run_point(&s, s.traffic.rates[0], 3).expect("no deadlock");
        assert!(
            r.saturated(),
            "{routing} {pattern} at {rate} is not past saturation"
        );
        r.accepted_flits
    };
    let min = accepted("min", "uniform", 0.9);
    for routing in ["ugal-l", "ugal-l-vch"] {
        let ugal = accepted(routing, "uniform", 0.9);
        assert!(
            ugal >= 0.8 * min,
            "uniform: {routing} {ugal} against min {min}"
        );
    }
    // Valiant crosses two global channels per message between groups: about half of min's.
    let valiant_uniform = accepted("valiant", "uniform", 0.9);
    assert!(
        valiant_uniform <= 0.6 * min,
        "uniform: valiant {valiant_uniform} against min {min}"
    );
    let valiant = accepted("valiant", "group-shift", 0.6);
    let ugal_l = accepted("ugal-l", "group-shift", 0.6);
    let ugal_g = accepted("ugal-g", "group-shift", 0.6);
    let vch = accepted("ugal-l-vch", "group-shift", 0.6);
    assert!(
        ugal_l >= 0.8 * valiant,
        "group-shift: ugal-l {ugal_l} against valiant {valiant}"
    );
    assert!(
        ugal_g >= ugal_l,
        "group-shift: ugal-g {ugal_g} against ugal-l {ugal_l}"
    );
    assert!(
        vch >= 0.9 * valiant && vch >= ugal_l,
        "group-shift: ugal-l-vch {vch} against valiant {valiant} and ugal-l {ugal_l}"
    );
}

/// UGAL-L_VCH weighs each path by its own virtual channels exactly where both paths leave the
/// source router by one channel, and there the two candidates' classes share no virtual
/// channel (so their queues tell the paths apart); elsewhere, and always under UGAL-L, the
/// whole channel's queue. Checked at every source router, for every destination router in
/// another group and every intermediate group a route word can draw.
#[test]
fn ugal_l_vch_weighs_own_virtual_channels_where_both_paths_share_a_channel() {
    let shape = (1, 4, 2, 9);
    let (_, a, _, g) = shape;
    for routing in ["ugal-l", "ugal-l-vch"] {
        let e = quiet(shape, routing, 3, 2);
        let s = scenario(shape, routing, 3, 2, "");
        let r = flitsim::routing::Routing::new(&s, &e.net);
        let mut out = flitsim::routing::Candidates::default();
        let (mut shared, mut apart) = (0, 0);
        for src in 0..a * g {
            let inj = e.net.injection_channel(src) * e.net.vcs;
            for dst in (0..a * g).filter(|&d| d / a != src / a) {
                for word in 0..g - 2 {
                    r.route(&e.net, src, dst, inj, 0, word, &mut out);
                    let [min, nm] = out.compare.expect("UGAL compares two paths");
                    let (c0, c1) = (out.as_slice()[0], out.as_slice()[1]);
                    let same = c0.chan == c1.chan;
                    let ctx = format!("{routing} {src}->{dst} word {word}");
                    assert_eq!((min.queue, nm.queue), (c0.chan, c1.chan), "{ctx}");
                    let want = same && routing == "ugal-l-vch";
                    assert_eq!((min.own_vcs, nm.own_vcs), (want, want), "{ctx}");
                    if same {
                        assert!(c0.vc_lo >= c1.vc_hi || c1.vc_lo >= c0.vc_hi, "{ctx}");
                        shared += 1;
                    } else {
                        apart += 1;
                    }
                }
            }
        }
        assert!(
            shared > 0 && apart > 0,
            "{routing}: {shared} shared, {apart} apart"
        );
    }
}

/// `nonminimal_fraction` counts the measured messages routed through an intermediate group:
/// none under `min`; under `valiant` every message between groups, (N − p·a)/(N − 1) of the
/// uniform traffic (within 4 standard deviations of the binomial count); under UGAL few at a
/// low load, and many under group-shift past `min`'s saturation.
#[test]
fn nonminimal_fraction_counts_messages_through_an_intermediate_group() {
    let shape = (2, 4, 2, 9);
    let fraction = |routing: &str, pattern: &str, rate: f64| {
        let extra = format!(
            "[traffic]\npattern = \"{pattern}\"\nmessage_length = 4\nflit_rates = [{rate}]\n\
             [run]\nwarmup_cycles = 1000\nmeasure_cycles = 8000\n"
        );
        let s = scenario(shape, routing, 4, 8, &extra);
        let r = run_point(&s, s.traffic.rates[0], 9).expect("no deadlock");
        (r.stats.nonminimal_fraction(), r.stats.count as f64)
    };
    assert_eq!(fraction("min", "uniform", 0.2).0, 0.0);
    let (n, group) = (72.0, 8.0);
    let want = (n - group) / (n - 1.0);
    let (got, count) = fraction("valiant", "uniform", 0.1);
    let sigma = (want * (1.0 - want) / count).sqrt();
    assert!(
        (got - want).abs() < 4.0 * sigma,
        "valiant: {got} against {want} ± {sigma}"
    );
    let (low, _) = fraction("ugal-l", "uniform", 0.02);
    assert!(low < 0.05, "ugal-l at a low load: {low}");
    let (high, _) = fraction("ugal-g", "group-shift", 0.3);
    assert!(
        high > 0.3,
        "ugal-g under group-shift past min's saturation: {high}"
    );
}

/// Far past saturation with 1- and 2-flit buffers and the fewest virtual channels each
/// routing needs, the network never freezes (the drained-copy check stays silent), then
/// drains: every message delivered once.
#[test]
fn dragonfly_routings_are_deadlock_free_past_saturation() {
    for (shape, routing, vcs, depth) in [
        ((2, 4, 2, 9), "min", 2, 1),
        ((1, 2, 2, 5), "min", 2, 2),
        ((2, 4, 2, 9), "valiant", 3, 1),
        ((2, 3, 2, 4), "valiant", 3, 2),
        ((2, 4, 2, 9), "ugal-l", 3, 1),
        ((2, 4, 2, 9), "ugal-l-vch", 3, 1),
        ((1, 2, 2, 5), "ugal-g", 3, 2),
    ] {
        let mut e = quiet(shape, routing, vcs, depth);
        let (p, a, _, g) = shape;
        let ctx = format!("{shape:?} {routing} V={vcs} depth {depth}");
        run_past_saturation(&mut e, p * a * g, (0.1, (8, 32)), 5000, (13, 1), &ctx);
    }
}

/// A dragonfly without `algorithm` is routed by `min`. `check` refuses, in one line naming the
/// key and the fix: too few virtual channels for a routing's classes, more groups than
/// a·h + 1, a missing size, keys of other topologies, a cube routing on a dragonfly, a
/// dragonfly routing elsewhere, coordinate patterns, and group-shift off a dragonfly.
#[test]
fn refusals_name_the_key_and_the_fix() {
    let net = "name = \"d\"\n[topology]\nkind = \"dragonfly\"\np = 2\na = 4\nh = 2\n";
    let ok = format!(
        "{net}[router]\nvcs = 3\n[routing]\nalgorithm = \"valiant\"\n[traffic]\nrates = [0.001]\n"
    );
    assert_eq!(crate::common::flitsim_check(&ok, "dragonfly-ok").0, Some(0));
    // Without `algorithm` a dragonfly is routed minimally.
    let plain = Scenario::from_toml(&format!("{net}[traffic]\nrates = [0.001]\n"), "d.toml")
        .expect("a dragonfly without algorithm");
    assert_eq!(plain.routing.algorithm.name(), "min");
    let traffic = "[traffic]\nrates = [0.001]\n";
    for (text, says) in [
        (
            format!("{net}[router]\nvcs = 2\n[routing]\nalgorithm = \"valiant\"\n{traffic}"),
            "[router] vcs: valiant crosses up to 2 global channels",
        ),
        (
            format!("{net}[router]\nvcs = 1\n[routing]\nalgorithm = \"min\"\n{traffic}"),
            "[router] vcs: min crosses up to 1 global channels",
        ),
        (
            format!("{net}groups = 10\n[routing]\nalgorithm = \"min\"\n{traffic}"),
            "[topology] groups: 10 is out of range",
        ),
        (
            "name = \"d\"\n[topology]\nkind = \"dragonfly\"\np = 2\na = 4\n[traffic]\nrates = [0.001]\n".to_string(),
            "[topology] h: missing",
        ),
        (
            format!("{net}k = 4\n[routing]\nalgorithm = \"min\"\n{traffic}"),
            "[topology] k: a dragonfly has no k",
        ),
        (
            "name = \"d\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\na = 3\n[traffic]\nrates = [0.001]\n".to_string(),
            "[topology] a: only a dragonfly has a",
        ),
        (
            format!("{net}[routing]\nalgorithm = \"dor\"\n{traffic}"),
            "[routing] algorithm: dor does not route on a dragonfly",
        ),
        (
            "name = \"d\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[router]\nvcs = 3\n[routing]\nalgorithm = \"min\"\n[traffic]\nrates = [0.001]\n".to_string(),
            "[routing] algorithm: min routes on a dragonfly's groups, not on a mesh",
        ),
        (
            format!("{net}[routing]\nalgorithm = \"min\"\n[traffic]\nrates = [0.001]\npattern = \"tornado\"\n"),
            "[traffic] pattern: \"tornado\" is defined on router coordinates, and a dragonfly has none",
        ),
        (
            "name = \"d\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[traffic]\nrates = [0.001]\npattern = \"group-shift\"\n".to_string(),
            "[traffic] pattern: group-shift sends from each dragonfly group to the next",
        ),
    ] {
        let (code, err) = crate::common::flitsim_check(&text, "dragonfly-no");
        assert_eq!(code, Some(2), "{text}\n{err}");
        assert!(err.contains(says), "{err}");
        assert!(err.contains("fix:"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}
