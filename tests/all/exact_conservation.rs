//! Conservation: every message is delivered exactly once, whole, by a minimal path; flits are
//! neither lost nor created; buffers never overflow (credits consistent, checked by
//! `Engine::check_invariants` every cycle); nothing is left in the network after drain. Loads
//! from moderate to well past saturation, with small buffers and long messages.

use crate::common::{Sent, Shape, Topo, offer_bernoulli, quiet_engine, scenario};
use flitsim::engine::{Engine, run_point};
use flitsim::stats::StopReason;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Offers Bernoulli traffic (each node, each cycle, a message with probability `p`, uniform
/// destination other than itself, length uniform in `lens`) for `cycles` cycles through
/// `Engine::send`, then stops offering and drains until the engine is idle. Checks the
/// invariants every cycle and returns the messages sent; `backlog_at_stop` gets the number of
/// messages still waiting at sources when the offer stopped.
fn offer_and_drain(
    e: &mut Engine,
    t: &Topo,
    p: f64,
    lens: (u16, u16),
    cycles: u64,
    seed: u64,
    backlog_at_stop: &mut u64,
) -> Vec<Sent> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let n = t.nodes();
    let mut sent = Vec::new();
    let drain_cap = cycles + 2_000_000;
    let start = e.cycle;
    let mut stalled = 0;
    loop {
        let c = e.cycle - start;
        if c < cycles {
            offer_bernoulli(e, &mut rng, n, p, lens, &mut sent);
        } else if e.idle() {
            break;
        }
        if c == cycles {
            *backlog_at_stop = e.backlog;
        }
        assert!(
            c < drain_cap,
            "not drained after {c} cycles: deadlock or livelock?"
        );
        e.step();
        stalled = if e.moved == 0 && e.flits_in_net > 0 {
            stalled + 1
        } else {
            0
        };
        assert!(
            stalled < 10_000,
            "{:?} {:?}: no flit moved for 10000 cycles (deadlock) at cycle {}",
            t.shape,
            t.radix,
            e.cycle
        );
        if let Err(msg) = e.check_invariants() {
            panic!(
                "{:?} {:?}: invariant broken in cycle {}: {msg}",
                t.shape, t.radix, e.cycle
            );
        }
        // Every message is either live (queued at its source or in the network) or delivered.
        assert_eq!(
            e.generated_msgs,
            e.ejected_msgs + e.live_messages() as u64,
            "message bookkeeping in cycle {}",
            e.cycle
        );
    }
    sent
}

/// After drain: the multiset of delivered messages equals the multiset sent, each delivered
/// message made exactly its minimal hop count, and its timing is causal and no faster than
/// zero load (network latency >= M + h); flit and message counters balance; nothing is left.
fn check_drained(e: &Engine, t: &Topo, sent: &[Sent], ctx: &str) {
    assert!(e.idle(), "{ctx}: not idle");
    assert_eq!(e.flits_in_net, 0, "{ctx}: flits left in buffers");
    assert_eq!(e.backlog, 0, "{ctx}: messages left at sources");
    assert_eq!(e.live_messages(), 0, "{ctx}: messages still allocated");
    e.check_invariants().unwrap();
    assert_eq!(e.generated_msgs, sent.len() as u64, "{ctx}");
    assert_eq!(e.ejected_msgs, sent.len() as u64, "{ctx}");
    let flits: u64 = sent.iter().map(|s| s.3 as u64).sum();
    assert_eq!(e.ejected_flits, flits, "{ctx}: ejected flits != flits sent");
    // Every flit crossed one injection channel and one ejection channel; every header crossed
    // exactly h links; every flit crossed exactly h links.
    let links = e.net.links as usize;
    let nodes = e.net.nodes as usize;
    let inj: u64 = e.c_flits()[links..links + nodes].iter().sum();
    let ej: u64 = e.c_flits()[links + nodes..links + 2 * nodes].iter().sum();
    assert_eq!(inj, flits, "{ctx}: flits through injection channels");
    assert_eq!(ej, flits, "{ctx}: flits through ejection channels");
    let hops: u64 = sent.iter().map(|s| t.dist(s.0, s.1) as u64).sum();
    let flit_hops: u64 = sent
        .iter()
        .map(|s| t.dist(s.0, s.1) as u64 * s.3 as u64)
        .sum();
    assert_eq!(
        e.c_msgs()[..links].iter().sum::<u64>(),
        hops,
        "{ctx}: headers over links"
    );
    assert_eq!(
        e.c_flits()[..links].iter().sum::<u64>(),
        flit_hops,
        "{ctx}: flits over links"
    );

    let mut want: Vec<Sent> = sent.to_vec();
    let mut got: Vec<Sent> = e
        .deliveries
        .iter()
        .map(|d| (d.src, d.dst, d.created, d.len))
        .collect();
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got.len(), want.len(), "{ctx}: deliveries");
    assert!(
        got == want,
        "{ctx}: delivered multiset differs from sent multiset"
    );
    for d in &e.deliveries {
        let h = t.dist(d.src, d.dst) as u64;
        assert_eq!(d.hops as u64, h, "{ctx}: {d:?} not minimal");
        assert!(d.inject >= d.created, "{ctx}: {d:?}");
        assert!(
            d.eject >= d.inject + d.len as u64 + h,
            "{ctx}: {d:?} faster than M + h"
        );
    }
    // Per source the queue is FIFO: messages leave in the order they were generated.
    let mut by_src: Vec<Vec<(u64, u64)>> = vec![Vec::new(); t.nodes() as usize];
    for d in &e.deliveries {
        by_src[d.src as usize].push((d.created, d.inject));
    }
    for v in &mut by_src {
        v.sort_unstable();
        assert!(
            v.windows(2).all(|w| w[0].1 < w[1].1),
            "{ctx}: a source injected its messages out of order"
        );
    }
}

