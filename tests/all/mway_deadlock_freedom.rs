//! Deadlock freedom of paper 004's routings on the k-ary m-way networks they fit, under stress:
//! DOR on the mesh and hypercube, DOR_RING (B = 2) and ADAPTIVE_RING (B = 3) on tori, ADAPTIVE
//! (B = 2) on the mesh and hypercube; processors inside routers and two per channel; buffers
//! of 1 and 2 flits; short (1-2 flits) and long (16 flits) messages; loads far past saturation.
//! The engine is driven through `Engine::send`, its invariants are checked every cycle, and any
//! buffer frozen for a while goes to the watchdog's drained-copy check. Then the offer stops and
//! the network drains: every message is delivered once, by a minimal path (routers passed =
//! the BFS distance of the model), and every flit is accounted for. `run_point` past saturation
//! with a short watchdog reports no deadlock. Negative control: DOR with one buffer per set on an
//! m-way torus (rings of cyclic dependencies) does deadlock, and both checks see it.

use crate::common::{Sent, offer_bernoulli};
use crate::mway_common::{Model, Procs, Wrap, library_processors};
use flitsim::Error;
use flitsim::engine::{Engine, run_point};
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// Offers Bernoulli traffic (per processor and cycle a message with probability `p`, uniform
/// destination, length uniform in `lens`) for `cycles` cycles, then drains. Returns the backlog
/// at the stop, or Err with the stuck buffers when the network deadlocks.
fn stress(
    e: &mut Engine,
    model: &Model,
    p: f64,
    lens: (u16, u16),
    cycles: u64,
    seed: u64,
) -> Result<u64, String> {
    let chans = library_processors(model, e);
    let mut rng = Pcg64::seed_from_u64(seed);
    let n = model.processors();
    let mut sent: Vec<Sent> = Vec::new();
    let mut backlog_at_stop = 0;
    let mut still = 0u64;
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
        assert!(c < cycles + 2_000_000, "not drained by cycle {c}");
        e.step();
        e.check_invariants()
            .unwrap_or_else(|m| panic!("invariant broken in cycle {}: {m}", e.cycle));
        still = if e.moved == 0 && e.flits_in_net > 0 {
            still + 1
        } else {
            0
        };
        let suspect =
            still > 50 || (e.cycle.is_multiple_of(250) && !e.stuck_buffers(250).is_empty());
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
    let mut got: Vec<Sent> = e
        .deliveries
        .iter()
        .map(|d| (d.src, d.dst, d.created, d.len))
        .collect();
    got.sort_unstable();
    sent.sort_unstable();
    assert_eq!(got.len(), sent.len(), "deliveries vs messages sent");
    assert!(got == sent, "the delivered messages differ from those sent");
    let h = |s: u32, t: u32| model.routers_passed(&chans[s as usize], &chans[t as usize]);
    for d in &e.deliveries {
        assert_eq!(d.hops as u32, h(d.src, d.dst), "{}->{}", d.src, d.dst);
    }
    assert!(e.idle());
    assert_eq!(e.flits_in_net, 0);
    assert_eq!(e.live_messages(), 0);
    let flits: u64 = sent.iter().map(|s| s.3 as u64).sum();
    let hops: u64 = sent.iter().map(|s| h(s.0, s.1) as u64).sum();
    let flit_hops: u64 = sent.iter().map(|s| s.3 as u64 * h(s.0, s.1) as u64).sum();
    assert_eq!(e.ejected_flits, flits, "flits ejected");
    let net = &e.net;
    let (links, inj, ej) = (
        net.links as usize,
        net.injection_channel(0) as usize,
        net.ejection_channel(0) as usize,
    );
    assert_eq!(e.c_msgs()[..links].iter().sum::<u64>(), hops, "headers");
    assert_eq!(e.c_flits()[..links].iter().sum::<u64>(), flit_hops, "flits");
    assert_eq!(e.c_flits()[inj..ej].iter().sum::<u64>(), flits, "injected");
    assert_eq!(e.c_flits()[ej..].iter().sum::<u64>(), flits, "ejected");
    Ok(backlog_at_stop)
}

struct Case {
    model: Model,
    vcs: u32,
    routing: &'static str,
}

fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for procs in [Procs::Routers, Procs::Channels(2)] {
        let c = |wrap, k, n, vcs, routing| Case {
            model: Model::new(wrap, k, n, procs),
            vcs,
            routing,
        };
        v.push(c(Wrap::Mesh, 4, 2, 1, "algorithm = \"dor\""));
        v.push(c(Wrap::Mesh, 2, 4, 1, "algorithm = \"dor\""));
        v.push(c(Wrap::Torus, 4, 2, 2, "algorithm = \"dor-ring\""));
        v.push(c(Wrap::Torus, 5, 2, 2, "algorithm = \"dor-ring\""));
        v.push(c(Wrap::Mesh, 4, 2, 2, "algorithm = \"adaptive\""));
        v.push(c(Wrap::Mesh, 2, 4, 2, "algorithm = \"adaptive\""));
        v.push(c(Wrap::Torus, 4, 2, 3, "algorithm = \"adaptive-ring\""));
        v.push(c(Wrap::Torus, 3, 3, 3, "algorithm = \"adaptive-ring\""));
        // DOR's dateline classes on the m-way torus, under the bidirectional torus's default
        // conventions (random ties, class chosen on entry) and the papers'.
        v.push(c(Wrap::Torus, 4, 2, 2, "algorithm = \"dor\""));
        v.push(c(Wrap::Torus, 5, 2, 2, "algorithm = \"dor\""));
        v.push(c(
            Wrap::Torus,
            4,
            2,
            2,
            "algorithm = \"dor\"\ntie = \"plus\"\ndateline = \"at-wrap\"",
        ));
    }
    v
}

