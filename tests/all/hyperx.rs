//! HyperX (k-ary n-dimensional flattened butterfly) with dimension-order routing: every router
//! is linked to each router that differs from it in exactly one coordinate. The facts here are
//! computed from coordinates in this file, never by the library: the hop count h of a pair is
//! the number of coordinates in which they differ, zero-load latency is exactly M + h, the hop
//! distribution of uniform traffic is the enumeration's, and the routing is deadlock-free far
//! past saturation.

use crate::common::{chi2_9999, one_message, run_past_saturation};
use flitsim::Scenario;
use flitsim::engine::{Engine, build_engine, build_engine_with, run_point};

/// Coordinates of node `v` (dimension 0 least significant).
fn coords(radix: &[u32], mut v: u32) -> Vec<u32> {
    radix
        .iter()
        .map(|&k| {
            let c = v % k;
            v /= k;
            c
        })
        .collect()
}

/// Hops of the dimension-order path: one per differing coordinate.
fn hops(radix: &[u32], a: u32, b: u32) -> u32 {
    let (ca, cb) = (coords(radix, a), coords(radix, b));
    ca.iter().zip(&cb).filter(|(x, y)| x != y).count() as u32
}

fn nodes(radix: &[u32]) -> u32 {
    radix.iter().product()
}

fn scenario(radix: &[u32], vcs: u32, depth: u32, m: u32, rate: f64, run: &str) -> Scenario {
    routed(radix, "dor", vcs, depth, m, rate, run)
}

/// A HyperX scenario with `[routing] algorithm = routing`.
fn routed(
    radix: &[u32],
    routing: &str,
    vcs: u32,
    depth: u32,
    m: u32,
    rate: f64,
    run: &str,
) -> Scenario {
    let k: Vec<String> = radix.iter().map(|k| k.to_string()).collect();
    let text = format!(
        "name = \"hyperx-test\"\n[topology]\nkind = \"hyperx\"\nk = [{}]\n[router]\nvcs = {vcs}\n\
         buffer_depth = {depth}\n[routing]\nalgorithm = \"{routing}\"\n[traffic]\nmessage_length = {m}\n\
         rates = [{rate:?}]\n[run]\n{run}\n",
        k.join(", ")
    );
    Scenario::from_toml(&text, "hyperx-test.toml")
        .unwrap_or_else(|e| panic!("test scenario rejected: {e}\n{text}"))
}

/// An engine without sources: messages enter only through `Engine::send`.
fn quiet(radix: &[u32], vcs: u32, depth: u32) -> Engine {
    let s = scenario(radix, vcs, depth, 1, 0.001, "");
    let mut e = build_engine(&s, 0.0, 1);
    e.log_deliveries = true;
    e
}

const NETWORKS: [&[u32]; 4] = [&[3, 3], &[4, 4], &[2, 3, 4], &[5]];

#[test]
fn links_join_routers_differing_in_one_coordinate() {
    for radix in NETWORKS {
        let e = quiet(radix, 1, 2);
        let n = nodes(radix);
        let links = e.net.topology.links();
        let degree: u32 = radix.iter().map(|k| k - 1).sum();
        assert_eq!(links.len() as u32, n * degree, "{radix:?}: links");
        let mut seen = std::collections::HashSet::new();
        for l in links {
            assert_eq!(hops(radix, l.src, l.dst), 1, "{radix:?}: {l:?}");
            let (a, b) = (coords(radix, l.src), coords(radix, l.dst));
            assert_ne!(a[l.dim as usize], b[l.dim as usize], "{radix:?}: {l:?} dim");
            assert!(seen.insert((l.src, l.dst)), "{radix:?}: parallel links");
        }
        let p = e.net.topology.properties();
        assert_eq!((p.processors, p.routers), (n as u64, n as u64));
        assert_eq!(p.degree, degree);
        let pairs: Vec<u32> = (0..n)
            .flat_map(|a| (0..n).filter(move |&b| b != a).map(move |b| (a, b)))
            .map(|(a, b)| hops(radix, a, b))
            .collect();
        assert_eq!(
            p.diameter,
            *pairs.iter().max().unwrap(),
            "{radix:?}: diameter"
        );
        let mean = pairs.iter().sum::<u32>() as f64 / pairs.len() as f64;
        assert!((p.mean_distance - mean).abs() < 1e-12, "{radix:?}: mean");
    }
}

