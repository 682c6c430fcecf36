//! Speed at scale changes no result: the cycle's prefetching visits (on by default only for
//! networks larger than a cache), and the cycle split across threads, give the same
//! deliveries, cycle for cycle, and the same channel counters and occupancy as the plain
//! one-thread cycle, on every kind of network and router option.

use flitsim::Scenario;
use flitsim::engine::{
    CycleKind, Delivery, Engine, build_engine, build_engine_on, build_engine_with,
};
use flitsim::network::Network;
use flitsim::topology::KAryNCube;

/// A scenario on `topology` with `extra` keys in `[router]`, `[routing]` and `[traffic]`.
fn scenario(topology: &str, router: &str, routing: &str, traffic: &str) -> Scenario {
    let text = format!(
        "name = \"scale\"\n{topology}\n[router]\n{router}\n[routing]\n{routing}\n\
         [traffic]\nmessage_length = 6\nflit_rates = [0.1]\n{traffic}\n"
    );
    Scenario::from_toml(&text, "scale.toml").unwrap()
}

/// Deliveries, flits and headers per channel.
type Outcome = (Vec<Delivery>, Vec<u64>, Vec<u64>);

/// Deliveries and per-channel counters after `cycles` cycles at `flit_rate`.
fn run(s: &Scenario, flit_rate: f64, cycles: u64, prefetch: bool) -> Outcome {
    run_on(s, flit_rate, cycles, prefetch, 1, 0).0
}

/// [`run`] on `threads` threads, with the counters refreshed every `refresh` cycles (0:
/// never, as the engine does until 2^30), and the virtual-channel occupancy after it.
fn run_on(
    s: &Scenario,
    flit_rate: f64,
    cycles: u64,
    prefetch: bool,
    threads: usize,
    refresh: u64,
) -> (Outcome, Vec<f64>) {
    let e = build_engine_with(s, flit_rate / s.traffic.mean_length(), 7, |c| {
        c.threads = threads;
        c.prefetch = Some(prefetch);
    });
    outcome(s, e, threads, cycles, refresh)
}

/// Runs `e`, an engine of `s` on `threads` threads, for `cycles` cycles (refreshing every
/// `refresh`): its deliveries, per-channel counters and occupancy.
fn outcome(
    s: &Scenario,
    mut e: Engine,
    threads: usize,
    cycles: u64,
    refresh: u64,
) -> (Outcome, Vec<f64>) {
    // Early free and router or link timing keep one thread (their plans say so).
    let plan = e.plan();
    let one_thread = matches!(
        plan.kind,
        CycleKind::TwoPass { early: true, .. } | CycleKind::TwoPass { timed: true, .. }
    );
    assert_eq!(e.threads(), if one_thread { 1 } else { threads });
    assert_eq!(plan.threads, e.threads());
    e.log_deliveries = true;
    for i in 0..cycles {
        e.step();
        if refresh > 0 && i % refresh == refresh - 1 {
            e.refresh();
        }
        if i % 500 == 0 && s.router.link_latency == 1 {
            e.check_invariants().unwrap();
        }
    }
    if s.router.link_latency == 1 {
        // (With longer links, flits on a link are counted in the network but in no buffer.)
        e.check_invariants().unwrap();
    }
    let occupancy = e.vc_occupancy();
    ((e.deliveries.clone(), e.c_flits(), e.c_msgs()), occupancy)
}

/// Asserts that two runs' deliveries, channel counters and occupancy (bit for bit) agree.
fn assert_same(a: &(Outcome, Vec<f64>), b: &(Outcome, Vec<f64>), ctx: &str) {
    assert_eq!(a.0.0, b.0.0, "{ctx}: deliveries");
    assert_eq!(a.0.1, b.0.1, "{ctx}: flits per channel");
    assert_eq!(a.0.2, b.0.2, "{ctx}: headers per channel");
    let bits = |p: &[f64]| p.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&a.1), bits(&b.1), "{ctx}: occupancy");
}

