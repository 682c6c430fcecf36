//! The most threads one point's cycle is split across (`[run] threads_per_point`): a leaf, so
//! that the scenario's check and the engine's split read one limit without depending on each
//! other.

/// The most threads one point is split across.
pub const MAX_THREADS: usize = 64;
