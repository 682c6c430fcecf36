//! Request and reply (`[traffic] reply_length`, `max_outstanding`): the round trip's exact
//! zero-load latency, one reply per request from its destination, requests and replies in
//! their own virtual-channel classes, the closed loop's bound on open requests and its
//! throughput plateau with bounded queues, Little's law at one open request, the refusals,
//! determinism across threads, and deadlock freedom with 1-flit buffers past saturation.

use crate::common::{Topo, flitsim_check};
use flitsim::Scenario;
use flitsim::engine::DeadlockCause;
use flitsim::engine::{Delivery, Engine, build_engine, build_engine_with, run_point, run_point_on};
use flitsim::stats::PointResult;
use rand::{Rng, SeedableRng};

/// A scenario on `topo` with `routing` (its `[routing]` keys), V = `vcs` of `depth` flits,
/// M-flit requests answered by R-flit replies, the `[traffic]` lines `more` and `[run]` lines
/// `run`.
#[allow(clippy::too_many_arguments)]
fn text(
    topo: &Topo,
    routing: &str,
    vcs: u32,
    depth: u32,
    (m, r): (u16, u16),
    more: &str,
    run: &str,
) -> String {
    format!(
        "name = \"reqrep\"\nseed = 3\n{}\n[router]\nvcs = {vcs}\nbuffer_depth = {depth}\n\
         [routing]\n{routing}\n[traffic]\npattern = \"uniform\"\nmessage_length = {m}\n\
         reply_length = {r}\n{more}\n[run]\n{run}\n",
        topo.toml()
    )
}

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml(text, "reqrep.toml").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// An engine of `text` without sources (messages only through `send`), logging deliveries.
fn quiet(text: &str) -> Engine {
    quiet_with(text, false)
}

/// [`quiet`], with the one-pass cycle (headers routed ahead, worms flowing) if `one_pass`.
fn quiet_with(text: &str, one_pass: bool) -> Engine {
    let mut e = build_engine_with(&scenario(text), 0.0, 1, |c| {
        c.prefetch = Some(one_pass);
    });
    e.log_deliveries = true;
    e
}

const DOR: &str = "algorithm = \"dor\"";
const DUATO: &str = "algorithm = \"duato\"";

#[test]
fn a_round_trip_at_zero_load_takes_m_plus_h_then_one_cycle_then_r_plus_h_back() {
    // Paper 000 eq. 8: a message crossing h links has network latency M + h exactly. The
    // reply is generated in the cycle after its request's tail is ejected and injected in
    // that cycle, so the round trip is (M + h) + 1 + (R + h') cycles, h' the links back
    // (h' ≠ h on a unidirectional torus).
    let cases = [
        (Topo::mesh(&[4, 4]), 2, (1u16, 1u16)),
        (Topo::mesh(&[4, 4]), 2, (4, 9)),
        (Topo::bi_torus(5, 2), 4, (6, 2)),
        (Topo::uni_torus(4, 2), 4, (3, 5)),
    ];
    for (topo, vcs, (m, r)) in cases {
        let mut e = quiet(&text(
            &topo,
            DOR,
            vcs,
            2,
            (m, r),
            "rates = [0.001]",
            "measure_cycles = 100",
        ));
        for src in 0..topo.nodes() {
            for dst in (0..topo.nodes()).filter(|&d| d != src) {
                let (h, back) = (topo.dist(src, dst) as u64, topo.dist(dst, src) as u64);
                e.deliveries.clear();
                let t0 = e.cycle;
                e.send(src, dst, m);
                while e.deliveries.len() < 2 {
                    assert!(e.cycle < t0 + 500, "{src}->{dst} not answered");
                    e.step();
                }
                assert!(e.idle(), "{src}->{dst}: network not empty");
                let [req, rep] = [e.deliveries[0], e.deliveries[1]];
                let ctx = format!("{topo:?} {src}->{dst} M={m} R={r}");
                assert_eq!((req.src, req.dst, req.len), (src, dst, m), "{ctx}");
                assert_eq!(req.eject - req.created, m as u64 + h, "{ctx}: request");
                assert_eq!((rep.src, rep.dst, rep.len), (dst, src, r), "{ctx}");
                assert_eq!(
                    rep.created, t0,
                    "{ctx}: a reply carries its request's cycle"
                );
                assert_eq!(rep.hops as u64, back, "{ctx}");
                assert_eq!(
                    rep.eject - t0,
                    (m as u64 + h) + 1 + (r as u64 + back),
                    "{ctx}: round trip"
                );
                assert_eq!(e.open_requests(src), 0, "{ctx}: closed");
            }
        }
    }
}

