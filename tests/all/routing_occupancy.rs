//! Virtual-channel occupancy P_v (paper 000 eqs. 28-29: the fraction of time a network link has
//! v busy virtual channels, pooled over links) and the multiplexing degree
//! V̄ = Σ v² P_v / Σ v P_v (eq. 30).
//!
//! A virtual channel is busy while a message holds its buffer: from the cycle after the header
//! enters it to the cycle after the tail leaves it. By the documented timing (README, "Timing
//! and the router model"), a lone M-flit message with buffers of 2 flits or more streams one
//! flit per cycle, so its tail leaves each buffer M cycles after its header entered: each hop
//! holds a virtual channel for exactly M cycles. With 1-flit buffers a flit enters only a
//! buffer that had space at the start of the cycle, so the worm advances one flit every other
//! cycle, the tail leaves 2(M − 1) + 1 cycles after the header: 2M − 1 cycles per hop.
//!
//! Summed over time, Σ_v v·P_v × links × cycles is the total number of busy virtual-channel
//! cycles, i.e. the sum over all hops of all messages of their holding times (Little's law in
//! its exact, sample-path form), which the tests compute independently.

use crate::common::{Topo, quiet_routing_engine, routing_scenario};
use flitsim::engine::{Engine, run_point};
use flitsim::stats::{PointResult, StopReason};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// Busy virtual-channel cycles since the last `reset_occupancy`, from P_v.
fn busy_vc_cycles(e: &mut Engine, since: u64) -> f64 {
    let p = e.vc_occupancy();
    assert_eq!(p.len(), e.net.vcs as usize + 1);
    let total: f64 = p.iter().sum();
    assert!((total - 1.0).abs() < 1e-12, "Σ P_v = {total}");
    let mean_busy: f64 = p.iter().enumerate().map(|(v, &x)| v as f64 * x).sum();
    mean_busy * e.net.links as f64 * (e.cycle - since) as f64
}

fn step_until_idle(e: &mut Engine) {
    let cap = e.cycle + 100_000;
    while !e.idle() {
        assert!(e.cycle < cap);
        e.step();
    }
}

/// One message at a time in an empty network: each hop holds its virtual channel exactly M
/// cycles (2M − 1 with 1-flit buffers), so the busy virtual-channel cycles are exactly
/// (holding time) × (links crossed).
#[test]
fn a_lone_message_holds_each_virtual_channel_m_cycles() {
    for (t, vcs, routing) in [
        (Topo::mesh(&[4, 4]), 2, "algorithm = \"dor\""),
        (Topo::hypercube(4), 2, "algorithm = \"duato\""),
        (Topo::hypercube(4), 1, "algorithm = \"pcube\""),
        (Topo::bi_torus(5, 2), 3, "algorithm = \"duato\""),
        (Topo::uni_torus(4, 2), 2, "algorithm = \"dor\""),
    ] {
        for depth in [1u32, 2, 4, 64] {
            for m in [1u16, 2, 7, 20] {
                let mut e = quiet_routing_engine(&t, vcs, depth, routing);
                e.reset_occupancy();
                let start = e.cycle;
                let mut rng = Pcg64::seed_from_u64(m as u64 * 1000 + depth as u64);
                let mut hops = 0u64;
                for _ in 0..20 {
                    let src = rng.gen_range(0..t.nodes());
                    let dst = (src + rng.gen_range(1..t.nodes())) % t.nodes();
                    e.send(src, dst, m);
                    step_until_idle(&mut e);
                    hops += t.dist(src, dst) as u64;
                }
                let hold = if depth == 1 {
                    2 * m as u64 - 1
                } else {
                    m as u64
                };
                let busy = busy_vc_cycles(&mut e, start);
                assert!(
                    (busy - (hold * hops) as f64).abs() < 1e-6 * busy.max(1.0),
                    "{t:?} {routing} depth {depth} M {m}: {busy} busy VC-cycles, expected \
                     {hold} × {hops}"
                );
                // One message at a time: never two busy virtual channels on a link.
                let p = e.vc_occupancy();
                assert!(p[2..].iter().all(|&x| x == 0.0), "{p:?}");
            }
        }
    }
}

/// Many messages at once (contention): the busy virtual-channel cycles are at least M per hop
/// (a tail cannot leave a buffer sooner than M cycles after its header entered), and at low
/// load only slightly more.
#[test]
fn holding_time_is_at_least_m_and_close_to_m_at_low_load() {
    let t = Topo::hypercube(5);
    let m = 16u16;
    for (p, max_excess) in [(0.001, 0.03), (0.004, 0.10), (0.02, f64::INFINITY)] {
        let mut e = quiet_routing_engine(&t, 3, 4, "algorithm = \"duato\"");
        e.reset_occupancy();
        let mut rng = Pcg64::seed_from_u64(9);
        let mut hops = 0u64;
        for _ in 0..20_000 {
            for src in 0..t.nodes() {
                if rng.gen_bool(p) {
                    let dst = (src + rng.gen_range(1..t.nodes())) % t.nodes();
                    e.send(src, dst, m);
                    hops += t.dist(src, dst) as u64;
                }
            }
            e.step();
        }
        step_until_idle(&mut e);
        let busy = busy_vc_cycles(&mut e, 0);
        let floor = (m as u64 * hops) as f64;
        let excess = busy / floor - 1.0;
        eprintln!(
            "{} flits/node/cycle: busy VC-cycles / (M × hops) = 1 + {excess:.5}",
            p * m as f64
        );
        assert!(excess >= -1e-9, "a virtual channel held less than M cycles");
        assert!(excess < max_excess, "excess holding {excess} at p = {p}");
    }
}

