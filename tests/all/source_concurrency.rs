//! `[traffic] source_concurrency`: up to c of a source's oldest messages hold injection virtual
//! channels at once, their flits sharing the injection channel round-robin. Exact cycle
//! numbers at zero load, conservation and the bound of c messages in flight at a load where
//! the source is the bottleneck, determinism, and the refusals (file, `--set`, `[sweep]`).

use crate::cli::{GOOD, assert_refused, edit};
use crate::common::{Sent, Topo, offer_bernoulli, quiet_routing_engine_with};
use flitsim::Scenario;
use flitsim::engine::{Delivery, Engine, run_point};
use rand_pcg::Pcg64;

/// A 4x4 mesh, V = 2, 4-flit buffers, DOR, no Poisson sources, deliveries logged, with
/// source concurrency `c`.
fn mesh_engine(c: u32) -> Engine {
    quiet_routing_engine_with(&Topo::mesh(&[4, 4]), 2, 4, "algorithm = \"dor\"", |e| {
        e.sources.concurrency = c
    })
}

/// Steps until every message is delivered (at most `cap` cycles); the deliveries by
/// destination.
fn drain(e: &mut Engine, cap: u64) -> Vec<Delivery> {
    while !e.idle() {
        assert!(e.cycle < cap, "not drained by cycle {cap}");
        e.step();
    }
    let mut d = e.deliveries.clone();
    d.sort_by_key(|d| d.dst);
    d
}

/// Source 0 of the 4x4 mesh sends, in cycle 0, A (M flits to node 3, h = 3 hops along x),
/// B (M flits to node 8, h = 2 hops along y), C (M flits to node 5, h = 2), in that order.
///
/// Documented timing (src/engine/mod.rs): a head injected in cycle t0 crosses one link per
/// cycle, and in an empty network a tail injected in cycle u is ejected in cycle u + h + 1
/// (for c = 1 the tail goes in at t0 + M − 1 and is ejected at t0 + M + h). Here t0 = 0.
///
/// c = 1: A is injected in cycles 0..M−1 (inject 0, eject M + 3). B takes the other injection
/// VC in cycle M (VC 0 still holds A's tail, which leaves in cycle M) and is alone on the
/// channel: inject M, eject 2M + 2. C finds both VCs busy until B's tail (injected in 2M − 1)
/// leaves VC 1 in cycle 2M; VC 0 is free since cycle M + 1, so C starts in cycle 2M (the
/// source sends one message at a time): inject 2M, eject 3M + 2.
///
/// c = 2: A starts in VC 0 in cycle 0; in cycle 1 the round-robin moves to VC 1, the lowest
/// free VC, and B starts there; then they alternate, each injection buffer receiving a flit
/// every other cycle and passing it on the next cycle (its path is unshared: A leaves router 0
/// along x, B along y), so A's flits go in at 0, 2, .., 2M − 2 and B's at 1, 3, .., 2M − 1.
/// A's tail is ejected at 2M − 2 + 3 + 1 = 2M + 2, B's at 2M − 1 + 2 + 1 = 2M + 2. C, the
/// third, waits for a free VC: VC 0 frees when A's tail leaves it in cycle 2M − 1, and in
/// cycle 2M (start-of-cycle state) C takes it: inject 2M; alone from then on, it is ejected
/// at 2M + M + 2 = 3M + 2.
#[test]
fn two_messages_alternate_on_the_injection_channel() {
    const M: u64 = 8;
    let expected = |c: u32| -> Vec<(u32, u64, u64)> {
        // (dst, inject, eject), sorted by destination: A (3), C (5), B (8).
        match c {
            1 => vec![(3, 0, M + 3), (5, 2 * M, 3 * M + 2), (8, M, 2 * M + 2)],
            _ => vec![(3, 0, 2 * M + 2), (5, 2 * M, 3 * M + 2), (8, 1, 2 * M + 2)],
        }
    };
    for c in [1, 2] {
        let mut e = mesh_engine(c);
        for dst in [3, 8, 5] {
            e.send(0, dst, M as u16);
        }
        let mut most = 0;
        while !e.idle() {
            assert!(e.cycle < 100);
            e.step();
            most = most.max(e.source_in_flight(0));
        }
        let got: Vec<(u32, u64, u64)> = drain(&mut e, 100)
            .iter()
            .map(|d| (d.dst, d.inject, d.eject))
            .collect();
        println!("c = {c}: (dst, inject, eject) = {got:?}, at most {most} in flight");
        assert_eq!(got, expected(c), "c = {c}");
        assert_eq!(most, c, "c = {c}: messages in flight at once");
        for d in drain(&mut e, 100) {
            assert_eq!(d.created, 0);
            assert_eq!(d.len as u64, M);
        }
    }
}