fn torus_vcs(t: &Topo) -> u32 {
    if matches!(t.shape, Shape::UniTorus | Shape::BiTorus) {
        2
    } else {
        1
    }
}

/// (probability of a new message per node per cycle, message lengths, cycles offered).
/// Loads as flits/node/cycle: about 0.05 (moderate), 0.3 and 0.6 (past saturation for these
/// networks under DOR), and 1.0 (every source's injection channel saturated).
const LOADS: [(f64, (u16, u16), u64); 4] = [
    (0.01, (4, 6), 5000),
    (0.02, (12, 20), 2000),
    (0.04, (10, 20), 1500),
    (0.0625, (16, 16), 1000),
];

fn conservation(t: Topo, vcs: u32, depth: u32) {
    for (i, &(p, lens, cycles)) in LOADS.iter().enumerate() {
        let mut e = quiet_engine(&t, vcs, depth);
        let mut backlog = 0;
        let sent = offer_and_drain(&mut e, &t, p, lens, cycles, 100 + i as u64, &mut backlog);
        let ctx = format!(
            "{:?} {:?} V={vcs} depth={depth} p={p} lens={lens:?}",
            t.shape, t.radix
        );
        assert!(sent.len() > 100, "{ctx}: too few messages to be a test");
        if i >= 2 {
            // Past saturation: a large share of the messages still waited at their sources
            // when the offer stopped.
            assert!(
                backlog * 8 > sent.len() as u64,
                "{ctx}: load not past saturation (backlog {backlog} of {})",
                sent.len()
            );
        }
        check_drained(&e, &t, &sent, &ctx);
    }
}

#[test]
fn conservation_mesh() {
    conservation(Topo::mesh(&[4, 4]), 1, 2);
    conservation(Topo::mesh(&[3, 5]), 2, 2);
    conservation(Topo::mesh(&[6, 6]), 2, 4);
}

#[test]
fn conservation_uni_torus() {
    conservation(Topo::uni_torus(4, 2), 2, 2);
    conservation(Topo::uni_torus(5, 2), 4, 2);
    conservation(Topo::uni_torus(3, 3), 3, 1);
}

#[test]
fn conservation_bi_torus() {
    conservation(Topo::bi_torus(4, 2), 2, 2);
    conservation(Topo::bi_torus(5, 2), 2, 3);
    conservation(Topo::bi_torus(4, 3), 2, 2);
}

#[test]
fn conservation_hypercube() {
    conservation(Topo::hypercube(4), 1, 2);
    conservation(Topo::hypercube(5), 2, 1);
}

/// Sends everything at once: every node sends many long messages in cycle 0 (a burst far past
/// saturation), then the network drains with 2-flit buffers.
#[test]
fn conservation_burst_all_at_once() {
    for t in [
        Topo::mesh(&[4, 4]),
        Topo::uni_torus(4, 2),
        Topo::bi_torus(4, 3),
        Topo::hypercube(4),
    ] {
        let vcs = torus_vcs(&t);
        let mut e = quiet_engine(&t, vcs, 2);
        let mut rng = Pcg64::seed_from_u64(7);
        let n = t.nodes();
        let mut sent = Vec::new();
        for _ in 0..20 {
            for src in 0..n {
                let mut dst = rng.gen_range(0..n - 1);
                if dst >= src {
                    dst += 1;
                }
                let len = rng.gen_range(1..=24);
                e.send(src, dst, len);
                sent.push((src, dst, 0, len));
            }
        }
        let mut guard = 0;
        while !e.idle() {
            e.step();
            e.check_invariants().unwrap();
            guard += 1;
            assert!(guard < 1_000_000, "{:?}: burst not drained", t.shape);
        }
        check_drained(&e, &t, &sent, &format!("{:?} burst", t.shape));
    }
}

