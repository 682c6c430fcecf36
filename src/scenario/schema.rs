//! The TOML schema of a scenario file, as written by the user: the `Raw*` structs, declared with
//! the key table (`keys/`), and the value types several keys share. Unknown keys are errors.
//! Validation against ranges and combinations is in `validate.rs`.

use serde::Deserialize;

pub use super::keys::{RawRouter, RawRouting, RawScenario, RawTopology, RawTraffic};

/// A radix: one number for every dimension, or a list with one per dimension.
#[derive(Deserialize, Debug, Clone)]
#[serde(
    untagged,
    expecting = "invalid value, expected a whole number or a list of whole numbers"
)]
pub enum Radix {
    One(i64),
    PerDim(Vec<i64>),
}

/// A number, or a list of numbers to sweep over.
#[derive(Deserialize, Debug, Clone)]
#[serde(untagged, expecting = "a number or a list of numbers")]
pub enum Values {
    One(f64),
    Many(Vec<f64>),
}

impl Values {
    pub fn to_vec(&self) -> Vec<f64> {
        match self {
            Values::One(x) => vec![*x],
            Values::Many(v) => v.clone(),
        }
    }
}

/// A count given as a whole number or by name (e.g. `source_concurrency = "vcs"`).
#[derive(Deserialize, Debug, Clone)]
#[serde(untagged, expecting = "a whole number or a string")]
pub enum Count {
    Number(i64),
    Name(String),
}