/// With c = 2 and one message only, the timing is the documented zero-load timing: a lone
/// message never waits for a partner.
#[test]
fn a_lone_message_keeps_the_zero_load_timing() {
    for c in [1, 2] {
        let mut e = mesh_engine(c);
        e.send(5, 15, 16);
        let d = drain(&mut e, 100);
        // 5 = (1, 1) to 15 = (3, 3): h = 4; inject 0, eject M + h = 20.
        assert_eq!((d[0].inject, d[0].eject, d[0].hops), (0, 20, 4), "c = {c}");
    }
}

/// The 3-cube of paper 000 (V = 3, Duato's routing, M = 32), where flitsim saturates at the
/// nodes with one message at a time: offers `p` messages/node/cycle (Bernoulli, through
/// `send`) for `cycles` cycles, checks the bound of `c` messages in flight every cycle, then
/// drains. Returns the messages sent, the deliveries, the flits ejected in cycles
/// `cycles/4..cycles`, and the most messages in flight at one source.
fn hypercube_run(c: u32, p: f64, cycles: u64, seed: u64) -> (Vec<Sent>, Vec<Delivery>, u64, u32) {
    let topo = Topo::hypercube(3);
    let mut e = quiet_routing_engine_with(&topo, 3, 4, "algorithm = \"duato\"", |e| {
        e.sources.concurrency = c
    });
    let mut rng = Pcg64::new(seed as u128, 0xC0C0);
    let mut sent = Vec::new();
    let mut most = 0;
    let mut start = 0;
    for t in 0..cycles {
        if t == cycles / 4 {
            start = e.ejected_flits;
        }
        offer_bernoulli(&mut e, &mut rng, 8, p, (32, 32), &mut sent);
        e.step();
        for s in 0..8 {
            let n = e.source_in_flight(s);
            assert!(
                n <= c,
                "c = {c}: source {s} has {n} messages in flight in cycle {t}"
            );
            most = most.max(n);
        }
    }
    let accepted = e.ejected_flits - start;
    let cap = e.cycle + 200_000;
    while !e.idle() {
        assert!(e.cycle < cap, "c = {c}: not drained");
        e.step();
        for s in 0..8 {
            assert!(e.source_in_flight(s) <= c);
        }
    }
    (sent, e.deliveries.clone(), accepted, most)
}

/// Every message is delivered exactly once, whole, from its source to its destination; the
/// messages of a source start in the order they were generated, one head per cycle; and
/// c = "vcs" (3) accepts more than c = 1 where the source is the bottleneck.
#[test]
fn hypercube_conserves_messages_and_accepts_more() {
    const CYCLES: u64 = 40_000;
    // 0.021 messages/node/cycle = 0.67 flits/node/cycle: past c = 1's saturation (about 0.58
    // flits/node/cycle on this network), below c = 3's.
    const P: f64 = 0.021;
    let mut accepted = Vec::new();
    for c in [1, 3] {
        let (sent, delivered, flits, most) = hypercube_run(c, P, CYCLES, 7);
        let mut want: Vec<(u32, u32, u64, u16)> = sent.clone();
        let mut got: Vec<(u32, u32, u64, u16)> = delivered
            .iter()
            .map(|d| (d.src, d.dst, d.created, d.len))
            .collect();
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got.len(), want.len(), "c = {c}: delivered once each");
        assert_eq!(got, want, "c = {c}: the messages sent, each once");
        for s in 0..8 {
            let mut mine: Vec<&Delivery> = delivered.iter().filter(|d| d.src == s).collect();
            mine.sort_by_key(|d| d.inject);
            for w in mine.windows(2) {
                assert!(w[0].inject < w[1].inject, "c = {c}: one head per cycle");
                assert!(w[0].created <= w[1].created, "c = {c}: FIFO start order");
                if c == 1 {
                    // One at a time: the next head follows the previous tail.
                    assert!(w[1].inject >= w[0].inject + w[0].len as u64);
                }
            }
        }
        let rate = flits as f64 / 8.0 / (CYCLES - CYCLES / 4) as f64;
        println!(
            "c = {c}: {} messages, accepted {rate:.4} flits/node/cycle (offered {:.4}), at most {most} in flight at a source",
            sent.len(),
            P * 32.0
        );
        assert_eq!(most, c, "c = {c}: the bound is reached");
        accepted.push(rate);
    }
    assert!(
        accepted[1] > accepted[0] * 1.05,
        "c = 3 accepts {} flits/node/cycle, c = 1 {}",
        accepted[1],
        accepted[0]
    );
}