/// Sends Bernoulli requests (probability `p` per processor and cycle, uniform destinations,
/// `m` flits) for `cycles` cycles and steps until idle; every cycle, every network buffer
/// holding flits holds a request on a virtual channel below V/2 or a reply at or above it.
/// Returns the requests sent, (source, destination, cycle).
fn offer_and_watch(e: &mut Engine, p: f64, m: u16, cycles: u64) -> Vec<(u32, u32, u64)> {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
    let n = e.net.nodes;
    let (vcs, links) = (e.net.vcs, e.net.links);
    let mut sent = Vec::new();
    let (mut requests_seen, mut replies_seen) = (0u64, 0u64);
    while e.cycle < cycles || !e.idle() {
        assert!(e.cycle < cycles + 100_000, "not drained");
        if e.cycle < cycles {
            for src in 0..n {
                if rng.gen_bool(p) {
                    let mut dst = rng.gen_range(0..n - 1);
                    dst += (dst >= src) as u32;
                    e.send(src, dst, m);
                    sent.push((src, dst, e.cycle));
                }
            }
        }
        e.step();
        for b in 0..links * vcs {
            if e.buffer_flits(b) > 0 {
                let reply = e.buffer_holds_reply(b);
                assert_eq!(
                    reply,
                    b % vcs >= vcs / 2,
                    "cycle {}: buffer {b} (vc {}) holds a {}",
                    e.cycle,
                    b % vcs,
                    if reply { "reply" } else { "request" }
                );
                requests_seen += !reply as u64;
                replies_seen += reply as u64;
            }
        }
    }
    assert!(requests_seen > 0 && replies_seen > 0, "both classes used");
    sent
}

#[test]
fn every_request_gets_one_reply_from_its_destination_in_the_reply_class() {
    let (m, r) = (3u16, 5u16);
    let cases = [
        (Topo::mesh(&[4, 4]), DOR, 2),
        (Topo::mesh(&[4, 4]), DUATO, 4),
        (Topo::bi_torus(4, 2), DOR, 4),
        (Topo::bi_torus(4, 2), DUATO, 6),
    ];
    for ((topo, routing, vcs), one_pass) in cases.into_iter().zip([false, true, false, true]) {
        let ctx = format!("{topo:?} {routing} V={vcs} one-pass {one_pass}");
        let mut e = quiet_with(
            &text(
                &topo,
                routing,
                vcs,
                4,
                (m, r),
                "rates = [0.001]",
                "measure_cycles = 100",
            ),
            one_pass,
        );
        let mut sent = offer_and_watch(&mut e, 0.05, m, 3000);
        let (requests, replies): (Vec<Delivery>, Vec<Delivery>) =
            e.deliveries.iter().partition(|d| d.len == m);
        assert!(replies.iter().all(|d| d.len == r), "{ctx}: reply lengths");
        let mut asked: Vec<_> = requests.iter().map(|d| (d.src, d.dst, d.created)).collect();
        let mut answered: Vec<_> = replies.iter().map(|d| (d.dst, d.src, d.created)).collect();
        sent.sort_unstable();
        asked.sort_unstable();
        answered.sort_unstable();
        assert_eq!(asked, sent, "{ctx}: every request delivered once");
        assert_eq!(
            answered, sent,
            "{ctx}: one reply each, from its destination"
        );
        // A reply leaves after its request's tail arrived.
        for rep in &replies {
            let req = requests
                .iter()
                .find(|q| (q.src, q.dst, q.created) == (rep.dst, rep.src, rep.created))
                .unwrap();
            assert!(rep.inject > req.eject, "{ctx}: reply before its request");
        }
        assert_eq!(e.live_messages(), 0, "{ctx}");
        assert!((0..topo.nodes()).all(|s| e.open_requests(s) == 0), "{ctx}");
    }
}

/// A closed-loop scenario on the 4x4 mesh: 4-flit requests, 12-flit replies, sources of
/// `process` at `flits` request flits/node/cycle (4·flits network flits with the replies; the
/// mesh saturates near 1), `most` open requests at most (None: unbounded).
fn closed_loop(flits: f64, most: Option<u32>, process: &str) -> String {
    let bound = most.map_or(String::new(), |n| format!("max_outstanding = {n}\n"));
    text(
        &Topo::mesh(&[4, 4]),
        DOR,
        2,
        4,
        (4, 12),
        &format!("flit_rates = [{flits:?}]\nprocess = \"{process}\"\n{bound}"),
        "warmup_cycles = 2000\nmeasure_cycles = 20000\nbatches = 10",
    )
}

