//! The deadlock watchdog tells deadlock from congestion: deep saturation, where headers wait
//! far longer than the watchdog period, is not reported as deadlock; a routing that can
//! deadlock (DOR on a torus with one virtual channel) is.

use flitsim::engine::run_point;
use flitsim::stats::StopReason;
use flitsim::{Error, Scenario};

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
        Err(Error::Deadlock(msg)) => {
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