fn label(c: &Case, depth: u32) -> String {
    let m = &c.model;
    format!(
        "{:?} k={} n={} {:?} B={} S={depth} [{}]",
        m.wrap, m.k, m.n, m.procs, c.vcs, c.routing
    )
}

/// Offers 0.6 flits/processor/cycle, far past saturation, for 1500 cycles, then drains.
fn stress_case(c: &Case, depth: u32, lens: (u16, u16), seed: u64) {
    let ctx = format!("{} lengths {lens:?}", label(c, depth));
    let mut e = c.model.quiet_engine(c.vcs, depth, c.routing);
    let mean = (lens.0 + lens.1) as f64 / 2.0;
    let backlog = stress(&mut e, &c.model, 0.6 / mean, lens, 1500, seed)
        .unwrap_or_else(|m| panic!("{ctx}: {m}"));
    // Far past saturation: messages were piling up at the sources when the offer stopped.
    assert!(
        backlog > 4 * c.model.processors() as u64,
        "{ctx}: not past saturation (backlog {backlog})"
    );
}

#[test]
fn short_messages_past_saturation() {
    for (i, c) in cases().iter().enumerate() {
        for depth in [1, 2] {
            stress_case(c, depth, (1, 2), 10 + i as u64);
        }
    }
}

#[test]
fn long_messages_past_saturation() {
    for (i, c) in cases().iter().enumerate() {
        for depth in [1, 2] {
            stress_case(c, depth, (16, 16), 30 + i as u64);
        }
    }
}

/// The scenario path: `run_point` far past saturation, watchdog every 200 cycles, returns Ok.
#[test]
fn run_point_past_saturation_reports_no_deadlock() {
    for (i, c) in cases().iter().enumerate() {
        for (depth, len) in [(1, 1), (2, 16)] {
            let rate = 0.9 / len as f64;
            let s = c.model.scenario(
                c.vcs,
                depth,
                c.routing,
                &format!("pattern = \"uniform\"\nmessage_length = {len}\nrates = [{rate:?}]"),
                "warmup_cycles = 500\nmeasure_cycles = 3000\nwatchdog_cycles = 200\n\
                 max_backlog = 200\ndrain_cycles = 2000",
            );
            let ctx = label(c, depth);
            match run_point(&s, rate, 7 + i as u64) {
                Ok(r) => assert!(r.saturated(), "{ctx} M={len}: not past saturation"),
                Err(e) => panic!("{ctx} M={len}: {e}"),
            }
        }
    }
}

/// DOR with a single buffer per set on an m-way torus: each ring of channels is a cycle of
/// buffer dependencies, and with long messages at heavy load it deadlocks. The stress checker
/// and `run_point`'s watchdog both report it, so the tests above can fail. With processors in
/// routers a 4x4 torus did not deadlock in 3000 cycles (a processor reaches the nearer of two
/// channels, so a minimal path passes at most two routers of a ring of four): k = 8 there.
#[test]
fn negative_control_dor_one_buffer_on_a_torus_deadlocks() {
    let routing = "algorithm = \"dor\"\ndeadlock_check = false\ntie = \"plus\"";
    for procs in [Procs::Channels(1), Procs::Routers] {
        let k = if procs == Procs::Routers { 8 } else { 4 };
        let model = Model::new(Wrap::Torus, k, 2, procs);
        let mut e = model.quiet_engine(1, 1, routing);
        match stress(&mut e, &model, 0.6 / 16.0, (16, 16), 3000, 3) {
            Err(m) => assert!(m.starts_with("deadlock at cycle "), "{m}"),
            Ok(_) => panic!("{procs:?}: expected a deadlock, all messages delivered"),
        }
        let s = model.scenario(
            1,
            1,
            routing,
            "pattern = \"uniform\"\nmessage_length = 16\nrates = [0.05]",
            "warmup_cycles = 500\nmeasure_cycles = 5000\nwatchdog_cycles = 200",
        );
        match run_point(&s, 0.05, 3) {
            Err(Error::Deadlock(r)) => {
                let m = r.to_string();
                assert!(m.starts_with("deadlock at cycle "), "{m}");
                assert!(m.contains("m-way router buffer set"), "{m}");
            }
            Err(e) => panic!("{procs:?}: {e}"),
            Ok(r) => panic!("{procs:?}: no deadlock reported (stop {:?})", r.stop),
        }
    }
}
