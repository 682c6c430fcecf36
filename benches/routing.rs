//! Router-policy cost: simulated cycles per second of each routing and selection function on
//! the same network and load, so that their costs compare directly.
//!
//! Two workloads, uniform traffic, M = 16, buffers of 4 flits, warmed up for 20,000 cycles:
//! - `hypercube6_v3_load0.3`: 6-cube, V = 3, 0.3 flits/node/cycle (about half of saturation);
//! - `torus8x8_bi_v4_load0.2`: 8-ary 2-cube bidirectional torus, V = 4, 0.2 flits/node/cycle
//!   (about half of DOR's saturation).
//!
//! Each benchmark id is `<workload>/<routing>`: `dor`, `pcube` (hypercube only),
//! `duato-random`, `duato-least-multiplexed`, `duato-most-free`, `duato-timeout8` (τ = 8,
//! random selection). Throughput is in simulated cycles (1000 per iteration).
//!
//! Paper 004's k-ary m-way networks (p = 1, B = 4 buffers of 4 flits, M = 16), at about half of
//! their deterministic routing's saturation:
//! - `mway_torus8x8x8_load0.06`: `dor-ring`, `adaptive-ring` (avail selection) and
//!   `adaptive-ring-random`;
//! - `mway_mesh8x8x8_load0.03`: `dor`, `adaptive` (avail selection) and `adaptive-random`.
//!
//! Run: `cargo bench --bench routing`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use flitsim::Scenario;
use flitsim::engine::{Engine, build_engine};
use std::hint::black_box;
use std::time::Duration;

const CYCLES: u64 = 1000;
const LENGTH: f64 = 16.0;

/// The routings compared: benchmark name and the `[routing]` table's body.
const ROUTINGS: [(&str, &str); 6] = [
    ("dor", "algorithm = \"dor\""),
    ("pcube", "algorithm = \"pcube\""),
    (
        "duato-random",
        "algorithm = \"duato\"\nselection = \"random\"",
    ),
    (
        "duato-least-multiplexed",
        "algorithm = \"duato\"\nselection = \"least-multiplexed\"",
    ),
    (
        "duato-most-free",
        "algorithm = \"duato\"\nselection = \"most-free\"",
    ),
    (
        "duato-timeout8",
        "algorithm = \"duato-timeout\"\ntimeout = 8",
    ),
];

fn scenario(topology: &str, vcs: u32, routing: &str) -> Scenario {
    let text = format!(
        "name = \"bench\"\n[topology]\n{topology}\n[router]\nvcs = {vcs}\nbuffer_depth = 4\n\
         [routing]\n{routing}\n[traffic]\nmessage_length = 16\nflit_rates = [0.1]\n"
    );
    Scenario::from_toml(&text, "bench").expect("valid bench scenario")
}

/// An engine warmed up to steady state.
fn warmed(s: &Scenario, flit_rate: f64) -> Engine {
    let mut e = build_engine(s, flit_rate / LENGTH, 1);
    for _ in 0..20_000 {
        e.step();
    }
    e
}

/// The m-way routings compared on the torus and on the mesh.
const MWAY_TORUS: [(&str, &str); 3] = [
    ("dor-ring", "algorithm = \"dor-ring\""),
    ("adaptive-ring", "algorithm = \"adaptive-ring\""),
    (
        "adaptive-ring-random",
        "algorithm = \"adaptive-ring\"\nselection = \"random\"",
    ),
];
const MWAY_MESH: [(&str, &str); 3] = [
    ("dor", "algorithm = \"dor\""),
    ("adaptive", "algorithm = \"adaptive\""),
    (
        "adaptive-random",
        "algorithm = \"adaptive\"\nselection = \"random\"",
    ),
];

fn bench_network(c: &mut Criterion, name: &str, topology: &str, vcs: u32, flit_rate: f64) {
    let hypercube = topology.contains("hypercube");
    bench_routings(c, name, topology, vcs, flit_rate, &ROUTINGS, |id| {
        id != "pcube" || hypercube // p-cube routes on hypercubes only
    });
}

fn bench_routings(
    c: &mut Criterion,
    name: &str,
    topology: &str,
    vcs: u32,
    flit_rate: f64,
    routings: &[(&str, &str)],
    fits: impl Fn(&str) -> bool,
) {
    let mut g = c.benchmark_group(name);
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(4));
    g.throughput(Throughput::Elements(CYCLES));
    for &(id, routing) in routings {
        if !fits(id) {
            continue;
        }
        let s = scenario(topology, vcs, routing);
        let mut e = warmed(&s, flit_rate);
        g.bench_function(id, |b| {
            b.iter(|| {
                for _ in 0..CYCLES {
                    e.step();
                }
                black_box(e.cycle)
            })
        });
    }
    g.finish();
}

fn routing(c: &mut Criterion) {
    bench_network(
        c,
        "hypercube6_v3_load0.3",
        "kind = \"hypercube\"\nn = 6",
        3,
        0.3,
    );
    bench_network(
        c,
        "torus8x8_bi_v4_load0.2",
        "kind = \"torus\"\nk = 8\nn = 2\nlinks = \"bidirectional\"",
        4,
        0.2,
    );
    bench_routings(
        c,
        "mway_torus8x8x8_load0.06",
        "kind = \"mway\"\nk = 8\nn = 3",
        4,
        0.06,
        &MWAY_TORUS,
        |_| true,
    );
    bench_routings(
        c,
        "mway_mesh8x8x8_load0.03",
        "kind = \"mway\"\nk = 8\nn = 3\nwrap = \"mesh\"",
        4,
        0.03,
        &MWAY_MESH,
        |_| true,
    );
}

criterion_group!(benches, routing);
criterion_main!(benches);