/// Every kind of network and router option: (topology, router, routing, traffic) keys.
fn cases() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    let mesh = "[topology]\nkind = \"mesh\"\nk = [5, 4]";
    let bi = "[topology]\nkind = \"torus\"\nk = 4\nn = 3\nlinks = \"bidirectional\"";
    let uni = "[topology]\nkind = \"torus\"\nk = 5\nn = 2\nlinks = \"unidirectional\"";
    let cube = "[topology]\nkind = \"hypercube\"\nn = 5";
    let mway = "[topology]\nkind = \"mway\"\nk = 4\nn = 2\nwrap = \"torus\"";
    let cases = [
        (mesh, "vcs = 2\nbuffer_depth = 2", "algorithm = \"dor\"", ""),
        (mesh, "vcs = 2\nbuffer_depth = 2\nearly_free = true", "", ""),
        (bi, "vcs = 2\nbuffer_depth = 4", "tie = \"random\"", ""),
        (bi, "vcs = 3\nbuffer_depth = 2", "algorithm = \"duato\"", ""),
        (
            uni,
            "vcs = 2\nbuffer_depth = 1",
            "",
            "source_concurrency = \"vcs\"",
        ),
        (
            cube,
            "vcs = 3\nbuffer_depth = 2",
            "algorithm = \"duato-timeout\"\ntimeout = 4",
            "",
        ),
        (
            cube,
            "vcs = 2\nbuffer_depth = 3\ndelay = 1\ncrossbar = \"per-port\"",
            "",
            "",
        ),
        (
            "[topology]\nkind = \"torus\"\nk = 4\nn = 2\nlinks = \"bidirectional\"\nlink_latency = 3",
            "vcs = 2\nbuffer_depth = 6",
            "",
            "",
        ),
        (
            mway,
            "vcs = 4\nbuffer_depth = 2",
            "algorithm = \"dor-ring\"",
            "",
        ),
        (
            mway,
            "vcs = 4\nbuffer_depth = 2",
            "algorithm = \"adaptive-ring\"\nselection = \"most-free\"",
            "",
        ),
    ];
    cases.to_vec()
}

/// Calls `f` with every case's scenario at a light load and far past saturation, and a
/// description of both for messages.
pub(crate) fn each_case(f: impl Fn(&Scenario, f64, &str)) {
    for (topology, router, routing, traffic) in cases() {
        let s = scenario(topology, router, routing, traffic);
        for flit_rate in [0.05, 0.9] {
            f(
                &s,
                flit_rate,
                &format!("{topology} / {router} / {routing} / {traffic} at {flit_rate}"),
            );
        }
    }
}

/// Prefetching (and with it, for the papers' router, the one-pass cycle: headers visited first,
/// each body moved as the grants visit it) changes no delivery and no channel counter, on
/// every case, light and saturated.
#[test]
fn prefetching_visits_change_nothing() {
    each_case(|s, flit_rate, ctx| {
        let plain = run(s, flit_rate, 3000, false);
        let ahead = run(s, flit_rate, 3000, true);
        assert!(plain.0.len() > 100, "{ctx}: too few deliveries to compare");
        assert_eq!(plain.0, ahead.0, "{ctx}: deliveries");
        assert_eq!(plain.1, ahead.1, "{ctx}: flits per channel");
        assert_eq!(plain.2, ahead.2, "{ctx}: headers per channel");
    });
}

/// The cycle split across 2 and 3 threads (with and without prefetching, and so the one-pass
/// cycle's partitions), and into 2 partitions run in turn on one thread, delivers the same
/// messages in the same cycles, with the same channel counters and occupancy, as one thread:
/// at light load and far past saturation, on every kind of network (the options that keep one
/// thread included: they must not change either).
#[test]
fn threads_change_nothing() {
    each_case(|s, flit_rate, ctx| {
        let one = run_on(s, flit_rate, 2000, false, 1, 0);
        assert!(one.0.0.len() > 100, "{ctx}: too few deliveries to compare");
        for (threads, prefetch) in [(2, false), (3, false), (2, true), (3, true)] {
            let split = run_on(s, flit_rate, 2000, prefetch, threads, 0);
            assert_same(
                &one,
                &split,
                &format!("{ctx}, {threads} threads, prefetch {prefetch}"),
            );
        }
        // Two partitions run in turn on the calling thread (the probes' measure of a split
        // cycle's own work).
        let e = build_engine_with(s, flit_rate / s.traffic.mean_length(), 7, |c| {
            c.threads = 2;
            c.in_turn = true;
        });
        let turn = outcome(s, e, 2, 2000, 0);
        assert_same(&one, &turn, &format!("{ctx}, 2 partitions in turn"));
    });
}

/// Moving the 32-bit channel counters into their 64-bit totals (the engine's refresh every
/// 2^30 cycles, here every 97 or 250) changes no delivery, no counter and no occupancy, on one
/// thread and on two.
#[test]
fn refreshes_change_nothing() {
    each_case(|s, flit_rate, ctx| {
        let plain = run_on(s, flit_rate, 1500, false, 1, 0);
        assert!(plain.0.0.len() > 50, "{ctx}: too few deliveries to compare");
        for (threads, refresh) in [(1, 97), (2, 250)] {
            let refreshed = run_on(s, flit_rate, 1500, false, threads, refresh);
            let ctx = format!("{ctx}, {threads} threads, refresh every {refresh}");
            assert_same(&plain, &refreshed, &ctx);
        }
    });
}

