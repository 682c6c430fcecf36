//! Early free (paper 004 section 3.5, `[router] early_free = true`): with dimension-order
//! routing on meshes and hypercubes a buffer takes the next message's header as soon as the
//! tail of its message has arrived, and the two messages queue in it. Checked: the exact gain
//! on a hand-timed conflict, zero-load latency unchanged, conservation with the engine's
//! invariants every cycle far past saturation (k-ary and m-way networks, 1-flit buffers,
//! 1-flit messages), that buffers do hold two messages at once (and never without the option),
//! and that tori and adaptive routings are refused.

use flitsim::Scenario;
use flitsim::engine::{Engine, build_engine};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn scenario(topology: &str, routing: &str, vcs: u32, depth: u32, early: bool) -> String {
    format!(
        "name = \"early\"\n[topology]\n{topology}\n[router]\nvcs = {vcs}\nbuffer_depth = {depth}\n\
         early_free = {early}\n[routing]\nalgorithm = \"{routing}\"\n[traffic]\n\
         message_length = 4\nrates = [0.01]\n"
    )
}

/// An engine without sources, logging deliveries.
fn engine(topology: &str, vcs: u32, depth: u32, early: bool) -> Engine {
    let s = Scenario::from_toml(&scenario(topology, "dor", vcs, depth, early), "early.toml")
        .expect("valid scenario");
    let mut e = build_engine(&s, 0.0, 1);
    e.log_deliveries = true;
    e
}

fn run_until_idle(e: &mut Engine) {
    let cap = e.cycle + 1000;
    while !e.idle() {
        assert!(e.cycle < cap, "not delivered");
        e.step();
    }
}

/// Three nodes in a line, one 4-flit buffer per link. A (2 flits, 0 → 2) and B (2 flits,
/// 1 → 2) start together; B takes router 2's only input buffer from node 1 in cycle 1 and its
/// tail arrives in cycle 2. Early free lets A's header follow in cycle 3 (behind B's tail,
/// which leaves in the same cycle); otherwise A waits until the buffer is empty, in cycle 4.
/// A's latency is 5 cycles with early free and 6 without; B's is M + h = 3 either way.
#[test]
fn early_free_gains_exactly_one_cycle_on_a_timed_conflict() {
    for (early, want_a) in [(true, 5), (false, 6)] {
        let mut e = engine("kind = \"mesh\"\nk = 3\nn = 1", 1, 4, early);
        e.send(0, 2, 2);
        e.send(1, 2, 2);
        run_until_idle(&mut e);
        let lat = |src: u32| {
            let d = e.deliveries.iter().find(|d| d.src == src).unwrap();
            d.eject - d.created
        };
        assert_eq!(lat(1), 3, "B, early free {early}");
        assert_eq!(lat(0), want_a, "A, early free {early}");
    }
}

/// A lone message still takes exactly M + h cycles.
#[test]
fn zero_load_is_unchanged() {
    for (topology, nodes, k) in [
        ("kind = \"mesh\"\nk = 4\nn = 2", 16u32, 4u32),
        ("kind = \"mway\"\nk = 4\nn = 2\nwrap = \"mesh\"", 16, 4),
    ] {
        let mut e = engine(topology, 1, 2, true);
        for src in 0..nodes {
            for dst in 0..nodes {
                if src == dst {
                    continue;
                }
                let h = (src % k).abs_diff(dst % k) + (src / k).abs_diff(dst / k);
                e.deliveries.clear();
                e.send(src, dst, 5);
                run_until_idle(&mut e);
                let d = e.deliveries[0];
                assert_eq!(d.eject - d.created, 5 + h as u64, "{topology} {src}->{dst}");
            }
        }
    }
}

/// Bernoulli traffic past saturation, then drain: invariants every cycle, every message
/// delivered exactly once. Returns the most messages queued behind tails at once.
fn stress(topology: &str, nodes: u32, vcs: u32, depth: u32, early: bool, p: f64) -> usize {
    let mut e = engine(topology, vcs, depth, early);
    let mut rng = Pcg64::seed_from_u64(7);
    let mut sent = Vec::new();
    let mut most = 0;
    let cycles = 3000;
    while e.cycle < cycles || !e.idle() {
        assert!(
            e.cycle < cycles + 200_000,
            "{topology}: not drained (deadlock?)"
        );
        if e.cycle < cycles {
            for src in 0..nodes {
                if rng.gen_bool(p) {
                    let dst = (src + rng.gen_range(1..nodes)) % nodes;
                    let len = rng.gen_range(1..=6);
                    e.send(src, dst, len);
                    sent.push((src, dst, len));
                }
            }
        }
        e.step();
        if let Err(msg) = e.check_invariants() {
            panic!("{topology} early {early}: cycle {}: {msg}", e.cycle);
        }
        most = most.max(e.early_queued());
    }
    let mut got: Vec<_> = e.deliveries.iter().map(|d| (d.src, d.dst, d.len)).collect();
    got.sort_unstable();
    sent.sort_unstable();
    assert!(
        got == sent,
        "{topology}: delivered multiset differs from sent"
    );
    let flits: u64 = sent.iter().map(|s| s.2 as u64).sum();
    assert_eq!(e.ejected_flits, flits, "{topology}: flits");
    most
}

#[test]
fn conservation_far_past_saturation() {
    for (topology, nodes) in [
        ("kind = \"mesh\"\nk = 5\nn = 2", 25),
        ("kind = \"hypercube\"\nn = 4", 16),
        ("kind = \"mway\"\nk = 4\nn = 2\nwrap = \"mesh\"", 16),
        ("kind = \"mway\"\nk = 2\nn = 4\nwrap = \"mesh\"", 16),
        (
            "kind = \"mway\"\nk = 3\nn = 2\nwrap = \"mesh\"\nprocessors = \"routers\"",
            12,
        ),
    ] {
        for (vcs, depth) in [(1, 1), (1, 2), (2, 4)] {
            let most = stress(topology, nodes, vcs, depth, true, 0.3);
            // A 1-flit buffer holding a tail has no room behind it: nothing can queue.
            assert_eq!(
                most > 0,
                depth > 1,
                "{topology} V={vcs} depth={depth}: queued {most}"
            );
            let none = stress(topology, nodes, vcs, depth, false, 0.3);
            assert_eq!(none, 0, "{topology}: queued without early free");
        }
    }
}

#[test]
fn refused_off_meshes_and_hypercubes_and_with_other_routings() {
    for (topology, routing) in [
        (
            "kind = \"torus\"\nk = 4\nn = 2\nlinks = \"bidirectional\"",
            "dor",
        ),
        ("kind = \"mway\"\nk = 4\nn = 2", "dor-ring"),
        ("kind = \"mway\"\nk = 4\nn = 2", "dor"),
        ("kind = \"mesh\"\nk = 4\nn = 2", "duato"),
        ("kind = \"mway\"\nk = 4\nn = 2\nwrap = \"mesh\"", "adaptive"),
    ] {
        let err = Scenario::from_toml(&scenario(topology, routing, 3, 2, true), "e.toml")
            .err()
            .unwrap_or_else(|| panic!("{routing} on {topology} accepted"))
            .to_string();
        assert!(
            err.starts_with("e.toml: [router] early_free: ") && err.contains("; fix: "),
            "{err}"
        );
    }
}
