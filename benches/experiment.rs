//! The experiment layer's own cost per point, beside the simulation it wraps: writing a
//! finished point's record (postcard encoding), reading it back on resumption, and assembling
//! the tables of a sweep from its points. The point is the 16x16 mesh of `benches/engine.rs`
//! (a) at 0.2 flits/node/cycle with a 1,000 + 5,000-cycle window; `simulate_point` runs it, so
//! each figure can be read as a fraction of a point's simulation.
//!
//! Run: `cargo bench --bench experiment`.

use criterion::{Criterion, criterion_group, criterion_main};
use flitsim::engine::run_point;
use flitsim::experiment::{Experiment, record};
use flitsim::output::experiment_tables::experiment_files;
use std::hint::black_box;

const SCENARIO: &str = "name = \"bench\"\n[sweep]\n\"router.vcs\" = [2, 4]\n[topology]\n\
    kind = \"mesh\"\nk = 16\nn = 2\n[traffic]\nmessage_length = 16\nflit_rates = [0.1, 0.2]\n\
    [run]\nwarmup_cycles = 1000\nmeasure_cycles = 5000\n";

fn bench(c: &mut Criterion) {
    let exp = Experiment::from_text(SCENARIO.to_string(), "bench", &[], None).expect("valid");
    let points = exp.points();
    let results: Vec<_> = points
        .iter()
        .map(|&p| run_point(exp.scenario(p), exp.rate(p), p.seed).expect("runs"))
        .collect();
    let last = *points.last().expect("points");
    let (_, key) = exp.key(last);
    let r = results.last().expect("results");
    let bytes = record::encode(&key, r);
    let mut g = c.benchmark_group("experiment_mesh16x16");
    g.sample_size(10);
    g.bench_function("simulate_point", |b| {
        b.iter(|| black_box(run_point(exp.scenario(last), exp.rate(last), last.seed)))
    });
    g.bench_function("record_encode", |b| {
        b.iter(|| black_box(record::encode(&key, r)))
    });
    g.bench_function("record_decode", |b| {
        b.iter(|| black_box(record::decode(&bytes, &key)))
    });
    g.bench_function("point_key", |b| b.iter(|| black_box(exp.key(last))));
    g.bench_function("assemble_tables_4_points", |b| {
        b.iter(|| {
            // Every file made into memory (the run makes each into its file instead).
            let mut bytes = 0;
            for (_, make) in experiment_files(&exp, &results, &[]) {
                let mut file = Vec::new();
                make(&mut file).expect("in-memory write");
                bytes += file.len();
            }
            black_box(bytes)
        })
    });
    g.finish();
    // The watchdog's cost: a congested 32x32 torus point (past saturation) with the default
    // watchdog_cycles and with watchdog_cycles = 1, whose scans and deadlock copies must stay a
    // small fraction of the run.
    let mut g = c.benchmark_group("watchdog_torus32x32_load0.3");
    g.sample_size(10);
    for w in [10_000u64, 1] {
        let text = format!(
            "name = \"w\"\n[topology]\nkind = \"torus\"\nk = 32\nn = 2\nlinks = \"bidirectional\"\n\
             [traffic]\nmessage_length = 16\nflit_rates = [0.3]\n[run]\nwarmup_cycles = 1000\n\
             measure_cycles = 5000\nwatchdog_cycles = {w}\n"
        );
        let e = Experiment::from_text(text, "w", &[], None).expect("valid");
        let p = e.points()[0];
        g.bench_function(format!("watchdog_{w}"), |b| {
            b.iter(|| black_box(run_point(e.scenario(p), e.rate(p), p.seed)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