/// The hypercube is the HyperX with k = 2: the same counts and distances.
#[test]
fn hyperx_with_k2_is_the_hypercube() {
    let text =
        "name = \"h\"\n[topology]\nkind = \"hypercube\"\nn = 4\n[traffic]\nrates = [0.001]\n";
    let cube = build_engine(&Scenario::from_toml(text, "h.toml").unwrap(), 0.0, 1);
    let hx = quiet(&[2, 2, 2, 2], 1, 2);
    let (pc, ph) = (cube.net.topology.properties(), hx.net.topology.properties());
    assert_eq!(
        (pc.channels, pc.degree, pc.diameter),
        (ph.channels, ph.degree, ph.diameter)
    );
    assert!((pc.mean_distance - ph.mean_distance).abs() < 1e-12);
    for a in 0..16 {
        for b in 0..16 {
            assert_eq!(hx.net.topology.distance(a, b), (a ^ b).count_ones());
        }
    }
}

/// A single M-flit message in an empty HyperX has latency exactly M + h, h the number of
/// differing coordinates, for every ordered pair; its header crosses h links, the lowest
/// differing dimension first.
#[test]
fn zero_load_latency_is_m_plus_h() {
    for radix in NETWORKS {
        for (vcs, depth) in [(1, 2), (2, 4)] {
            let mut e = quiet(radix, vcs, depth);
            let n = nodes(radix);
            for src in 0..n {
                for dst in (0..n).filter(|&d| d != src) {
                    let h = hops(radix, src, dst) as u64;
                    for m in [1u16, 2, 5, 16] {
                        let before = e.c_msgs()[..e.net.links as usize].to_vec();
                        e.deliveries.clear();
                        let t0 = e.cycle;
                        e.send(src, dst, m);
                        while e.deliveries.is_empty() {
                            assert!(e.cycle < t0 + 500, "{radix:?} {src}->{dst} not delivered");
                            e.step();
                        }
                        let d = e.deliveries[0];
                        let ctx = format!("{radix:?} V={vcs} {src}->{dst} M={m} h={h}");
                        assert_eq!(d.hops as u64, h, "{ctx}: hops");
                        assert_eq!(d.eject - d.created, m as u64 + h, "{ctx}: latency");
                        assert!(e.idle(), "{ctx}: network not empty");
                        let used: Vec<usize> = (0..e.net.links as usize)
                            .filter(|&c| e.c_msgs()[c] > before[c])
                            .collect();
                        let mut dims: Vec<u8> =
                            used.iter().map(|&c| e.net.link(c as u32).dim).collect();
                        let want: Vec<u8> = (0..radix.len())
                            .filter(|&d| coords(radix, src)[d] != coords(radix, dst)[d])
                            .map(|d| d as u8)
                            .collect();
                        dims.sort_unstable();
                        assert_eq!(dims, want, "{ctx}: one link per differing dimension");
                    }
                }
            }
        }
    }
}

/// Under uniform traffic the hop counts of delivered messages follow the enumeration over
/// every ordered pair of distinct nodes (chi-square at the 0.9999 quantile), and every
/// message takes exactly its pair's h hops.
#[test]
fn hop_distribution_matches_enumeration() {
    let radix: &[u32] = &[3, 4, 5];
    let n = nodes(radix);
    let mut count = vec![0u64; radix.len() + 1];
    for a in 0..n {
        for b in (0..n).filter(|&b| b != a) {
            count[hops(radix, a, b) as usize] += 1;
        }
    }
    let pairs = (n * (n - 1)) as f64;
    let s = scenario(
        radix,
        2,
        4,
        4,
        0.01,
        "warmup_cycles = 1000\nmeasure_cycles = 30000",
    );
    let mut e = build_engine(&s, 0.01, 7);
    e.log_deliveries = true;
    for _ in 0..31_000 {
        e.step();
    }
    let mut got = vec![0u64; radix.len() + 1];
    for d in &e.deliveries {
        assert_eq!(d.hops as u32, hops(radix, d.src, d.dst), "{d:?}");
        got[d.hops as usize] += 1;
    }
    let total: u64 = got.iter().sum();
    assert!(total > 10_000, "only {total} messages");
    let chi2: f64 = got
        .iter()
        .zip(&count)
        .skip(1)
        .map(|(&o, &c)| {
            let want = total as f64 * c as f64 / pairs;
            (o as f64 - want).powi(2) / want
        })
        .sum();
    assert!(
        chi2 < chi2_9999(radix.len() - 1),
        "chi2 {chi2} got {got:?} enumeration {count:?}"
    );
    assert_eq!(got[0], 0, "no message to itself");
}

