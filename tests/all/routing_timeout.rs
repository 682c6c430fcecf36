//! Duato's routing with time-out (`duato-timeout`, paper 001): a header first routed at
//! waited = 0 may take class a (adaptive) while waited < τ (and always at waited = 0), and
//! class b (escape) once waited ≥ τ; escape hops are counted as time-outs.
//!
//! Deterministic cases on a line (a 1-D mesh, where every header has a single profitable
//! channel, so a hop's virtual-channel class is the only choice), V = 2 (class a = VC 0,
//! class b = VC 1), with the hop classes read from the statistics of the one measured message
//! and the timing from the delivery log; then statistics of a loaded hypercube.

use crate::common::{Topo, quiet_routing_engine, routing_scenario};
use flitsim::engine::{Delivery, Engine, run_point};
use flitsim::stats::{PointResult, StopReason};

fn timeout(tau: u64) -> String {
    format!("algorithm = \"duato-timeout\"\ntimeout = {tau}")
}

const DUATO: &str = "algorithm = \"duato\"";

/// Steps until the network is idle (bounded), checking the invariants every cycle.
fn finish(e: &mut Engine, cap: u64) {
    while !e.idle() {
        assert!(e.cycle < cap, "not idle by cycle {cap}");
        e.step();
        e.check_invariants().unwrap();
    }
}

/// The delivery of the one message `src -> dst`.
fn delivery(e: &Engine, src: u32, dst: u32) -> Delivery {
    let d: Vec<&Delivery> = e
        .deliveries
        .iter()
        .filter(|d| d.src == src && d.dst == dst)
        .collect();
    assert_eq!(d.len(), 1, "{src}->{dst} delivered {} times", d.len());
    *d[0]
}

/// One measured message's hop classes: (adaptive hops, time-outs).
fn classes(e: &Engine) -> (f64, f64) {
    let s = &e.stats;
    assert_eq!(s.count, 1, "exactly one measured message");
    let hops = s.hops_mean();
    (s.adaptive_hop_fraction() * hops, s.timeouts_per_message())
}

/// A 100-flit message A from node 0 to node 3 holds class a (VC 0) of the links 0→1, 1→2, 2→3
/// while its flits stream through; at cycle 10, a 1-flit message B from node 1 to node 2 needs
/// link 1→2, whose class-a virtual channel A holds and whose class-b one is free.
///
/// - τ = 0 and plain Duato: B leaves at once on class b, in the cycle after it entered (it wins
///   the link: A's flit had the last grant), network latency M + h = 2, one escape hop.
/// - 0 < τ ≤ A's remaining time: B waits exactly τ cycles for class a (routed at waited
///   0..τ−1 on class a only), then leaves on class b: latency 2 + τ, one time-out.
/// - τ beyond A's tail: B waits for class a and takes it when A's tail frees it: no time-out.
#[test]
fn blocked_header_waits_tau_cycles_then_escapes() {
    let line = Topo::mesh(&[4]);
    let run = |routing: &str| {
        let mut e = quiet_routing_engine(&line, 2, 4, routing);
        e.set_window(10, 11, 1); // measure B only
        e.send(0, 3, 100);
        for _ in 0..10 {
            e.step();
        }
        e.send(1, 2, 1);
        finish(&mut e, 1000);
        let a = delivery(&e, 0, 3);
        let b = delivery(&e, 1, 2);
        assert_eq!(b.created, 10);
        assert_eq!(b.inject, 10);
        (a, b, classes(&e))
    };
    for (routing, tau) in [(DUATO.to_string(), 0), (timeout(0), 0)] {
        let (_, b, (adaptive, timeouts)) = run(&routing);
        assert_eq!(b.eject - b.inject, 2, "{routing}: B did not leave at once");
        assert_eq!(adaptive, 0.0, "{routing}: B's hop must be escape");
        let want_timeouts = if routing == DUATO { 0.0 } else { 1.0 };
        assert_eq!(timeouts, want_timeouts, "{routing} τ = {tau}");
    }
    for tau in [1, 2, 5, 17, 60] {
        let (_, b, (adaptive, timeouts)) = run(&timeout(tau));
        assert_eq!(
            b.eject - b.inject,
            2 + tau,
            "τ = {tau}: B must wait exactly τ cycles"
        );
        assert_eq!((adaptive, timeouts), (0.0, 1.0), "τ = {tau}");
    }
    // With τ = 500 or 10^6, B never times out and takes class a when A's tail frees it: A's
    // tail crosses 1→2 in some cycle x, leaves node 2's buffer in x + 1 (crossing 2→3) and is
    // ejected in x + 2; B's header takes the freed buffer in x + 2, is ejected in x + 3.
    let (a, b, (adaptive, timeouts)) = run(&timeout(500));
    assert_eq!((adaptive, timeouts), (1.0, 0.0));
    assert_eq!(b.eject, a.eject + 1, "B right behind A's tail");
    assert!(b.eject > 100);
    let (a2, b2, c2) = run(&timeout(1_000_000));
    assert_eq!((a2, b2, c2), (a, b, (1.0, 0.0)));
}

