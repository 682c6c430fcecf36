//! The engine's cycles of one reference workload (`benches/workloads.rs`), for counting their
//! instructions under callgrind: the gate of every change to the engine, deterministic where
//! wall-clock time on a shared machine is not.
//!
//! Run: `cargo build --release --example cycle_probe`, then
//! `valgrind --tool=callgrind --toggle-collect='cycle_probe::measured' \
//! target/release/examples/cycle_probe WORKLOAD CYCLES [PARTITIONS]`, WORKLOAD one of `a`,
//! `a_idle`, `b`, `c`, `d`, `e`; the workload's warm-up runs first, uncounted. With PARTITIONS > 1
//! the cycle is split into that many partitions run in turn on the calling thread
//! (`EngineConfig::in_turn`): the split cycle's work without the threads' waits,
//! whose spinning callgrind would count.

#[path = "../benches/workloads.rs"]
mod workloads;

use flitsim::engine::{Engine, build_engine_with};

/// Runs the measured cycles (the function callgrind's `--toggle-collect` counts).
#[inline(never)]
fn measured(e: &mut Engine, cycles: u64) {
    for _ in 0..cycles {
        e.step();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: cycle_probe WORKLOAD CYCLES [PARTITIONS]");
        std::process::exit(2);
    }
    let Some((s, flit_rate, warm)) = workloads::workload(&args[0]) else {
        eprintln!(
            "cycle_probe: no workload {}; fix: a, a_idle, b, c, d or e",
            args[0]
        );
        std::process::exit(2);
    };
    let cycles: u64 = args[1].parse().expect("a whole number of cycles");
    let parts: usize = args
        .get(2)
        .map_or(1, |p| p.parse().expect("a partition count"));
    let mut e = build_engine_with(&s, flit_rate / s.traffic.mean_length(), 1, |c| {
        c.threads = parts;
        c.in_turn = true;
    });
    for _ in 0..warm {
        e.step();
    }
    let before = e.link_flits();
    measured(&mut e, cycles);
    println!(
        "{}: {cycles} cycles, {} flit-hops, {} partition(s)",
        args[0],
        e.link_flits() - before,
        e.threads()
    );
}