/// A k-ary n-cube's links are numbered along its rings (each dimension's block ring by ring,
/// one way round and then the other, so that a message's next buffer is the next record).
/// Against the same network numbered by router (the tables' order), it changes no delivery,
/// no link's counters (matched through `links_in_order`) and no occupancy, at a light load and
/// far past saturation, with every routing and router option of `cases`: each router keeps its
/// links' order, so its driver slots and the order its headers draw selections in are the same.
#[test]
fn numbering_links_along_rings_changes_nothing() {
    each_case(|s, flit_rate, ctx| {
        let t = &s.topology;
        if t.mway().is_some() {
            return;
        }
        let rings = Network::for_scenario(s);
        let listed: Vec<u32> = rings.topology.links_in_order().collect();
        let moved = listed.iter().enumerate().filter(|&(i, &l)| i as u32 != l);
        assert!(
            moved.count() > 0,
            "{ctx}: the links are numbered along rings"
        );
        let by_router = KAryNCube::new(t.kind, t.radix.clone(), t.bidirectional);
        let by_router = Network::new(by_router, s.router.vcs, s.router.buffer_depth);
        let rate = flit_rate / s.traffic.mean_length();
        let a = outcome(s, build_engine(s, rate, 7), 1, 2000, 0);
        let b = outcome(s, build_engine_on(s, by_router, rate, 7), 1, 2000, 0);
        assert!(a.0.0.len() > 100, "{ctx}: too few deliveries to compare");
        // Channel c of the network numbered by router is channel `of[c]` along the rings.
        let of: Vec<usize> = (0..a.0.1.len())
            .map(|c| listed.get(c).map_or(c, |&l| l as usize))
            .collect();
        let (flits, msgs) = (&a.0.1, &a.0.2);
        let a = (
            (
                a.0.0.clone(),
                of.iter().map(|&c| flits[c]).collect(),
                of.iter().map(|&c| msgs[c]).collect(),
            ),
            a.1.clone(),
        );
        assert_same(&a, &b, ctx);
    });
}

/// The one-pass cycle on a larger network with long worms (M = 16, several buffers each),
/// where a channel's two virtual channels are often both held, on one thread and split across
/// 2 and 3 (where many worms cross from one partition to the next): against the two-pass
/// cycle on one thread, the same deliveries, channel counters and occupancy, with shallow and
/// deep buffers, at a light load and far past saturation.
#[test]
fn one_pass_on_a_larger_torus_changes_nothing() {
    for depth in [2, 8] {
        for flit_rate in [0.1, 0.9] {
            let text = format!(
                "name = \"scale\"\n[topology]\nkind = \"torus\"\nk = 8\nn = 3\n\
                 links = \"bidirectional\"\n[router]\nvcs = 2\nbuffer_depth = {depth}\n\
                 [traffic]\nmessage_length = 16\nflit_rates = [{flit_rate}]\n"
            );
            let s = Scenario::from_toml(&text, "scale.toml").unwrap();
            let ctx = format!("8-ary 3-cube, depth {depth}, at {flit_rate}");
            let two = run_on(&s, flit_rate, 3000, false, 1, 0);
            assert!(two.0.0.len() > 1000, "{ctx}: too few deliveries to compare");
            for threads in [1, 2, 3] {
                let one = run_on(&s, flit_rate, 3000, true, threads, 0);
                assert_same(&two, &one, &format!("{ctx}, {threads} threads"));
            }
        }
    }
}

/// Profiling a split cycle (`Engine::profile_split`) changes no result, and its figures add
/// up: every cycle counted, each step's slowest share at least its mean share and at most
/// its wall time, each thread's shares summing to the step's, the steps within the cycle; on
/// one thread there is no profile.
#[test]
fn a_split_cycles_profile_adds_up_and_changes_nothing() {
    let s = scenario(
        "[topology]\nkind = \"torus\"\nk = 8\nn = 3\nlinks = \"bidirectional\"",
        "vcs = 2\nbuffer_depth = 4",
        "",
        "",
    );
    let plain = run_on(&s, 0.3, 600, true, 3, 0);
    let mut e = build_engine_with(&s, 0.3 / s.traffic.mean_length(), 7, |c| {
        c.threads = 3;
        c.prefetch = Some(true);
    });
    assert_eq!(e.split_profile(), None, "no profile before it is asked for");
    e.profile_split();
    e.log_deliveries = true;
    for _ in 0..600 {
        e.step();
    }
    let counters = (e.deliveries.clone(), e.c_flits(), e.c_msgs());
    assert_same(
        &plain,
        &(counters, e.vc_occupancy()),
        "profiled on 3 threads",
    );
    let p = e.split_profile().expect("a split engine's profile");
    assert_eq!((p.cycles, p.threads), (600, 3));
    for s in 0..3 {
        let mean = p.busy[s] / 3;
        assert!(p.slowest[s] >= mean, "step {s}: {p:?}");
        assert!(p.wall[s] >= p.slowest[s], "step {s}: {p:?}");
    }
    assert!(p.slowest[0] > 0 && p.slowest[1] > 0, "{p:?}");
    assert_eq!(p.by_thread.len(), 3, "{p:?}");
    for s in 0..3 {
        let each = p.by_thread.iter().map(|t| t[s]);
        assert_eq!(each.clone().sum::<u64>(), p.busy[s], "step {s}: {p:?}");
        assert!(each.clone().max() <= Some(p.slowest[s]), "step {s}: {p:?}");
    }
    assert!(p.total >= p.wall.iter().sum::<u64>(), "{p:?}");
    assert!(p.imbalance() >= 0.0);
    let mut one = build_engine(&s, 0.3 / s.traffic.mean_length(), 7);
    one.profile_split();
    one.step();
    assert_eq!(one.split_profile(), None, "one thread: no profile");
}