/// Once blocked, τ = 0 never returns to class a: B finds both virtual channels of link 1→2
/// busy on arrival (class a held by A, whose tail is about to pass, class b by a long message
/// C), then class a frees long before class b. Plain Duato takes class a as soon as it frees;
/// duato-timeout with τ = 0 (and τ = 1) waits for class b until C's tail has passed.
///
/// A: 1 → 4, 30 flits, injected at cycle 0, takes class a of 1→2 in cycle 1.
/// C: 0 → 4, 300 flits, reaches node 1 in cycle 2: class a of 1→2 busy, takes class b.
/// B: 1 → 2, 1 flit, sent in cycle 1 behind A in node 1's queue: injected right after A's
///    tail, it finds A still holding class a and C holding class b.
#[test]
fn tau_zero_never_waits_for_class_a_once_blocked() {
    let line = Topo::mesh(&[5]);
    let run = |routing: &str| {
        let mut e = quiet_routing_engine(&line, 2, 2, routing);
        e.send(1, 4, 30);
        e.send(0, 4, 300);
        e.step();
        e.set_window(1, 2, 1); // measure B only
        e.send(1, 2, 1);
        finish(&mut e, 5000);
        (
            delivery(&e, 1, 4),
            delivery(&e, 0, 4),
            delivery(&e, 1, 2),
            classes(&e),
        )
    };
    let (a, c, b, cl) = run(DUATO);
    eprintln!("duato: A {a:?}\n C {c:?}\n B {b:?}\n classes {cl:?}");
    // Plain Duato: B waited (blocked on both classes), then took class a freed by A's tail,
    // and was delivered while C still had most of its 300 flits to go.
    assert!(b.eject - b.inject > 2, "B was not blocked on arrival");
    assert_eq!(cl, (1.0, 0.0), "plain duato: B's hop on class a");
    // A's tail crosses 1→2 in cycle x, frees the buffer at node 2 in x + 1 (crossing 2→3),
    // crosses 3→4 in x + 2, is ejected in x + 3; B crosses 1→2 in x + 2, is ejected in x + 3.
    assert_eq!(b.eject, a.eject, "B right behind A's tail");
    assert!(b.eject + 200 < c.eject);
    for tau in [0, 1] {
        let (a0, c0, b0, cl0) = run(&timeout(tau));
        eprintln!("τ = {tau}: A {a0:?}\n C {c0:?}\n B {b0:?}\n classes {cl0:?}");
        // τ = 0: the same as plain Duato until B's decision (τ = 1 delays C by a cycle: C
        // tries class a alone once before its class b).
        if tau == 0 {
            assert_eq!(a0, a, "τ = 0: A differs");
        }
        assert_eq!(
            cl0,
            (0.0, 1.0),
            "τ = {tau}: B's hop must be a time-out on class b"
        );
        // B waited for class b, i.e. for C's tail: C's tail crosses 1→2, leaves node 2's buffer
        // the next cycle (freeing class b), then crosses 3→4 and is ejected; B's header takes
        // the freed buffer the cycle after and is ejected one cycle later.
        assert_eq!(b0.eject, c0.eject, "τ = {tau}: B should follow C's tail");
        assert!(b0.eject > a0.eject + 200);
    }
}

