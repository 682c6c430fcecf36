//! Engine speed: simulated cycles per second and flit-hops per second on the two reference
//! workloads of issue 2, the cost of an idle cycle (load 0.02 vs 0.2), and (c) the k-ary m-way
//! torus of paper 004 Figs. 8-11 (8x8x8, p = 1, B = 4 buffers of 2 flits, DOR_RING, 5-flit
//! messages) at half its saturation load; its flit-hops are flits entering router buffers;
//! (d) the 32-ary 4-cube (1,048,576 nodes, bidirectional, its default torus conventions, V = 2,
//! 8-flit buffers, M = 16) at 0.002 flits/node/cycle after 500 warm-up cycles, with its set-up
//! (`/setup`: building the engine of the point), and the same point with its cycle split across
//! 2 threads (`d_torus32x4_dor_load0.002_threads2`, `[run] threads_per_point = 2`); (e) the
//! dragonfly of `scenarios/dragonfly-1k.toml` (p = h = 4, a = 8, 33 groups, V = 4, 8-flit
//! buffers, M = 4) under uniform traffic and minimal routing at 0.3 flits/processor/cycle.
//!
//! Run: `cargo bench --bench engine`. Each benchmark id ends in `/cycles` (throughput in
//! simulated cycles) or `/flit_hops` (throughput in flits moved across network links).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use flitsim::Scenario;
use flitsim::engine::{Engine, build_engine, build_engine_with};
use std::hint::black_box;

const CYCLES: u64 = 1000;

#[path = "workloads.rs"]
mod workloads;
use workloads::workload;

/// A warmed-up engine (`warm` cycles) and its flit-hops per `cycles` cycles.
fn warmed(s: &Scenario, flit_rate: f64, warm: u64, cycles: u64, threads: usize) -> (Engine, u64) {
    let mut e = build_engine_with(s, flit_rate / s.traffic.mean_length(), 1, |c| {
        c.threads = threads
    });
    for _ in 0..warm {
        e.step();
    }
    let before = e.link_flits();
    for _ in 0..20 * cycles {
        e.step();
    }
    let per_iter = (e.link_flits() - before) / 20;
    (e, per_iter)
}

fn bench_workload(c: &mut Criterion, name: &str, s: &Scenario, flit_rate: f64) {
    bench_sized(c, name, s, flit_rate, 20_000, CYCLES, 20, 1);
}

/// Cycles and flit-hops per second of `s` at `flit_rate`, `cycles` cycles an iteration after
/// `warm` warm-up cycles, `samples` samples, each cycle split across `threads` threads.
#[allow(clippy::too_many_arguments)]
fn bench_sized(
    c: &mut Criterion,
    name: &str,
    s: &Scenario,
    flit_rate: f64,
    warm: u64,
    cycles: u64,
    samples: usize,
    threads: usize,
) {
    let (mut e, hops) = warmed(s, flit_rate, warm, cycles, threads);
    let mut g = c.benchmark_group(name);
    g.sample_size(samples);
    g.throughput(Throughput::Elements(cycles));
    g.bench_function("cycles", |b| {
        b.iter(|| {
            for _ in 0..cycles {
                e.step();
            }
            black_box(e.cycle)
        })
    });
    g.throughput(Throughput::Elements(hops.max(1)));
    g.bench_function("flit_hops", |b| {
        b.iter(|| {
            for _ in 0..cycles {
                e.step();
            }
            black_box(e.cycle)
        })
    });
    g.finish();
}

fn engine(c: &mut Criterion) {
    for (id, name) in [
        ("a_mesh16x16_dor_load0.2", "a"),
        ("a_mesh16x16_dor_load0.02", "a_idle"),
        ("b_torus8x8x8_bi_dor_load0.05", "b"),
        ("c_mway_torus8x8x8_dor_ring_load0.07", "c"),
        ("e_dragonfly1k_min_load0.3", "e"),
    ] {
        let (s, flit_rate, _) = workload(name).expect("a workload");
        bench_workload(c, id, &s, flit_rate);
    }
    let (big, _, warm) = workload("d").expect("workload d");
    bench_sized(c, "d_torus32x4_dor_load0.002", &big, 0.002, warm, 20, 10, 1);
    bench_sized(
        c,
        "d_torus32x4_dor_load0.002_threads2",
        &big,
        0.002,
        warm,
        20,
        10,
        2,
    );
    let mut g = c.benchmark_group("d_torus32x4_dor_load0.002");
    g.sample_size(10);
    g.bench_function("setup", |b| {
        b.iter(|| black_box(build_engine(&big, 0.002 / 16.0, 1).cycle))
    });
    g.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