#[test]
fn a_closed_loop_never_exceeds_n_open_requests_and_its_queues_stay_bounded() {
    let n = 3;
    let s = scenario(&closed_loop(1.0, Some(n), "poisson"));
    let mut e = build_engine(&s, s.traffic.rates[0], 1);
    let nodes = e.net.nodes;
    let mut most = 0;
    for _ in 0..4000 {
        e.step();
        for p in 0..nodes {
            let open = e.open_requests(p);
            assert!(
                open <= n,
                "cycle {}: processor {p} has {open} open",
                e.cycle
            );
            most = most.max(open);
        }
        // Queued: each processor's own open requests, and replies to open requests.
        assert!(e.backlog <= 2 * (nodes * n) as u64, "cycle {}", e.cycle);
    }
    assert_eq!(most, n, "the bound is reached");
    // The same load without the bound: the queues grow past it.
    let s = scenario(&closed_loop(1.0, None, "poisson"));
    let mut e = build_engine(&s, s.traffic.rates[0], 1);
    for _ in 0..4000 {
        e.step();
    }
    assert!(
        e.backlog > 10 * (nodes * n) as u64,
        "open loop backlog {}",
        e.backlog
    );
}

#[test]
fn past_saturation_a_closed_loop_plateaus_without_its_queues_growing() {
    let point = |flits: f64| {
        let s = scenario(&closed_loop(flits, Some(4), "poisson"));
        run_point(&s, s.traffic.rates[0], 1).unwrap()
    };
    let (a, b) = (point(0.5), point(1.0));
    for r in [&a, &b] {
        // The queues never reached the backlog cap: the window ran to its end and drained,
        // and the point is saturated since it carried less than it was offered.
        assert_eq!(r.stop, flitsim::stats::StopReason::Drained);
        assert_eq!(r.window_cycles, 20000);
        assert!(
            r.saturated(),
            "offered {} accepted {}",
            r.offered_flits(),
            r.accepted_flits
        );
    }
    let gap = (a.accepted_flits - b.accepted_flits).abs() / a.accepted_flits;
    assert!(
        gap < 0.02,
        "plateau: {} and {} flits/node/cycle",
        a.accepted_flits,
        b.accepted_flits
    );
}

#[test]
fn below_saturation_the_network_carries_the_requests_and_their_replies() {
    // 0.05 request flits/node/cycle of 4-flit requests: λ = 0.0125, and with 12-flit replies
    // λ·(M + R) = 0.2 flits/node/cycle offered, which a stable point accepts.
    let s = scenario(&closed_loop(0.05, None, "poisson"));
    let r = run_point(&s, s.traffic.rates[0], 1).unwrap();
    assert!(
        (r.offered_flits() - 0.2).abs() < 1e-12,
        "{}",
        r.offered_flits()
    );
    assert!(!r.saturated(), "accepted {}", r.accepted_flits);
    assert!(
        (r.accepted_flits - 0.2).abs() < 0.01,
        "accepted {}",
        r.accepted_flits
    );
    assert!(
        (r.accepted_rate - 2.0 * 0.0125).abs() < 0.001,
        "{}",
        r.accepted_rate
    );
}

#[test]
fn with_one_open_request_throughput_is_one_per_round_trip() {
    // Little's law, L = λ·W: one request is always open (the source, suspended while it is,
    // generates the next in the cycle after its reply's tail is ejected), each for its round
    // trip T plus that cycle, so each processor completes 1 / (T̄ + 1) requests per cycle.
    // accepted_rate counts requests and replies.
    for process in ["poisson", "bernoulli"] {
        let s = scenario(&closed_loop(1.0, Some(1), process));
        let r = run_point(&s, s.traffic.rates[0], 1).unwrap();
        let requests = r.accepted_rate / 2.0;
        let little = 1.0 / (r.stats.mean() + 1.0);
        assert!(
            (requests - little).abs() / little < 0.01,
            "{process}: {requests} requests/node/cycle, 1/(T+1) = {little}"
        );
    }
}

