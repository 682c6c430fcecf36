//! The TOML schema of a scenario file, as written by the user: every key, its type and default.
//! Unknown keys are errors. Validation against ranges and combinations is in `validate.rs`.

use serde::Deserialize;

/// A scenario file as parsed, before validation: one field per table or top-level key.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    /// `name`: the output directory's name.
    pub name: String,
    /// `seed`: the seed of every random stream (default 1).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Replications: one run per seed and load point. Overrides `seed` when given.
    pub seeds: Option<Vec<u64>>,
    /// `[topology]` (required).
    pub topology: RawTopology,
    /// `[router]` (defaults when absent).
    #[serde(default)]
    pub router: RawRouter,
    /// `[routing]` (defaults when absent).
    #[serde(default)]
    pub routing: RawRouting,
    /// `[traffic]` (required).
    pub traffic: RawTraffic,
    /// `[run]` (defaults when absent).
    #[serde(default)]
    pub run: RawRun,
}

fn default_seed() -> u64 {
    1
}

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

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawTopology {
    pub kind: String,
    pub k: Option<Radix>,
    pub n: Option<i64>,
    pub links: Option<String>,
    /// k-ary m-way networks: "torus" or "mesh".
    pub wrap: Option<String>,
    /// k-ary m-way networks: processors linked to "channels" or inside "routers".
    pub processors: Option<String>,
    /// k-ary m-way networks: processors per channel (p).
    pub processor_factor: Option<i64>,
    /// Cycles a flit takes to cross a network link (default 1).
    pub link_latency: Option<i64>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawRouter {
    #[serde(default = "default_vcs")]
    pub vcs: i64,
    #[serde(default = "default_depth")]
    pub buffer_depth: i64,
    /// Early free (paper 004 section 3.5): a buffer takes the next header once the tail of its
    /// message has arrived.
    #[serde(default)]
    pub early_free: bool,
    /// Router delay D: cycles a header takes more before it may cross the crossbar.
    #[serde(default)]
    pub delay: i64,
    /// "per-vc" (an input per virtual channel) or "per-port" (one per input port).
    pub crossbar: Option<String>,
}

impl Default for RawRouter {
    fn default() -> Self {
        RawRouter {
            vcs: default_vcs(),
            buffer_depth: default_depth(),
            early_free: false,
            delay: 0,
            crossbar: None,
        }
    }
}

fn default_vcs() -> i64 {
    2
}
fn default_depth() -> i64 {
    4
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawRouting {
    #[serde(default = "default_algorithm")]
    pub algorithm: String,
    /// Cycles a blocked header waits for an adaptive virtual channel (duato-timeout).
    pub timeout: Option<i64>,
    /// Selection among free adaptive candidates: "random", "least-multiplexed", "most-free".
    pub selection: Option<String>,
    /// Set to false to run a routing the deadlock check refuses (to study deadlock itself).
    #[serde(default = "default_true")]
    pub deadlock_check: bool,
    /// Direction half-way round a bidirectional ring: "plus" or "random".
    pub tie: Option<String>,
    /// When a message takes a ring's upper dateline class: "at-wrap" or "on-entry".
    pub dateline: Option<String>,
}

impl Default for RawRouting {
    fn default() -> Self {
        RawRouting {
            algorithm: default_algorithm(),
            timeout: None,
            selection: None,
            deadlock_check: true,
            tie: None,
            dateline: None,
        }
    }
}

fn default_algorithm() -> String {
    "dor".into()
}
fn default_true() -> bool {
    true
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawTraffic {
    #[serde(default = "default_pattern")]
    pub pattern: String,
    pub message_length: Option<i64>,
    /// Several message lengths, drawn with `length_probabilities` (e.g. bimodal).
    pub message_lengths: Option<Vec<i64>>,
    pub length_probabilities: Option<Vec<f64>>,
    pub rates: Option<Vec<f64>>,
    pub flit_rates: Option<Vec<f64>>,
    /// The arrival process: "poisson" (default) or "bernoulli".
    pub process: Option<String>,
    /// Messages of one source injected at once: a whole number, or "vcs" (one per injection
    /// virtual channel).
    pub source_concurrency: Option<Count>,
    pub pattern_fraction: Option<Values>,
    pub hotspot_node: Option<i64>,
    pub hotspot_fraction: Option<Values>,
    pub locality_model: Option<String>,
    pub locality_factor: Option<f64>,
    pub locality_radius: Option<i64>,
    pub locality_probability: Option<f64>,
}

fn default_pattern() -> String {
    "uniform".into()
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct RawRun {
    #[serde(default = "default_warmup")]
    pub warmup_cycles: i64,
    #[serde(default = "default_measure")]
    pub measure_cycles: i64,
    pub drain_cycles: Option<i64>,
    #[serde(default = "default_watchdog")]
    pub watchdog_cycles: i64,
    #[serde(default = "default_backlog")]
    pub max_backlog: i64,
    #[serde(default = "default_batches")]
    pub batches: i64,
    #[serde(default = "default_bin")]
    pub histogram_bin: i64,
    #[serde(default)]
    pub threads_per_point: i64,
}

impl Default for RawRun {
    fn default() -> Self {
        RawRun {
            warmup_cycles: default_warmup(),
            measure_cycles: default_measure(),
            drain_cycles: None,
            watchdog_cycles: default_watchdog(),
            max_backlog: default_backlog(),
            batches: default_batches(),
            histogram_bin: default_bin(),
            threads_per_point: 0,
        }
    }
}

fn default_warmup() -> i64 {
    10_000
}
fn default_measure() -> i64 {
    100_000
}
fn default_watchdog() -> i64 {
    10_000
}
fn default_backlog() -> i64 {
    100
}
fn default_batches() -> i64 {
    20
}
fn default_bin() -> i64 {
    0
}
