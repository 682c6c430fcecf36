//! The deadlock watchdog tells deadlock from congestion: deep saturation, where headers wait
//! far longer than the watchdog period, is not reported as deadlock; a routing that can
//! deadlock (DOR on a torus with one virtual channel) is.

use flitsim::engine::{DeadlockCause, Wait, run_point};
use flitsim::stats::StopReason;
use flitsim::{Error, Scenario};
use std::collections::{BTreeMap, BTreeSet};

fn scenario(
    topology: &str,
    vcs: u32,
    depth: u32,
    m: u32,
    flit_rate: f64,
    watchdog: u64,
) -> Scenario {
    let text = format!(
        "name = \"w\"\n[topology]\n{topology}\n[router]\nvcs = {vcs}\nbuffer_depth = {depth}\n\
         [routing]\ndeadlock_check = false\n[traffic]\nmessage_length = {m}\nflit_rates = [{flit_rate}]\n\
         [run]\nwarmup_cycles = 1000\nmeasure_cycles = 20000\nwatchdog_cycles = {watchdog}\nmax_backlog = 400\n"
    );
    Scenario::from_toml(&text, "w.toml").expect("valid scenario")
}

#[test]
fn deep_saturation_is_not_deadlock() {
    // One virtual channel, long messages, far past saturation: headers wait thousands of
    // cycles for a virtual channel, longer than the 300-cycle watchdog period.
    for topo in [
        "kind = \"mesh\"\nk = 8\nn = 2",
        "kind = \"hypercube\"\nn = 5",
        "kind = \"torus\"\nk = 6\nn = 2\nlinks = \"bidirectional\"",
    ] {
        let vcs = if topo.contains("torus") { 2 } else { 1 };
        let s = scenario(topo, vcs, 2, 64, 0.9, 300);
        let r = run_point(&s, s.traffic.rates[0], 1)
            .unwrap_or_else(|e| panic!("{topo}: congestion reported as {e}"));
        assert!(r.saturated(), "{topo}: the point is past saturation");
        assert_ne!(r.stop, StopReason::Drained, "{topo}");
    }
}

#[test]
fn one_vc_torus_deadlock_is_reported() {
    let s = scenario("kind = \"torus\"\nk = 4\nn = 2", 1, 2, 16, 0.8, 300);
    match run_point(&s, s.traffic.rates[0], 1) {
        Err(Error::Deadlock(r)) => {
            let msg = r.to_string();
            assert!(msg.starts_with("deadlock at cycle "), "{msg}");
            assert!(msg.contains("still cannot move"), "{msg}");
            assert!(
                msg.lines()
                    .skip(1)
                    .all(|l| l.starts_with("  router ") || l.starts_with("  ... and ")),
                "{msg}"
            );
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

/// A deadlock's report holds exact facts: each stuck buffer holds flits of a message not yet
/// delivered and waits only for buffers of the stuck set, the waits close a cycle round one
/// ring, and the error's text is made from the report.
#[test]
fn deadlock_report_is_a_cycle_of_waits() {
    let s = scenario("kind = \"torus\"\nk = 4\nn = 2", 1, 2, 16, 0.8, 300);
    let rate = s.traffic.rates[0];
    let r = match run_point(&s, rate, 1) {
        Err(Error::Deadlock(r)) => r,
        other => panic!("expected a deadlock, got {other:?}"),
    };
    assert_eq!((r.rate, r.seed), (rate, 1));
    assert_eq!(r.cause, DeadlockCause::Watchdog { cycles: 300 });
    let text = r.to_string();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(
            format!(
                "deadlock at cycle {} (rate {rate}, seed 1): flits had not moved for 300 cycles, and with no new messages {} buffer(s) still cannot move",
                r.cycle,
                r.stuck.len()
            )
            .as_str()
        )
    );
    for (line, b) in lines.zip(&r.stuck).take(12) {
        assert_eq!(line, format!("  {b}"));
    }
    let held: BTreeSet<u32> = r.stuck.iter().map(|b| b.place.buffer).collect();
    assert_eq!(held.len(), r.stuck.len(), "each buffer once");
    let mut first_wait = BTreeMap::new();
    for b in &r.stuck {
        // One virtual channel: a buffer is its channel's only one.
        assert_eq!((b.place.channel, b.place.vc), (b.place.buffer, 0), "{b}");
        assert!(
            (1..=2).contains(&b.flits),
            "holds flits, at most its depth: {b}"
        );
        let m = b.message.unwrap_or_else(|| panic!("a message: {b}"));
        // Its tail has not left this buffer, so the message is not delivered.
        assert!(m.sent + b.flits <= m.length && m.sent < m.length, "{b}");
        let waits = b.waits_for();
        assert!(
            !waits.is_empty() && waits.iter().all(|w| held.contains(w)),
            "{b} waits for {waits:?}, outside the stuck buffers"
        );
        if let Wait::Space { flits, .. } = b.waits {
            assert_eq!(flits, 2, "the downstream buffer is full: {b}");
        }
        first_wait.insert(b.place.buffer, waits[0]);
    }
    // Walking from any stuck buffer to the first it waits for comes back round one ring:
    // its four links in one direction.
    let mut walk = vec![r.stuck[0].place.buffer];
    while let Some(&next) = first_wait.get(walk.last().unwrap()) {
        if let Some(start) = walk.iter().position(|&b| b == next) {
            walk.drain(..start);
            break;
        }
        walk.push(next);
    }
    assert_eq!(walk.len(), 4, "a cycle round a ring of 4: {walk:?}");
    let ring = |b: u32| {
        let name = &r
            .stuck
            .iter()
            .find(|s| s.place.buffer == b)
            .unwrap()
            .place
            .name;
        name[name.find("(dim ").unwrap()..].to_string()
    };
    assert!(walk.iter().all(|&b| ring(b) == ring(walk[0])), "{walk:?}");
}
