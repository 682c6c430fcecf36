//! flitsim: a flit-level, cycle-accurate simulator of wormhole-switched interconnection
//! networks (k-ary n-cubes, meshes, hypercubes) driven by TOML scenarios.
//!
//! The public API: load a [`Scenario`], run it with [`sweep::run_sweep`] (or one point with
//! [`engine::run_point`]), write the CSVs with [`output::write_results`].

pub mod engine;
pub mod error;
pub mod model;
pub mod network;
pub mod output;
pub mod routing;
pub mod scenario;
pub mod stats;
pub mod sweep;
pub mod topology;
pub mod traffic;

pub use error::{Error, Result};
pub use scenario::Scenario;
