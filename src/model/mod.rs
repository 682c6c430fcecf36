//! Analytical results: exact enumeration over source-destination pairs (the reference that
//! the papers' closed forms are checked against).

pub mod enumerate;
