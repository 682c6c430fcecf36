#![deny(
    clippy::multiple_unsafe_ops_per_block,
    clippy::undocumented_unsafe_blocks
)]
#![warn(missing_docs)]

//! flitsim: a flit-level, cycle-accurate simulator of wormhole-switched interconnection
//! networks (k-ary n-cubes: tori, meshes, hypercubes; k-ary m-way networks; HyperX; fat trees)
//! driven by TOML scenarios.
//!
//! The public API: load a [`Scenario`], run it with [`sweep::run_sweep`] (or one point with
//! [`engine::run_point`]), write the CSVs with [`output::write_results`]. The layers:
//! [`topology`] builds a [`topology::Topology`], [`network`] wires it into a
//! [`network::Network`], [`routing`] and [`traffic`] drive the [`engine`]'s cycle, [`stats`]
//! turns its counters into a [`stats::PointResult`], and [`model`] holds the papers' analytical
//! models (ARCHITECTURE.md in the repository describes each).
//!
//! # Tutorial: one load point from code
//!
//! The example below takes three steps.
//!
//! 1. **Build a scenario.** A scenario is the TOML the command line reads (every key, its unit
//!    and default are in docs/src/reference/keys.md). [`Scenario::from_toml`] parses and
//!    validates it; its second argument only names the text in error messages. Here: a 4x4
//!    mesh with dimension-order routing (`dor`), uniform traffic (the default), messages of 4
//!    flits and one light load, 0.002 messages per node per cycle. The run is cut far below the
//!    default 10,000 warm-up and 100,000 measured cycles so that the example takes a moment.
//! 2. **Run one load point.** [`engine::run_point`] simulates the scenario at one rate
//!    (messages/node/cycle) with one seed: it warms the network up, measures the messages
//!    generated in the measurement window, and keeps simulating until they are all delivered.
//!    A sweep ([`sweep::run_sweep`], what `flitsim run` does) runs one such point per rate,
//!    seed and traffic variant, in parallel.
//! 3. **Read the latency.** `result.stats` holds the latency of the measured messages, in
//!    cycles from a message's generation to the ejection of its tail flit; `result.stats.mean()`
//!    is their mean. `result.accepted_flits` is the accepted load in flits/node/cycle, and
//!    `result.saturated()` says whether the point saturated. Exact facts to check: a message of
//!    M flits that makes h hops takes exactly M + h cycles through an empty network (the
//!    the book's "The router model and timing"), waiting only adds to that, and a uniform
//!    destination is never the source (h ≥ 1), so no latency is under M + 1 = 5 cycles; and
//!    at this load the network does not saturate.
//!
//! ```
//! use flitsim::Scenario;
//!
//! // 1. Build a scenario.
//! let toml = r#"
//!     name = "tutorial"
//!     seed = 7
//!
//!     [topology]
//!     kind = "mesh"
//!     k = 4
//!     n = 2
//!
//!     [routing]
//!     algorithm = "dor"
//!
//!     [traffic]
//!     message_length = 4
//!     rates = [0.002]
//!
//!     [run]
//!     warmup_cycles = 500
//!     measure_cycles = 5000
//! "#;
//! let scenario = Scenario::from_toml(toml, "tutorial.toml")?;
//! assert_eq!(scenario.nodes(), 16);
//!
//! // 2. Run one load point: the scenario's only rate and seed.
//! let rate = scenario.traffic.rates[0];
//! let seed = scenario.seeds[0];
//! let result = flitsim::engine::run_point(&scenario, rate, seed)?;
//!
//! // 3. Read the latency.
//! let mean = result.stats.mean();
//! println!(
//!     "{} messages, mean latency {mean:.2} cycles, accepted {:.4} flits/node/cycle",
//!     result.stats.count, result.accepted_flits
//! );
//! assert!(result.stats.count > 0);
//! assert!(result.stats.min() >= Some(4 + 1));
//! assert!(mean >= 4.0 + 1.0);
//! assert!(!result.saturated());
//! # Ok::<(), flitsim::Error>(())
//! ```
//!
//! [`output::write_results`] writes a sweep's results as the CSV tables of `flitsim run`.

pub mod cli;
pub mod deadlock;
pub mod engine;
pub mod error;
pub mod experiment;
pub mod huge_pages;
pub mod model;
pub mod network;
pub mod output;
pub(crate) mod records;
pub mod reference;
pub mod routing;
pub mod scenario;
pub mod spec;
pub mod stats;
pub mod sweep;
pub mod threads;
pub mod topology;
pub mod traffic;

pub use error::{Error, Result};
pub use scenario::Scenario;