/// Statistics on a loaded 6-cube (V = 3, M = 16, 0.4 flits/node/cycle, below saturation), the
/// same messages for every routing (same seed):
/// - the identity: for duato-timeout every escape hop is a time-out, so time-outs per message
///   = (1 − adaptive fraction) × mean hops; plain Duato counts none;
/// - τ = 0 has the most escape hops: far more than plain Duato (which, once blocked, still
///   takes class a when it frees first) and than τ = 4 and 16, which wait for class a longer;
///   τ = 1 equals τ = 0 within noise (it tries class a once, then only class b);
/// - τ = 10^6 never takes class b: no header can wait 10^6 cycles in a 26000-cycle run, so the
///   adaptive fraction is exactly 1 and there is no time-out.
#[test]
fn timeout_statistics_on_a_loaded_hypercube() {
    let t = Topo::hypercube(6);
    let m = 16;
    let flits = 0.4;
    let rate = flits / m as f64;
    let run = |routing: &str, seed: u64| -> PointResult {
        let s = routing_scenario(&t, 3, 4, m, rate, 3000, 20_000, seed, routing, "");
        let r = run_point(&s, rate, seed).unwrap();
        assert_eq!(r.stop, StopReason::Drained);
        assert!(!r.saturated(), "{routing}: saturated");
        r
    };
    let escape = |r: &PointResult| 1.0 - r.stats.adaptive_hop_fraction();
    for seed in [1, 2] {
        let duato = run(DUATO, seed);
        assert_eq!(duato.stats.timeouts_per_message(), 0.0);
        let taus = [0u64, 1, 4, 16, 1_000_000];
        let rs: Vec<PointResult> = taus.iter().map(|&tau| run(&timeout(tau), seed)).collect();
        for (tau, r) in taus.iter().zip(&rs) {
            let s = &r.stats;
            assert_eq!(s.count, duato.stats.count, "same messages");
            let ident = escape(r) * s.hops_mean();
            assert!(
                (s.timeouts_per_message() - ident).abs() < 1e-9,
                "τ = {tau}: time-outs {} vs escape hops per message {ident}",
                s.timeouts_per_message()
            );
            eprintln!(
                "seed {seed} τ = {tau}: escape fraction {:.5}, time-outs/message {:.4}, \
                 latency {:.2}, V̄ {:.4}",
                escape(r),
                s.timeouts_per_message(),
                s.mean(),
                r.vbar()
            );
        }
        eprintln!(
            "seed {seed} duato: escape fraction {:.5}, latency {:.2}, V̄ {:.4}",
            escape(&duato),
            duato.stats.mean(),
            duato.vbar()
        );
        let e: Vec<f64> = rs.iter().map(escape).collect();
        // About 1800 escape hops for τ = 0 at this load; seed-to-seed spread about 3 %.
        assert!(e[0] > 1.3 * escape(&duato), "τ = 0 vs duato: {e:?}");
        assert!((e[0] - e[1]).abs() < 0.1 * e[0], "τ = 0 vs τ = 1: {e:?}");
        assert!(e[2] < 0.75 * e[0], "τ = 4 vs τ = 0: {e:?}");
        assert!(e[3] < 0.6 * e[2], "τ = 16 vs τ = 4: {e:?}");
        assert!(e[3] > 0.0);
        let big = &rs[4].stats;
        assert_eq!(big.adaptive_hop_fraction(), 1.0);
        assert_eq!(big.timeouts_per_message(), 0.0);
        assert_eq!(rs[4].vc_occupancy[3], 0.0, "class b never busy");
    }
}