fn cube_scenario(concurrency: &str, seed: u64) -> Scenario {
    let text = format!(
        "name = \"conc\"\nseed = {seed}\n[topology]\nkind = \"hypercube\"\nn = 3\n[router]\nvcs = 3\n\
         [routing]\nalgorithm = \"duato\"\n[traffic]\nmessage_length = 32\nrates = [0.02]\n\
         {concurrency}\n[run]\nwarmup_cycles = 2000\nmeasure_cycles = 20000\n"
    );
    Scenario::from_toml(&text, "conc.toml").unwrap()
}

/// The same seed gives the same point, field by field; `"vcs"` resolves to V = 3 and is the
/// same as 3; the default is 1, and concurrency changes the point.
#[test]
fn same_seed_same_results() {
    let point = |conc: &str, seed: u64| {
        let s = cube_scenario(conc, seed);
        format!("{:?}", run_point(&s, s.traffic.rates[0], seed).unwrap())
    };
    let vcs = cube_scenario("source_concurrency = \"vcs\"", 3);
    assert_eq!(vcs.traffic.source_concurrency, 3);
    assert_eq!(cube_scenario("", 3).traffic.source_concurrency, 1);
    let a = point("source_concurrency = \"vcs\"", 3);
    assert_eq!(a, point("source_concurrency = \"vcs\"", 3));
    assert_eq!(a, point("source_concurrency = 3", 3));
    assert_ne!(a, point("source_concurrency = \"vcs\"", 4));
    let one = point("", 3);
    assert_eq!(one, point("source_concurrency = 1", 3));
    assert_ne!(a, one);
    // The engine's deliveries too, cycle by cycle.
    let (s1, d1, f1, _) = hypercube_run(2, 0.02, 5000, 9);
    let (s2, d2, f2, _) = hypercube_run(2, 0.02, 5000, 9);
    assert_eq!((s1, d1, f1), (s2, d2, f2));
}

/// The default serializes as before the key existed (point keys unchanged); other values are
/// part of the scenario.
#[test]
fn the_default_is_left_out_of_the_serialized_scenario() {
    let json = |conc: &str| serde_json::to_string(&cube_scenario(conc, 1)).unwrap();
    assert!(!json("").contains("source_concurrency"));
    assert_eq!(json(""), json("source_concurrency = 1"));
    assert!(json("source_concurrency = 2").contains("\"source_concurrency\":2"));
    assert_eq!(
        json("source_concurrency = 3"),
        json("source_concurrency = \"vcs\"")
    );
}

/// c = 0, c = V + 1, an unknown name, and c = 2 on a k-ary m-way network (one injection buffer
/// per processor) are refused: exit code 2, one line naming the file and the key with a fix,
/// nothing written.
#[test]
fn out_of_range_values_are_refused() {
    let with = |line: &str| {
        edit(
            GOOD,
            "rates = [0.005, 0.01]",
            &format!("rates = [0.005, 0.01]\n{line}"),
        )
    };
    assert_refused(
        "conc-zero",
        Some(&with("source_concurrency = 0")),
        &["[traffic] source_concurrency", "0 messages", "from 1 to 2"],
    );
    assert_refused(
        "conc-above-v",
        Some(&with("source_concurrency = 3")),
        &[
            "[traffic] source_concurrency",
            "2 virtual channels ([router] vcs = 2)",
            "from 1 to 2, or \"vcs\"",
        ],
    );
    assert_refused(
        "conc-name",
        Some(&with("source_concurrency = \"many\"")),
        &[
            "[traffic] source_concurrency",
            "unknown value \"many\"",
            "\"vcs\"",
        ],
    );
    assert_refused(
        "conc-float",
        Some(&with("source_concurrency = 1.5")),
        &["source_concurrency", "a whole number or a string"],
    );
    let mway = edit(
        &edit(GOOD, "kind = \"mesh\"", "kind = \"mway\"\nwrap = \"torus\""),
        "algorithm = \"dor\"",
        "algorithm = \"dor-ring\"",
    );
    let mway = edit(
        &mway,
        "rates = [0.005, 0.01]",
        "rates = [0.005, 0.01]\nsource_concurrency = 2",
    );
    assert_refused(
        "conc-mway",
        Some(&mway),
        &[
            "[traffic] source_concurrency",
            "k-ary m-way network's processor injects into 1 buffer",
            "use 1",
        ],
    );
    // Its positive controls: 1 and "vcs" (= 1) are accepted there, as 2 and "vcs" on the mesh.
    for ok in [
        mway.replace("source_concurrency = 2", "source_concurrency = 1"),
        mway.replace("source_concurrency = 2", "source_concurrency = \"vcs\""),
        with("source_concurrency = 2"),
        with("source_concurrency = \"vcs\""),
    ] {
        let (code, err) = crate::common::flitsim_check(&ok, "conc-ok");
        assert_eq!(code, Some(0), "{ok}\n{err}");
    }
}