fn point(t: &Topo, vcs: u32, routing: &str, flits: f64, seed: u64) -> PointResult {
    let m = 16;
    let rate = flits / m as f64;
    let s = routing_scenario(t, vcs, 4, m, rate, 3000, 20_000, seed, routing, "");
    let r = run_point(&s, rate, seed).unwrap();
    assert_eq!(r.stop, StopReason::Drained);
    r
}

/// Scenario runs: P_v is a distribution over v = 0..V, V̄ is eq. 30 of it, and by Little's law
/// the mean number of busy virtual channels per link equals the link message rate times the
/// mean holding time, ≈ M at low load (the window cuts a few holdings at its two ends).
#[test]
fn occupancy_distribution_vbar_and_littles_law() {
    let t = Topo::hypercube(6);
    for (vcs, routing) in [
        (2, "algorithm = \"dor\""),
        (3, "algorithm = \"duato\""),
        (1, "algorithm = \"pcube\""),
        (3, "algorithm = \"duato-timeout\"\ntimeout = 8"),
    ] {
        for flits in [0.02, 0.3] {
            let r = point(&t, vcs, routing, flits, 5);
            let p = &r.vc_occupancy;
            assert_eq!(p.len(), vcs as usize + 1);
            assert!(p.iter().all(|&x| (0.0..=1.0).contains(&x)));
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            let s1: f64 = p.iter().enumerate().map(|(v, &x)| v as f64 * x).sum();
            let s2: f64 = p.iter().enumerate().map(|(v, &x)| (v * v) as f64 * x).sum();
            assert!((r.vbar() - s2 / s1).abs() < 1e-12);
            assert!(r.vbar() >= 1.0 && r.vbar() <= vcs as f64);
            if vcs == 1 {
                assert_eq!(r.vbar(), 1.0);
            }
            let rate = r.link_msgs.iter().sum::<f64>() / r.link_msgs.len() as f64;
            let ratio = s1 / (16.0 * rate);
            eprintln!(
                "{routing:?} V={vcs} {flits}: P = {p:.4?}, V̄ = {:.4}, busy VCs per link \
                 {s1:.5} = {ratio:.4} × M × link rate; P_0 = {:.4} vs 1 − M·rate = {:.4}",
                r.vbar(),
                p[0],
                1.0 - 16.0 * rate
            );
            // P_0 = 1 − Σ_v v·P_v + Σ_v (v − 1)·P_v: 1 − (busy VCs per link), corrected by the
            // links with two or more busy, which are rare at low load.
            let multi: f64 = p
                .iter()
                .enumerate()
                .skip(2)
                .map(|(v, &x)| (v - 1) as f64 * x)
                .sum();
            assert!((p[0] - (1.0 - s1 + multi)).abs() < 1e-12);
            if flits == 0.02 {
                // Little's law: busy VCs per link = link rate × mean holding time, and at low
                // load the holding time is M plus a little contention (2-3 % here: worms
                // sharing a link, or an ejection channel, advance at half speed meanwhile).
                // Messages cut by the window's ends change the ratio by about 0.1 %.
                assert!(ratio > 0.995 && ratio < 1.05, "ratio {ratio}");
                assert!(multi < 0.05 * s1, "{p:?}");
            } else {
                // Contention makes headers and worms wait: longer holdings.
                assert!(ratio > 1.0, "ratio {ratio}");
            }
        }
    }
}

/// The purpose of the time-out (paper 001): less virtual-channel multiplexing. On a 6-cube with
/// V = 3, M = 16, at 0.4 flits/node/cycle, with the same messages (same seed), V̄ falls as τ
/// grows: plain Duato and τ = 0 about 1.29, τ = 4 about 1.278, τ = 16 about 1.26, τ = 10^6
/// (class b never used, so never 3 busy) about 1.25. Across seeds V̄ varies by about 0.004; the
/// differences asserted are 3 times that or more.
#[test]
fn timeout_reduces_multiplexing() {
    let t = Topo::hypercube(6);
    for seed in [1, 2] {
        let vbar = |routing: &str| point(&t, 3, routing, 0.4, seed).vbar();
        let duato = vbar("algorithm = \"duato\"");
        let t4 = vbar("algorithm = \"duato-timeout\"\ntimeout = 4");
        let t16 = vbar("algorithm = \"duato-timeout\"\ntimeout = 16");
        let big = point(
            &t,
            3,
            "algorithm = \"duato-timeout\"\ntimeout = 1000000",
            0.4,
            seed,
        );
        eprintln!(
            "seed {seed}: V̄ duato {duato:.4}, τ=4 {t4:.4}, τ=16 {t16:.4}, τ=10^6 {:.4}",
            big.vbar()
        );
        assert!(t4 < duato - 0.004, "τ = 4: {t4} vs duato {duato}");
        assert!(t16 < t4 - 0.008, "τ = 16: {t16} vs τ = 4 {t4}");
        assert!(big.vbar() < t16);
        assert_eq!(big.vc_occupancy[3], 0.0);
    }
}