/// Very large τ at low load on the mesh, the hypercube and the bidirectional torus (and
/// moderate load on the hypercube): never class b, exactly.
#[test]
fn huge_tau_never_takes_class_b_at_low_load() {
    for (t, vcs, loads) in [
        (Topo::mesh(&[6, 6]), 2, &[0.05, 0.1][..]),
        (Topo::hypercube(5), 2, &[0.05, 0.1, 0.2][..]),
        (Topo::bi_torus(6, 2), 3, &[0.05, 0.1][..]),
    ] {
        for &flits in loads {
            let m = 16;
            let rate = flits / m as f64;
            let s = routing_scenario(
                &t,
                vcs,
                4,
                m,
                rate,
                2000,
                20_000,
                3,
                &timeout(1_000_000),
                "",
            );
            let r = run_point(&s, rate, 3).unwrap();
            assert_eq!(r.stop, StopReason::Drained, "{t:?} {flits}");
            assert!(r.stats.count > 1000);
            assert_eq!(r.stats.adaptive_hop_fraction(), 1.0, "{t:?} {flits}");
            assert_eq!(r.stats.timeouts_per_message(), 0.0, "{t:?} {flits}");
            assert_eq!(
                r.vc_occupancy[vcs as usize], 0.0,
                "all virtual channels busy"
            );
        }
    }
}

/// The limit of "very large τ": it is class a alone, fully adaptive minimal routing without an
/// escape, which is not deadlock-free. On a unidirectional 6-ary 2-cube with V = 3 (one class-a
/// virtual channel per link, so each ring is a cycle of class-a channels) it deadlocks already
/// at 0.05 flits/node/cycle: the network freezes until the blocked headers time out, i.e. for τ
/// cycles. Plain Duato never freezes on the same traffic (and delivers all but the last few
/// of 6699 messages in 60000 cycles); with τ = 10^6 the first freeze lasts to the end (566
/// delivered); with τ = 2000 freezes recur and end within τ + 2 cycles (only 767 delivered:
/// a time-out this long leaves the network frozen most of the time).
#[test]
fn huge_tau_on_a_unidirectional_torus_freezes_for_tau_cycles() {
    let t = Topo::uni_torus(6, 2);
    let m = 16;
    let rate = 0.05 / m as f64;
    let freeze = |routing: &str| {
        let s = routing_scenario(&t, 3, 4, m, rate, 1, 100, 3, routing, "");
        let mut e = flitsim::engine::build_engine(&s, rate, 3);
        let (mut still, mut longest) = (0u64, 0u64);
        for _ in 0..60_000 {
            e.step();
            still = if e.moved == 0 && e.flits_in_net > 0 {
                still + 1
            } else {
                0
            };
            longest = longest.max(still);
        }
        (longest, e.ejected_msgs, e.generated_msgs)
    };
    let (plain, ej, gen_) = freeze(DUATO);
    eprintln!("duato: longest freeze {plain}, {ej} of {gen_} delivered");
    assert_eq!(plain, 0);
    let (huge, ej_h, gen_h) = freeze(&timeout(1_000_000));
    eprintln!("τ = 10^6: longest freeze {huge}, {ej_h} of {gen_h} delivered");
    assert!(huge > 10_000, "no class-a deadlock: longest freeze {huge}");
    assert!((ej_h as f64) < 0.8 * gen_h as f64);
    let (mid, ej_m, gen_m) = freeze(&timeout(2000));
    eprintln!("τ = 2000: longest freeze {mid}, {ej_m} of {gen_m} delivered");
    assert!(mid <= 2002, "a freeze outlasted τ: {mid}");
    assert!(mid > 500, "class-a deadlocks form with τ = 2000 too");
}