/// Moving a split point's partition boundaries between cycles (`Engine::repartition`: buffers,
/// their places in the active and header sets, wait lists and sources change partition)
/// delivers the same messages in the same cycles, with the same channel counters and
/// occupancy, as one thread: on every case, light and saturated, on 3 threads with the
/// two-pass cycle and on 2 with the one-pass cycle, the boundaries moved five times (to
/// lopsided splits and back).
#[test]
fn moving_partition_boundaries_changes_nothing() {
    each_case(|s, flit_rate, ctx| {
        let one = run_on(s, flit_rate, 1500, false, 1, 0);
        assert!(one.0.0.len() > 100, "{ctx}: too few deliveries to compare");
        for (threads, prefetch) in [(3, false), (2, true)] {
            let mut e = build_engine_with(s, flit_rate / s.traffic.mean_length(), 7, |c| {
                c.threads = threads;
                c.prefetch = Some(prefetch);
            });
            let routers = Network::for_scenario(s).routers() as f64;
            let moves: [(u64, &[f64]); 5] = [
                (1, &[0.1, 0.2]),
                (250, &[0.85, 0.95]),
                (600, &[0.5, 0.55]),
                (601, &[0.05, 0.9]),
                (1100, &[0.3, 0.7]),
            ];
            let mut moved = 0;
            let e = {
                e.log_deliveries = true;
                for i in 0..1500 {
                    if let Some((_, at)) = moves.iter().find(|(c, _)| *c == i)
                        && e.threads() > 1
                    {
                        let mut starts = vec![0u32];
                        for f in &at[..e.threads() - 1] {
                            let next = ((f * routers) as u32).max(starts[starts.len() - 1] + 1);
                            starts.push(next);
                        }
                        e.repartition(&starts);
                        assert_eq!(e.partition_starts(), Some(&starts[..]), "{ctx}");
                        moved += 1;
                    }
                    e.step();
                    if i % 250 == 0 && s.router.link_latency == 1 {
                        e.check_invariants().unwrap();
                    }
                }
                e
            };
            assert_eq!(moved, if e.threads() > 1 { 5 } else { 0 }, "{ctx}");
            let moving = (
                (e.deliveries.clone(), e.c_flits(), e.c_msgs()),
                e.vc_occupancy(),
            );
            assert_same(
                &one,
                &moving,
                &format!("{ctx}, {threads} threads, prefetch {prefetch}, boundaries moved"),
            );
        }
    });
}

/// The one-pass cycle keeps its active set as a list, in the order its members joined: it
/// delivers the same messages in the same cycles, with the same channel counters and occupancy,
/// as the two-pass cycle's words visited in id order, on one thread and split, light and
/// saturated; and after every cycle each active buffer is on the lists once (none lost, none
/// twice: `check_invariants`).
#[test]
fn an_active_list_changes_nothing() {
    each_case(|s, flit_rate, ctx| {
        let rate = flit_rate / s.traffic.mean_length();
        let words = run_on(s, flit_rate, 1500, false, 1, 0);
        assert!(
            words.0.0.len() > 100,
            "{ctx}: too few deliveries to compare"
        );
        for threads in [1, 2] {
            let mut e = build_engine_with(s, rate, 7, |c| {
                c.threads = threads;
                c.prefetch = Some(true);
            });
            e.log_deliveries = true;
            for i in 0..1500 {
                e.step();
                if s.router.link_latency == 1
                    && let Err(why) = e.check_invariants()
                {
                    panic!("{ctx}, {threads} threads, after cycle {i}: {why}");
                }
            }
            let list = (
                (e.deliveries.clone(), e.c_flits(), e.c_msgs()),
                e.vc_occupancy(),
            );
            assert_same(&words, &list, &format!("{ctx}, {threads} threads, a list"));
        }
    });
}
