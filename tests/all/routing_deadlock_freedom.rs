//! Deadlock freedom of every routing on every topology it supports, under stress: loads far
//! past saturation, buffers of 1-2 flits, long messages (16-64 flits), tens of thousands of
//! cycles. The engine is driven through `Engine::send` (Bernoulli sources offering several times
//! the saturation throughput, so source queues grow throughout), its invariants are checked
//! every cycle, and every 500 cycles any buffer whose front flit has not moved for 500 cycles is
//! put to the drained-copy deadlock check (`Engine::confirm_deadlock`, the watchdog's). Then the
//! sources stop and the network drains: every message sent is delivered exactly once, by a
//! minimal path (hop count = the distance computed here), and nothing is left.
//!
//! The same checker must find a deadlock where one exists (negative controls below: Duato on a
//! torus without the dateline escape classes, DOR on a torus with one virtual channel), and the
//! scenario path (`run_point` with a short watchdog) must not report deadlock past saturation.

use crate::common::{Sent, Topo, offer_bernoulli, quiet_routing_engine, routing_scenario};
use flitsim::Error;
use flitsim::engine::{Engine, run_point};
use rand::SeedableRng;
use rand_pcg::Pcg64;

struct Outcome {
    sent: usize,
    /// Cycle at which the offer stopped and messages then waiting at sources.
    backlog_at_stop: u64,
    /// Fraction of hops on adaptive virtual channels, time-outs per message.
    adaptive: f64,
    timeouts: f64,
    drain_cycles: u64,
    /// Longest run of consecutive cycles in which no flit moved while flits were in the network.
    max_frozen: u64,
}

