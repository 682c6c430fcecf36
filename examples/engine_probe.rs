//! One engine, measured from outside criterion: its set-up time, its speed after a warm-up,
//! and the process's peak resident memory (Linux `VmHWM`), for the figures on large
//! networks. A bidirectional torus with its default conventions, DOR, V = 2, 8-flit buffers,
//! 16-flit messages.
//!
//! Run: `cargo run --release --example engine_probe -- RADICES WARMUP CYCLES [FLIT_RATE
//! [THREADS]]`, e.g. `-- 32,32,32,32 500 300` for the 32-ary 4-cube at 0.002
//! flits/node/cycle, or `-- 32,32,32,32 500 300 0.002 2` for its cycle split across 2 threads.

use flitsim::Scenario;
use flitsim::engine::build_engine_with;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: engine_probe RADICES WARMUP CYCLES [FLIT_RATE [THREADS]]");
        std::process::exit(2);
    }
    let number = |i: usize| -> u64 { args[i].parse().expect("a whole number") };
    let (warmup, cycles) = (number(1), number(2));
    let flit_rate: f64 = args.get(3).map_or(0.002, |r| r.parse().expect("a rate"));
    let threads: usize = args
        .get(4)
        .map_or(1, |t| t.parse().expect("a thread count"));
    let text = format!(
        "name = \"probe\"\n[topology]\nkind = \"torus\"\nk = [{}]\nlinks = \"bidirectional\"\n\
         [router]\nvcs = 2\nbuffer_depth = 8\n[traffic]\nmessage_length = 16\n\
         flit_rates = [{flit_rate}]\n",
        args[0]
    );
    let s = Scenario::from_toml(&text, "probe").expect("a valid network");
    let t0 = Instant::now();
    let mut e = build_engine_with(&s, flit_rate / 16.0, 1, |c| c.threads = threads);
    let setup = t0.elapsed().as_secs_f64();
    for _ in 0..warmup {
        e.step();
    }
    let before = e.link_flits();
    let t1 = Instant::now();
    for _ in 0..cycles {
        e.step();
    }
    let seconds = t1.elapsed().as_secs_f64();
    let hops = e.link_flits() - before;
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak = status
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .unwrap_or("VmHWM: unknown");
    let parts: Vec<String> = e
        .memory()
        .iter()
        .map(|(part, bytes)| format!("{part} {}", bytes / e.net.nodes as u64))
        .collect();
    println!(
        "{} nodes, {threads} thread(s): set-up {setup:.2} s, {:.1} cycles/s, {:.2} M flit-hops/s, heap {} bytes/node, peak {}",
        e.net.nodes,
        cycles as f64 / seconds,
        hops as f64 / seconds / 1e6,
        e.memory().iter().map(|p| p.1).sum::<u64>() / e.net.nodes as u64,
        peak.split_whitespace()
            .skip(1)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!("heap bytes/node by part: {}", parts.join(", "));
}