/// Far past saturation with 1- and 2-flit buffers and long messages, the network never
/// freezes (the drained-copy deadlock check stays silent), then drains: every message is
/// delivered once, by a minimal path.
#[test]
fn dimension_order_is_deadlock_free_past_saturation() {
    for (radix, vcs, depth) in [
        (&[4u32, 4][..], 1, 1),
        (&[3, 3, 3][..], 1, 2),
        (&[6][..], 2, 1),
    ] {
        let mut e = quiet(radix, vcs, depth);
        let ctx = format!("{radix:?} dor V={vcs} depth {depth}");
        run_past_saturation(&mut e, nodes(radix), (0.05, (8, 32)), 6000, (11, 1), &ctx);
        for d in &e.deliveries {
            assert_eq!(d.hops as u32, hops(radix, d.src, d.dst), "{radix:?}");
        }
        assert_eq!(e.live_messages(), 0);
    }
    // The scenario path past saturation reports saturation, not deadlock.
    let s = scenario(
        &[4, 4],
        1,
        1,
        16,
        0.06,
        "warmup_cycles = 500\nmeasure_cycles = 3000\nwatchdog_cycles = 300",
    );
    let r = run_point(&s, 0.06, 3).expect("no deadlock past saturation");
    assert!(r.saturated());
}

/// A HyperX lists no router's links, so a move of a split point's boundaries renews every
/// channel's sides: moved three times (to lopsided ranges and back) on two threads with the
/// one-pass cycle and its flowing worms, the point delivers the same messages in the same
/// cycles, with the same channel counters, as one thread.
#[test]
fn moving_partition_boundaries_on_a_hyperx_changes_nothing() {
    let s = scenario(&[4, 4, 3], 2, 4, 8, 0.02, "");
    let run = |threads: usize, moves: &[(u64, u32)]| {
        let mut e = build_engine_with(&s, 0.02, 7, |c| {
            c.threads = threads;
            c.prefetch = Some(true);
        });
        assert_eq!(e.threads(), threads);
        e.log_deliveries = true;
        for i in 0..1500 {
            if let Some(&(_, at)) = moves.iter().find(|(c, _)| *c == i) {
                e.repartition(&[0, at]);
                assert_eq!(e.partition_starts(), Some(&[0, at][..]));
            }
            e.step();
            if i % 250 == 0 {
                e.check_invariants().unwrap();
            }
        }
        e.check_invariants().unwrap();
        (e.deliveries.clone(), e.c_flits(), e.c_msgs())
    };
    let one = run(1, &[]);
    assert!(
        one.0.len() > 500,
        "too few deliveries to compare: {}",
        one.0.len()
    );
    let moving = run(2, &[(1, 5), (400, 44), (900, 24)]);
    assert!(one == moving, "boundaries moved on a HyperX");
}

