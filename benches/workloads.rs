//! The engine's reference workloads (a: 16x16 mesh, b: 8-ary 3-cube, c: k-ary m-way torus,
//! d: 1,048,576-node 32-ary 4-cube, e: 1,056-processor dragonfly), written once for
//! `benches/engine.rs` and `examples/cycle_probe.rs`.

use flitsim::Scenario;

/// A scenario of `topology` (TOML lines) with `vcs` virtual channels of `depth` flits,
/// `length`-flit messages and the `[routing]` lines `routing`.
pub fn scenario(topology: &str, vcs: u32, depth: u32, length: u32, routing: &str) -> Scenario {
    let text = format!(
        "name = \"bench\"\n[topology]\n{topology}\n[router]\nvcs = {vcs}\nbuffer_depth = {depth}\n\
         [routing]\n{routing}\n[traffic]\nmessage_length = {length}\nflit_rates = [0.1]\n"
    );
    Scenario::from_toml(&text, "bench").expect("valid bench scenario")
}

/// Workload `name` (`a`, `a_idle`, `b`, `c`, `d`, `e`): its scenario, its load in flits/node/cycle
/// and its warm-up cycles.
pub fn workload(name: &str) -> Option<(Scenario, f64, u64)> {
    Some(match name {
        "a" | "a_idle" => (
            scenario("kind = \"mesh\"\nk = 16\nn = 2", 4, 8, 16, ""),
            if name == "a" { 0.2 } else { 0.02 },
            20_000,
        ),
        // The papers' torus conventions, so that the workload is the one measured before the
        // bidirectional torus's defaults changed (tie = random, dateline = on-entry).
        "b" => (
            scenario(
                "kind = \"torus\"\nk = 8\nn = 3\nlinks = \"bidirectional\"",
                2,
                8,
                16,
                "tie = \"plus\"\ndateline = \"at-wrap\"",
            ),
            0.05,
            20_000,
        ),
        "c" => (
            scenario(
                "kind = \"mway\"\nk = 8\nn = 3\nwrap = \"torus\"",
                4,
                2,
                5,
                "",
            ),
            0.07,
            20_000,
        ),
        "d" => (
            scenario(
                "kind = \"torus\"\nk = 32\nn = 4\nlinks = \"bidirectional\"",
                2,
                8,
                16,
                "",
            ),
            0.002,
            500,
        ),
        // scenarios/dragonfly-1k.toml's network under uniform traffic and minimal routing.
        "e" => (
            scenario(
                "kind = \"dragonfly\"\np = 4\na = 8\nh = 4",
                4,
                8,
                4,
                "algorithm = \"min\"",
            ),
            0.3,
            20_000,
        ),
        _ => return None,
    })
}
