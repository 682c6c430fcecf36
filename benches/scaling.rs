//! Scaling: the cost of a flit-hop and the bytes per node as the network grows, at a fixed
//! per-node load. Bidirectional tori of 64 (4-ary 3-cube), 1,024 (8x8x4x4), 16,384
//! (16x16x8x8), 262,144 (32x32x16x16) and 1,048,576 nodes (32-ary 4-cube), each with its
//! default torus conventions, V = 2, 8-flit buffers, 16-flit messages, dimension order, at
//! 0.002 flits/node/cycle after 500 warm-up cycles. Criterion measures flit-hops per second
//! (`scaling/<nodes>/flit_hops`); the bench prints each network's set-up time and its engine's
//! heap per node, part by part (`Engine::memory`), to standard error.
//!
//! Run: `cargo bench --bench scaling` (about three minutes).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use flitsim::Scenario;
use flitsim::engine::build_engine;
use std::hint::black_box;
use std::time::Instant;

/// The networks: nodes and radices.
const NETWORKS: [(u64, &str); 5] = [
    (64, "[4, 4, 4]"),
    (1_024, "[8, 8, 4, 4]"),
    (16_384, "[16, 16, 8, 8]"),
    (262_144, "[32, 32, 16, 16]"),
    (1_048_576, "[32, 32, 32, 32]"),
];

const FLIT_RATE: f64 = 0.002;

fn scaling(c: &mut Criterion) {
    for (nodes, radix) in NETWORKS {
        let text = format!(
            "name = \"scaling\"\n[topology]\nkind = \"torus\"\nk = {radix}\n\
             links = \"bidirectional\"\n[router]\nvcs = 2\nbuffer_depth = 8\n\
             [traffic]\nmessage_length = 16\nflit_rates = [{FLIT_RATE}]\n"
        );
        let s = Scenario::from_toml(&text, "scaling").expect("valid scaling scenario");
        let t0 = Instant::now();
        let mut e = build_engine(&s, FLIT_RATE / 16.0, 1);
        let setup = t0.elapsed().as_secs_f64();
        for _ in 0..500 {
            e.step();
        }
        // About a million flit-hops an iteration.
        let cycles = (1_000_000 / nodes).max(10);
        let before = e.link_flits();
        for _ in 0..5 * cycles {
            e.step();
        }
        let hops = (e.link_flits() - before) / 5;
        let parts = e.memory();
        let total: u64 = parts.iter().map(|p| p.1).sum();
        let per_node: Vec<String> = parts
            .iter()
            .map(|(name, b)| format!("{name} {:.0}", *b as f64 / nodes as f64))
            .collect();
        eprintln!(
            "scaling/{nodes}: set-up {setup:.3} s, {:.0} bytes/node ({})",
            total as f64 / nodes as f64,
            per_node.join(", ")
        );
        let mut g = c.benchmark_group(format!("scaling/{nodes}"));
        g.sample_size(10);
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
}

criterion_group!(benches, scaling);
criterion_main!(benches);