/// Routings that need k-ary n-cube coordinates and locality patterns are refused on a HyperX
/// with one line naming the key and the fix; dimension order and Duato's routing are accepted.
#[test]
fn refusals_name_the_key_and_the_fix() {
    let base = "name = \"h\"\n[topology]\nkind = \"hyperx\"\nk = 4\nn = 2\n[router]\nvcs = 3\n";
    for routing in [
        "algorithm = \"dor\"",
        "algorithm = \"duato\"",
        "algorithm = \"duato-timeout\"\ntimeout = 4",
    ] {
        let ok = format!("{base}[routing]\n{routing}\n[traffic]\nrates = [0.001]\n");
        assert_eq!(
            crate::common::flitsim_check(&ok, "hyperx-ok").0,
            Some(0),
            "{routing}"
        );
    }
    for (extra, key) in [
        (
            "[routing]\nalgorithm = \"adaptive\"\n[traffic]\nrates = [0.001]\n",
            "[routing] algorithm: adaptive routes on the coordinates of k-ary n-cubes and m-way networks (duato also on a HyperX), not on a hyperx",
        ),
        (
            "[traffic]\nrates = [0.001]\npattern = \"locality\"\nlocality_factor = 0.5\n",
            "[traffic] pattern: locality draws destinations by k-ary n-cube distance",
        ),
    ] {
        let (code, err) = crate::common::flitsim_check(&format!("{base}{extra}"), "hyperx-no");
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains(key), "{err}");
        assert!(err.contains("fix:"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

/// Duato's routing on a HyperX (class a: the link to the destination's coordinate in any
/// dimension still to correct; class b: dimension order): a single message in an empty network
/// takes h hops, one per differing coordinate, and arrives M + h cycles after it was sent, for
/// every ordered pair; far past saturation with 1- and 2-flit buffers it never freezes, every
/// message is delivered once by a minimal path, and most hops are adaptive.
#[test]
fn duato_on_a_hyperx_is_minimal_and_deadlock_free() {
    for radix in [&[3u32, 4][..], &[2, 3, 4][..]] {
        every_pair_takes_m_plus_h(radix, "duato", 4);
    }
    for (radix, vcs, depth) in [(&[4u32, 4][..], 2, 1), (&[3, 3, 3][..], 3, 2)] {
        let s = routed(radix, "duato", vcs, depth, 8, 0.001, "");
        let mut e = build_engine(&s, 0.0, 1);
        let ctx = format!("{radix:?} duato V={vcs} depth {depth}");
        run_past_saturation(&mut e, nodes(radix), (0.08, (8, 32)), 5000, (17, 1), &ctx);
        for d in &e.deliveries {
            assert_eq!(
                d.hops as u32,
                hops(radix, d.src, d.dst),
                "{radix:?}: minimal"
            );
        }
    }
    let s = routed(
        &[4, 4],
        "duato",
        3,
        4,
        8,
        0.04,
        "warmup_cycles = 1000\nmeasure_cycles = 4000",
    );
    let r = run_point(&s, 0.04, 5).expect("no deadlock");
    let adaptive = r.stats.adaptive_hop_fraction();
    assert!(adaptive > 0.5, "adaptive hop fraction {adaptive}");
}

/// UGAL-L on a HyperX: in an empty network every queue is 0 and every message goes by
/// dimension order (M + h for every pair); far past saturation it never freezes and delivers
/// every message once, through an intermediate router (two dimension-order legs) or not; it
/// detours seldom at a low load and more near saturation, and under uniform traffic accepts at
/// least 80% of what dimension order accepts past saturation. Fewer than 2 virtual channels
/// are refused.
#[test]
fn ugal_l_on_a_hyperx_chooses_at_the_source() {
    let radix: &[u32] = &[4, 4];
    let n = nodes(radix);
    every_pair_takes_m_plus_h(radix, "ugal-l", 3);
    for (vcs, depth) in [(2, 1), (3, 2)] {
        let s = routed(radix, "ugal-l", vcs, depth, 8, 0.001, "");
        let mut e = build_engine(&s, 0.0, 1);
        let ctx = format!("ugal-l V={vcs} depth {depth}");
        run_past_saturation(&mut e, n, (0.12, (8, 32)), 5000, (19, 1), &ctx);
        for d in &e.deliveries {
            assert!(d.hops as u32 <= 2 * radix.len() as u32, "{ctx}: {d:?}");
        }
    }
    let run = "warmup_cycles = 1000\nmeasure_cycles = 5000\nmax_backlog = 10000";
    let point = |routing: &str, rate: f64| {
        let s = routed(&[6, 6], routing, 4, 8, 4, rate / 4.0, run);
        run_point(&s, rate / 4.0, 3).expect("no deadlock")
    };
    let low = point("ugal-l", 0.05).stats.nonminimal_fraction();
    assert!(low < 0.1, "nonminimal fraction at a low load: {low}");
    let (dor, ugal) = (point("dor", 1.0), point("ugal-l", 1.0));
    assert!(
        ugal.stats.nonminimal_fraction() > low,
        "more detours near saturation"
    );
    assert!(
        ugal.accepted_flits >= 0.8 * dor.accepted_flits,
        "uniform: ugal-l {} against dor {}",
        ugal.accepted_flits,
        dor.accepted_flits
    );
    let base = "name = \"h\"\n[topology]\nkind = \"hyperx\"\nk = 4\nn = 2\n[router]\nvcs = 1\n\
                [routing]\nalgorithm = \"ugal-l\"\n[traffic]\nrates = [0.001]\n";
    let (code, err) = crate::common::flitsim_check(base, "hyperx-ugal");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("[router] vcs: ugal-l on a HyperX"), "{err}");
}

/// Under `routing` (V = 2, 2-flit buffers) a single message of `m` flits between every ordered
/// pair of an empty HyperX takes h hops, one per differing coordinate, and M + h cycles.
fn every_pair_takes_m_plus_h(radix: &[u32], routing: &str, m: u16) {
    let n = nodes(radix);
    let s = routed(radix, routing, 2, 2, 1, 0.001, "");
    let mut e = build_engine(&s, 0.0, 1);
    for src in 0..n {
        for dst in (0..n).filter(|&d| d != src) {
            let h = hops(radix, src, dst) as u64;
            let (d, _) = one_message(&mut e, src, dst, m);
            let ctx = format!("{routing} {radix:?} {src}->{dst}");
            assert_eq!(
                (d.hops as u64, d.eject - d.created),
                (h, m as u64 + h),
                "{ctx}"
            );
        }
    }
}