/// Offers Bernoulli traffic (each node, each cycle, a message with probability `p`, uniform
/// destination, length uniform in `lens`) for `cycles` cycles, then drains. Returns Err with
/// the stuck buffers when the network deadlocks.
fn stress(
    e: &mut Engine,
    t: &Topo,
    p: f64,
    lens: (u16, u16),
    cycles: u64,
    seed: u64,
    patience: u64,
) -> Result<Outcome, String> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let n = t.nodes();
    let mut sent: Vec<Sent> = Vec::new();
    // Every message is measured, so the routing statistics cover the whole run.
    e.set_window(0, cycles, 1);
    let mut backlog_at_stop = 0;
    let mut still = 0u64;
    let mut max_frozen = 0u64;
    let drain_cap = cycles + 1_000_000;
    loop {
        let c = e.cycle;
        if c < cycles {
            offer_bernoulli(e, &mut rng, n, p, lens, &mut sent);
        } else if e.idle() {
            break;
        }
        if c == cycles {
            backlog_at_stop = e.backlog;
        }
        assert!(c < drain_cap, "not drained by cycle {c}");
        e.step();
        e.check_invariants()
            .unwrap_or_else(|m| panic!("invariant broken in cycle {}: {m}", e.cycle));
        still = if e.moved == 0 && e.flits_in_net > 0 {
            still + 1
        } else {
            0
        };
        max_frozen = max_frozen.max(still);
        let suspect =
            still > patience || (e.cycle.is_multiple_of(500) && !e.stuck_buffers(500).is_empty());
        if suspect && let Some(frozen) = e.confirm_deadlock() {
            return Err(format!(
                "deadlock at cycle {}: {}",
                e.cycle,
                frozen
                    .iter()
                    .map(|b| b.to_string())
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
    }
    let drain_cycles = e.cycle - cycles;
    // Delivered exactly once: the multiset of deliveries equals the multiset sent (each key is
    // unique: one message per node per cycle).
    let mut got: Vec<Sent> = e
        .deliveries
        .iter()
        .map(|d| (d.src, d.dst, d.created, d.len))
        .collect();
    got.sort_unstable();
    sent.sort_unstable();
    assert_eq!(got.len(), sent.len(), "deliveries vs messages sent");
    assert!(got == sent, "the delivered messages differ from those sent");
    for d in &e.deliveries {
        assert_eq!(
            d.hops as u32,
            t.dist(d.src, d.dst),
            "{}->{}: not a minimal path",
            d.src,
            d.dst
        );
    }
    assert!(e.idle());
    assert_eq!(e.flits_in_net, 0);
    assert_eq!(e.live_messages(), 0);
    let flits: u64 = sent.iter().map(|s| s.3 as u64).sum();
    assert_eq!(e.ejected_flits, flits);
    let hops: u64 = sent.iter().map(|s| t.dist(s.0, s.1) as u64).sum();
    let links = e.net.links as usize;
    assert_eq!(
        e.c_msgs()[..links].iter().sum::<u64>(),
        hops,
        "headers over links"
    );
    assert_eq!(e.stats.count, sent.len() as u64);
    Ok(Outcome {
        sent: sent.len(),
        backlog_at_stop,
        adaptive: e.stats.adaptive_hop_fraction(),
        timeouts: e.stats.timeouts_per_message(),
        drain_cycles,
        max_frozen,
    })
}

struct Case {
    topo: Topo,
    vcs: u32,
    depth: u32,
    routing: String,
    /// The time-out τ of duato-timeout.
    tau: Option<u64>,
}

fn case(topo: Topo, vcs: u32, depth: u32, routing: &str) -> Case {
    Case {
        topo,
        vcs,
        depth,
        routing: routing.to_string(),
        tau: None,
    }
}

fn timeout_case(topo: Topo, vcs: u32, depth: u32, tau: u64, selection: &str) -> Case {
    Case {
        topo,
        vcs,
        depth,
        routing: format!(
            "algorithm = \"duato-timeout\"\ntimeout = {tau}\nselection = \"{selection}\""
        ),
        tau: Some(tau),
    }
}

/// Offered load: `flits` flits/node/cycle with lengths 16-64 (mean 40), for `cycles` cycles.
fn run_case(c: &Case, flits: f64, cycles: u64, seed: u64) -> Outcome {
    let mut e = quiet_routing_engine(&c.topo, c.vcs, c.depth, &c.routing);
    let lens = (16, 64);
    let p = flits / 40.0;
    let ctx = format!(
        "{:?} {:?} V={} depth={} [{}]",
        c.topo.shape,
        c.topo.radix,
        c.vcs,
        c.depth,
        c.routing.replace('\n', "; ")
    );
    // Nothing may stay frozen longer than a time-out (headers then take the escape class).
    let patience = c.tau.map_or(100, |tau| tau + 100);
    let o = stress(&mut e, &c.topo, p, lens, cycles, seed, patience)
        .unwrap_or_else(|m| panic!("{ctx}: {m}"));
    // Far past saturation: messages were piling up at the sources when the offer stopped.
    assert!(
        o.backlog_at_stop > c.topo.nodes() as u64,
        "{ctx}: not past saturation (backlog {} at stop)",
        o.backlog_at_stop
    );
    eprintln!(
        "{ctx}: {} messages, backlog {} at stop, drained in {} cycles, adaptive {:.3}, \
         time-outs/msg {:.3}, longest freeze {}",
        o.sent, o.backlog_at_stop, o.drain_cycles, o.adaptive, o.timeouts, o.max_frozen
    );
    o
}

const DOR: &str = "algorithm = \"dor\"";
const PCUBE: &str = "algorithm = \"pcube\"";
const DUATO: &str = "algorithm = \"duato\"";

#[test]
fn dor_is_deadlock_free_past_saturation() {
    for c in [
        case(Topo::mesh(&[4, 4]), 1, 1, DOR),
        case(Topo::mesh(&[5, 3]), 2, 2, DOR),
        case(Topo::uni_torus(4, 2), 2, 1, DOR),
        case(Topo::uni_torus(5, 2), 3, 2, DOR),
        case(Topo::bi_torus(4, 2), 2, 2, DOR),
        case(Topo::bi_torus(5, 2), 2, 1, DOR),
        case(Topo::hypercube(4), 1, 1, DOR),
        case(Topo::hypercube(5), 2, 2, DOR),
    ] {
        let o = run_case(&c, 0.8, 30_000, 1);
        // Deterministic routing: no adaptive class.
        assert_eq!(o.adaptive, 0.0);
        assert_eq!(o.timeouts, 0.0);
    }
}

/// Every torus convention (`[routing] tie` × `dateline`) on uni- and bidirectional tori, odd
/// and even k, buffers of 1 and 2 flits, the fewest virtual channels (2); and Duato's escape
/// with each tie rule where ties exist.
#[test]
fn torus_conventions_are_deadlock_free_past_saturation() {
    for tie in ["plus", "random"] {
        for dateline in ["at-wrap", "on-entry"] {
            let dor = format!("algorithm = \"dor\"\ntie = \"{tie}\"\ndateline = \"{dateline}\"");
            let mut tori = vec![
                Topo::bi_torus(4, 2),
                Topo::bi_torus(5, 2),
                Topo::bi_torus(6, 2),
            ];
            if dateline == "at-wrap" {
                // On-entry is refused on unidirectional tori (negative control below).
                tori.extend([Topo::uni_torus(4, 2), Topo::uni_torus(5, 2)]);
            }
            for t in tori {
                for depth in [1, 2] {
                    let o = run_case(&case(t.clone(), 2, depth, &dor), 0.8, 20_000, 5);
                    assert_eq!(o.adaptive, 0.0);
                }
            }
        }
        let duato = format!("algorithm = \"duato\"\ntie = \"{tie}\"");
        for depth in [1, 2] {
            let o = run_case(
                &case(Topo::bi_torus(4, 2), 3, depth, &duato),
                0.8,
                20_000,
                6,
            );
            assert!(o.adaptive > 0.0 && o.adaptive < 1.0);
        }
    }
}

#[test]
fn pcube_is_deadlock_free_past_saturation() {
    for c in [
        case(Topo::hypercube(4), 1, 1, PCUBE),
        case(Topo::hypercube(5), 1, 2, PCUBE),
        case(Topo::hypercube(5), 2, 1, PCUBE),
        case(Topo::hypercube(3), 1, 2, PCUBE),
    ] {
        let o = run_case(&c, 0.8, 30_000, 2);
        assert_eq!(o.adaptive, 0.0);
    }
}

/// The four topologies Duato's routing must cover, with the fewest virtual channels it needs.
fn duato_topologies() -> Vec<(Topo, u32)> {
    vec![
        (Topo::mesh(&[4, 4]), 2),
        (Topo::hypercube(4), 2),
        (Topo::uni_torus(4, 2), 3),
        // k = 4: pairs at distance k/2 have two minimal directions.
        (Topo::bi_torus(4, 2), 3),
    ]
}

#[test]
fn duato_is_deadlock_free_past_saturation() {
    for (t, vcs) in duato_topologies() {
        for depth in [1, 2] {
            let o = run_case(&case(t.clone(), vcs, depth, DUATO), 0.8, 25_000, 3);
            // Both classes were exercised: escape hops happened at saturation.
            assert!(
                o.adaptive > 0.0 && o.adaptive < 1.0,
                "adaptive fraction {}",
                o.adaptive
            );
            assert_eq!(o.timeouts, 0.0, "plain duato counts no time-outs");
        }
    }
    // More virtual channels, other selections, a 3-D torus.
    for c in [
        case(
            Topo::bi_torus(5, 2),
            4,
            1,
            "algorithm = \"duato\"\nselection = \"least-multiplexed\"",
        ),
        case(
            Topo::uni_torus(3, 3),
            3,
            2,
            "algorithm = \"duato\"\nselection = \"most-free\"",
        ),
        case(
            Topo::hypercube(5),
            3,
            1,
            "algorithm = \"duato\"\nselection = \"least-multiplexed\"",
        ),
        case(
            Topo::mesh(&[3, 3, 3]),
            2,
            2,
            "algorithm = \"duato\"\nselection = \"most-free\"",
        ),
    ] {
        let o = run_case(&c, 0.8, 20_000, 4);
        assert!(o.adaptive > 0.0 && o.adaptive < 1.0);
    }
}

#[test]
fn duato_timeout_is_deadlock_free_past_saturation() {
    for (tau, selection) in [
        (0, "random"),
        (1, "random"),
        (8, "most-free"),
        (200, "least-multiplexed"),
    ] {
        for (t, vcs) in duato_topologies() {
            let depth = if tau % 2 == 0 { 1 } else { 2 };
            let c = timeout_case(t, vcs, depth, tau, selection);
            let o = run_case(&c, 0.8, 15_000, 5 + tau);
            // Every escape hop is a time-out; at saturation some headers time out.
            assert!(o.timeouts > 0.0, "τ = {tau}: no time-out at saturation");
            assert!(
                o.max_frozen <= tau + 2,
                "τ = {tau}: frozen {} cycles",
                o.max_frozen
            );
        }
    }
}

/// With a long time-out, class a alone (fully adaptive minimal routing, cyclic channel
/// dependencies) does deadlock at saturation on the mesh and the unidirectional torus: the whole
/// network freezes, for at most τ cycles, until the blocked headers time out onto the escape
/// class. Every message is still delivered (deadlock freedom by the escape class), and no freeze
/// outlasts the time-out.
#[test]
fn duato_timeout_long_tau_freezes_at_most_tau_cycles() {
    let tau = 2000;
    let mut longest = 0;
    for (t, vcs) in [(Topo::mesh(&[4, 4]), 2), (Topo::uni_torus(4, 2), 3)] {
        let c = timeout_case(t, vcs, 1, tau, "random");
        let o = run_case(&c, 0.8, 20_000, 1);
        assert!(
            o.max_frozen <= tau + 2,
            "frozen for {} cycles > τ + 2",
            o.max_frozen
        );
        longest = longest.max(o.max_frozen);
    }
    // The freezes happen (class a alone is not deadlock-free), and last about τ.
    assert!(
        longest > tau / 2,
        "no class-a deadlock formed (longest freeze {longest})"
    );
}

/// The checker finds deadlocks where they exist, so the tests above can fail: Duato's routing
/// on a torus with two virtual channels and the check turned off has a single escape virtual
/// channel without dateline (each ring a cycle of escape channels), and DOR with one virtual
/// channel on a torus has the rings' cyclic dependencies.
#[test]
fn negative_controls_deadlock_is_detected() {
    for (t, vcs, routing) in [
        (
            Topo::uni_torus(4, 2),
            2,
            "algorithm = \"duato\"\ndeadlock_check = false",
        ),
        (
            Topo::uni_torus(4, 2),
            1,
            "algorithm = \"dor\"\ndeadlock_check = false",
        ),
        // The dateline class chosen on entry breaks no cycle on a unidirectional ring, where
        // routes reach k - 1 links (src/routing/conventions.rs).
        (
            Topo::uni_torus(4, 2),
            2,
            "algorithm = \"dor\"\ndateline = \"on-entry\"\ndeadlock_check = false",
        ),
    ] {
        let mut e = quiet_routing_engine(&t, vcs, 1, routing);
        let r = stress(&mut e, &t, 0.8 / 40.0, (16, 64), 20_000, 7, 100);
        match r {
            Err(m) => assert!(m.starts_with("deadlock at cycle "), "{m}"),
            Ok(o) => panic!(
                "{routing:?} V={vcs}: expected a deadlock, all {} messages delivered",
                o.sent
            ),
        }
    }
}

/// The scenario path: `run_point` far past saturation with a short watchdog (300 cycles, so it
/// checks often and headers routinely wait longer) never reports a deadlock.
#[test]
fn run_point_past_saturation_reports_no_deadlock() {
    let cases: Vec<(Topo, u32, &str)> = vec![
        (Topo::mesh(&[4, 4]), 1, DOR),
        (Topo::bi_torus(4, 2), 2, DOR),
        (Topo::hypercube(4), 1, PCUBE),
        (Topo::mesh(&[4, 4]), 2, DUATO),
        (Topo::hypercube(4), 2, DUATO),
        (Topo::uni_torus(4, 2), 3, DUATO),
        (Topo::bi_torus(4, 2), 3, DUATO),
        (
            Topo::bi_torus(4, 2),
            3,
            "algorithm = \"duato-timeout\"\ntimeout = 0",
        ),
        (
            Topo::uni_torus(4, 2),
            3,
            "algorithm = \"duato-timeout\"\ntimeout = 4",
        ),
        (
            Topo::hypercube(4),
            2,
            "algorithm = \"duato-timeout\"\ntimeout = 50",
        ),
    ];
    for (t, vcs, routing) in cases {
        let m = 48;
        let rate = 0.9 / m as f64;
        let s = routing_scenario(
            &t,
            vcs,
            1,
            m,
            rate,
            2000,
            8000,
            11,
            routing,
            "watchdog_cycles = 300\nmax_backlog = 1000\ndrain_cycles = 4000",
        );
        match run_point(&s, rate, 11) {
            Ok(r) => assert!(r.saturated(), "{routing:?} {t:?}: not past saturation"),
            Err(Error::Deadlock(m)) => panic!("{routing:?} {t:?}: {m}"),
            Err(e) => panic!("{routing:?} {t:?}: {e}"),
        }
    }
}