/// `--set traffic.source_concurrency=...` and `[sweep]` go through the same checks.
#[test]
fn through_set_and_sweep() {
    let tmp = crate::common::temp_dir("conc-set");
    let f = tmp.path().join("s.toml");
    std::fs::write(&f, GOOD).unwrap();
    let run = |args: &[&str]| crate::common::check_file(&f, args);
    let (code, out, err) = run(&["--set", "traffic.source_concurrency=vcs"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("up to 2 messages injected at once per source"),
        "{out}"
    );
    let (code, out, _) = run(&["--set", "traffic.source_concurrency=1"]);
    assert_eq!(code, Some(0));
    assert!(!out.contains("at once"), "{out}");
    for (value, words) in [
        ("3", "2 virtual channels"),
        ("0", "0 messages"),
        ("many", "unknown value \"many\""),
    ] {
        let set = format!("traffic.source_concurrency={value}");
        let (code, _, err) = run(&["--set", &set]);
        println!("--set {set}: {err}");
        assert_eq!(code, Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(&format!("--set {set}")), "{err}");
        assert!(err.contains("[traffic] source_concurrency"), "{err}");
        assert!(err.contains(words) && err.contains("; fix: "), "{err}");
    }
    let (code, _, err) = run(&["--set", "traffic.source_concurrency=true"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("a whole number or a string"), "{err}");
    let (code, out, err) = run(&["--set", "sweep.traffic.source_concurrency=[1, \"vcs\"]"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("traffic.source_concurrency = [1, vcs]"),
        "{out}"
    );
    // With V = 2, "vcs" is 2: the two configurations are the same points, refused by name.
    let (code, _, err) = run(&["--set", "sweep.traffic.source_concurrency=[1, 2, \"vcs\"]"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("(traffic.source_concurrency = 2) and (traffic.source_concurrency = vcs) are the same scenario"),
        "{err}"
    );
    let (code, _, err) = run(&["--set", "sweep.traffic.source_concurrency=[1, 3]"]);
    println!("sweep: {err}");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("at traffic.source_concurrency = 3"), "{err}");
    assert!(err.contains("[traffic] source_concurrency"), "{err}");
    let swept = format!("{GOOD}\n[sweep]\n\"traffic.source_concurrency\" = [\"vcs\", 0]\n");
    std::fs::write(&f, swept).unwrap();
    let (code, _, err) = run(&[]);
    println!("[sweep]: {err}");
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("at traffic.source_concurrency = 0"), "{err}");
}

fn watchdog_scenario(topology: &str, routing: &str, m: u32, flit_rate: f64) -> Scenario {
    let text = format!(
        "name = \"w\"\n[topology]\n{topology}\n[router]\nvcs = 2\nbuffer_depth = 2\n\
         [routing]\n{routing}\ndeadlock_check = false\n[traffic]\nmessage_length = {m}\n\
         flit_rates = [{flit_rate}]\nsource_concurrency = \"vcs\"\n\
         [run]\nwarmup_cycles = 1000\nmeasure_cycles = 20000\nwatchdog_cycles = 300\nmax_backlog = 400\n"
    );
    Scenario::from_toml(&text, "w.toml").expect("valid scenario")
}

/// The deadlock check's drain-only copies work with concurrent sources (messages holding an
/// injection virtual channel finish, none starts): deep saturation is congestion, and Duato's
/// routing on a torus with too few virtual channels is a deadlock.
#[test]
fn the_watchdog_tells_congestion_from_deadlock() {
    use flitsim::Error;
    let s = watchdog_scenario(
        "kind = \"mesh\"\nk = 8\nn = 2",
        "algorithm = \"dor\"",
        64,
        0.9,
    );
    let r = run_point(&s, s.traffic.rates[0], 1).unwrap_or_else(|e| panic!("congestion: {e}"));
    assert!(r.saturated());
    let s = watchdog_scenario(
        "kind = \"torus\"\nk = 4\nn = 2",
        "algorithm = \"duato\"",
        16,
        0.8,
    );
    match run_point(&s, s.traffic.rates[0], 1) {
        Err(Error::Deadlock(r)) => assert!(r.to_string().contains("still cannot move"), "{r}"),
        other => panic!("expected a deadlock, got {other:?}"),
    }
}