#[test]
fn refusals_name_the_key_and_the_fix() {
    let mesh = Topo::mesh(&[4, 4]);
    let torus = Topo::bi_torus(4, 2);
    let loads = "rates = [0.01]";
    let run = "measure_cycles = 100";
    let refused = |text: &str, key: &str, words: &[&str]| {
        let e = Scenario::from_toml(text, "r.toml")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains(key), "{e}");
        for w in words {
            assert!(e.contains(w), "{w}: {e}");
        }
    };
    // Dimension order on a torus needs 2 per class: 4 in all.
    let t = text(&torus, DOR, 2, 4, (4, 4), loads, run);
    refused(&t, "[router] vcs", &["needs 2 per class", "set vcs = 4"]);
    // Duato on a torus needs 3 per class.
    let t = text(&torus, DUATO, 4, 4, (4, 4), loads, run);
    refused(&t, "[router] vcs", &["needs 3 per class", "set vcs = 6"]);
    // An odd V does not split in two.
    let t = text(&mesh, DOR, 3, 4, (4, 4), loads, run);
    refused(&t, "[router] vcs", &["even", "set vcs = 2"]);
    // A closed loop needs replies.
    let t = text(
        &mesh,
        DOR,
        2,
        4,
        (4, 0),
        "rates = [0.01]\nmax_outstanding = 2",
        run,
    );
    refused(&t, "[traffic] max_outstanding", &["add reply_length"]);
    // Bad values.
    let t = text(
        &mesh,
        DOR,
        2,
        4,
        (4, 4),
        "rates = [0.01]\nmax_outstanding = -1",
        run,
    );
    refused(&t, "[traffic] max_outstanding", &["out of range"]);
    let t = text(&mesh, DOR, 2, 4, (4, 4), loads, run)
        .replace("reply_length = 4", "reply_length = 70000");
    refused(
        &t,
        "[traffic] reply_length",
        &["out of range", "0 to 65535"],
    );
    // An m-way network's channels are shared.
    let t = "name = \"m\"\n[topology]\nkind = \"mway\"\nk = 4\nn = 2\nwrap = \"mesh\"\n\
             processors = \"routers\"\n[router]\nvcs = 4\n\
             [traffic]\nmessage_length = 4\nreply_length = 4\nrates = [0.01]\n";
    refused(
        t,
        "[traffic] reply_length",
        &["m-way", "remove reply_length"],
    );
    // The command line: exit code 2, the file named.
    let t = text(&torus, DOR, 2, 4, (4, 4), loads, run);
    let (code, err) = flitsim_check(&t, "reqrep");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("s.toml") && err.contains("[router] vcs"),
        "{err}"
    );
}

#[test]
fn a_closed_loop_is_the_same_on_one_two_and_three_threads() {
    let base = text(
        &Topo::mesh(&[6, 6]),
        DUATO,
        4,
        4,
        (4, 6),
        "flit_rates = [0.1, 0.8]\nmax_outstanding = 3",
        "warmup_cycles = 500\nmeasure_cycles = 3000\nbatches = 10",
    );
    let results = |threads: u32| -> Vec<String> {
        let s = scenario(&format!("{base}threads_per_point = {threads}\n"));
        s.traffic
            .rates
            .iter()
            .map(|&rate| {
                let r: PointResult = run_point_on(&s, rate, 1, 3).unwrap();
                serde_json::to_string(&r).unwrap()
            })
            .collect()
    };
    let one = results(1);
    assert_eq!(results(2), one, "2 threads");
    assert_eq!(results(3), one, "3 threads");
}

#[test]
fn closed_loops_past_saturation_with_1_flit_buffers_do_not_deadlock() {
    let cases = [
        (Topo::bi_torus(4, 2), DOR, 4),
        (Topo::uni_torus(4, 2), DOR, 4),
        (Topo::mesh(&[4, 4]), DUATO, 4),
        (Topo::bi_torus(4, 2), DUATO, 6),
    ];
    for (topo, routing, vcs) in cases {
        for most in ["max_outstanding = 8", ""] {
            let t = text(
                &topo,
                routing,
                vcs,
                1,
                (6, 6),
                &format!("flit_rates = [1.0]\n{most}"),
                "warmup_cycles = 1000\nmeasure_cycles = 10000\nwatchdog_cycles = 200\nmax_backlog = 1000",
            );
            let s = scenario(&t);
            let r = run_point(&s, s.traffic.rates[0], 1)
                .unwrap_or_else(|e| panic!("{topo:?} {routing} {most}: {e}"));
            assert!(
                r.accepted_flits > 0.05,
                "{topo:?} {routing}: {}",
                r.accepted_flits
            );
        }
    }
}

#[test]
fn a_stuck_closed_loop_is_reported_as_a_deadlock_not_as_drained() {
    // Dimension order on a unidirectional torus without its dateline classes (deadlock_check
    // off, one virtual channel per class) deadlocks within a few hundred cycles. Every source
    // then waits on a stuck reply and generates nothing: the window measures no message and
    // would drain at once; the point ends with its network frozen, which a drained copy
    // confirms, before the watchdog's 10,000 cycles have passed.
    let t = text(
        &Topo::uni_torus(4, 2),
        "algorithm = \"dor\"\ndeadlock_check = false",
        2,
        2,
        (8, 8),
        "flit_rates = [1.0]\nmax_outstanding = 4",
        "warmup_cycles = 1000\nmeasure_cycles = 2000",
    );
    let s = scenario(&t);
    match run_point(&s, s.traffic.rates[0], 1) {
        Err(flitsim::error::Error::Deadlock(r)) => {
            assert!(
                matches!(r.cause, DeadlockCause::Ending { cycles } if cycles > 1000),
                "{:?}",
                r.cause
            );
            assert!(!r.stuck.is_empty());
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
}