/// The run control: at a moderate load every message generated in the window is measured and
/// delivered (drained, none undelivered); the histograms account for every one of them.
#[test]
fn run_control_measures_every_window_message() {
    for (t, vcs) in [
        (Topo::mesh(&[8, 8]), 1),
        (Topo::uni_torus(8, 2), 2),
        (Topo::bi_torus(4, 3), 2),
        (Topo::hypercube(6), 1),
    ] {
        let s = scenario(&t, vcs, 2, 16, 0.005, 2000, 6000, 3);
        let r = run_point(&s, 0.005, 3).unwrap();
        let ctx = format!("{:?}", t.shape);
        assert_eq!(r.stop, StopReason::Drained, "{ctx}");
        assert_eq!(r.undelivered, 0, "{ctx}");
        assert!(!r.saturated(), "{ctx}");
        assert_eq!(r.window_cycles, 6000, "{ctx}");
        assert!(r.window_generated > 500, "{ctx}");
        assert_eq!(
            r.stats.count, r.window_generated,
            "{ctx}: measured != generated"
        );
        assert_eq!(r.stats.hop_hist.iter().sum::<u64>(), r.stats.count, "{ctx}");
        assert_eq!(
            r.stats.latency_hist.iter().sum::<u64>(),
            r.stats.count,
            "{ctx}"
        );
        // Nothing is faster than zero load: latency >= M + 1.
        assert!(r.stats.min().unwrap() >= 17, "{ctx}");
    }
}

/// Past saturation the run control stops the point early instead of running for ever.
#[test]
fn run_control_stops_saturated_point() {
    let t = Topo::mesh(&[8, 8]);
    // 1 flit/node/cycle on an 8x8 mesh: the middle x channels would need 63/(4·4·8) ≈ 2 flits
    // per cycle (paper 003 eq. 9), far past what they carry.
    let s = scenario(&t, 1, 2, 32, 1.0 / 32.0, 500, 200_000, 5);
    let r = run_point(&s, 1.0 / 32.0, 5).unwrap();
    assert!(r.saturated());
    assert_eq!(r.stop, StopReason::Backlog);
    assert!(
        r.cycles < 200_000,
        "saturated point ran {} cycles",
        r.cycles
    );
}

/// A measurement window's channel counts are exactly the flits and headers that crossed each
/// channel inside it: counted from zero when it opens, unchanged while the point drains after it
/// closes (a copy of the engine that never opened one tells what crossed when), and the same
/// whether read from the engine or from what is left of it once it is done.
#[test]
fn window_counts_are_the_window_s_traffic() {
    let t = Topo::bi_torus(4, 2);
    let s = scenario(&t, 2, 2, 8, 0.02, 0, 100, 7);
    let (w0, w1, drain) = (300, 700, 300);
    let mut e = flitsim::engine::build_engine(&s, 0.02, 7);
    let mut whole = e.clone();
    let steps = |e: &mut Engine, whole: &mut Engine, n: u64| {
        for _ in 0..n {
            e.step();
            whole.step();
        }
    };
    steps(&mut e, &mut whole, w0);
    let (flits0, msgs0) = (whole.c_flits(), whole.c_msgs());
    let (gen0, ej0) = (whole.generated_msgs, whole.ejected_flits);
    let mut span = flitsim::engine::Span {
        start: Some(e.open_window()),
        end: None,
    };
    steps(&mut e, &mut whole, w1 - w0);
    span.end = Some(e.close_window());
    let (flits1, msgs1) = (whole.c_flits(), whole.c_msgs());
    let (gen1, ej1) = (whole.generated_msgs, whole.ejected_flits);
    steps(&mut e, &mut whole, drain);
    assert_ne!(
        whole.c_flits(),
        flits1,
        "nothing moved while draining: not a test"
    );
    let diff = |a: &[u64], b: &[u64]| a.iter().zip(b).map(|(x, y)| x - y).collect::<Vec<_>>();
    let w = e.window_counts(span);
    assert_eq!(w.flits, diff(&flits1, &flits0));
    assert_eq!(w.msgs, diff(&msgs1, &msgs0));
    assert_eq!(e.c_flits(), w.flits);
    assert_eq!((w.generated, w.ejected_flits), (gen1 - gen0, ej1 - ej0));
    assert!(
        w.flits.iter().sum::<u64>() > 1000,
        "too little traffic to be a test"
    );
    let (_, done) = e.into_window_counts(span);
    assert_eq!((done.flits, done.msgs), (w.flits, w.msgs));
}
