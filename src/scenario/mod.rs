//! Scenarios: the TOML file a user writes, parsed and validated into a `Scenario`.
//!
//! Every error names the file, the key and a fix, and is reported before anything is written.

mod schema;
mod validate;

use crate::error::{Error, Result};
use crate::topology::Kind;
use std::path::Path;

pub use schema::RawScenario;

/// A validated scenario: every value in range, every combination possible.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub seeds: Vec<u64>,
    pub topology: TopologySpec,
    pub router: RouterSpec,
    pub routing: RoutingSpec,
    pub traffic: TrafficSpec,
    pub run: RunSpec,
}

#[derive(Clone, Debug)]
pub struct TopologySpec {
    pub kind: Kind,
    pub radix: Vec<u32>,
    /// Torus links in both directions (always true for mesh and hypercube).
    pub bidirectional: bool,
}

#[derive(Clone, Debug)]
pub struct RouterSpec {
    /// Virtual channels per physical channel (V).
    pub vcs: u32,
    /// Flits per virtual channel.
    pub buffer_depth: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Dimension-order (e-cube) routing, lowest dimension first; dateline classes on a torus.
    Dor,
}

impl Algorithm {
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Dor => "dor",
        }
    }
}

#[derive(Clone, Debug)]
pub struct RoutingSpec {
    pub algorithm: Algorithm,
    pub deadlock_check: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    Uniform,
}

#[derive(Clone, Debug)]
pub struct TrafficSpec {
    pub pattern: Pattern,
    /// Message length M in flits.
    pub message_length: u32,
    /// Offered loads λ in messages/node/cycle, one per load point.
    pub rates: Vec<f64>,
}

#[derive(Clone, Debug)]
pub struct RunSpec {
    pub warmup_cycles: u64,
    pub measure_cycles: u64,
    pub drain_cycles: u64,
    pub watchdog_cycles: u64,
    /// A point stops as saturated when more than this many messages per node wait at sources.
    pub max_backlog: u64,
    pub batches: u32,
    pub histogram_bin: u64,
}

impl Scenario {
    /// Reads and validates a scenario file.
    pub fn load(path: &Path) -> Result<Scenario> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::Input(format!(
                "{file}: cannot read the scenario file ({e}); fix: give the path of an existing .toml file"
            ))
        })?;
        Self::from_toml(&text, &file)
    }

    /// Parses and validates scenario text; `file` names it in error messages.
    pub fn from_toml(text: &str, file: &str) -> Result<Scenario> {
        let raw: RawScenario =
            toml::from_str(text).map_err(|e| Error::Input(toml_error(file, text, &e)))?;
        validate::validate(raw, file)
    }

    pub fn nodes(&self) -> usize {
        self.topology.radix.iter().map(|&k| k as usize).product()
    }
}

/// One line for a TOML error: `file:line:col: [table] message`.
fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> String {
    let msg = e.message().trim().replace('\n', " ");
    let Some(span) = e.span() else {
        return format!("{file}: {msg}");
    };
    let before = &text[..span.start.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    let table = before
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('[') && l.ends_with(']'))
        .map(|t| format!("{t} "))
        .unwrap_or_default();
    let line_text = text.lines().nth(line - 1).unwrap_or("").trim();
    format!("{file}:{line}:{col}: {table}{msg} (at `{line_text}`)")
}
