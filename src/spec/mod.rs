//! The typed spec of a study: a validated scenario's network, router, routing, traffic and
//! run, as plain data. A leaf below the layers that read it (topology, network, routing,
//! traffic, stats); `scenario` loads and validates it from TOML, and each type's behaviour
//! beyond naming lives with the code it drives (`Algorithm::check` in `routing`).

pub mod keys;
mod routing;
mod topology;
mod trace;

pub use routing::{Algorithm, Dateline, Tie, UpPorts, default_conventions};
pub use topology::{DragonflyShape, Family, Kind, Placement, TopologySpec};
pub use trace::{TraceFormat, TraceMessages, TraceSpec};

/// A validated scenario: every value in range, every combination possible.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Scenario {
    /// `name`: names the output directory `results/<name>/`.
    pub name: String,
    /// Replications: every load point runs once per seed (`seeds`, or the one `seed`).
    pub seeds: Vec<u64>,
    /// `[topology]`: the network's family, wrap and radices.
    pub topology: TopologySpec,
    /// `[router]`: virtual channels, buffer depth, early free.
    pub router: RouterSpec,
    /// `[routing]`: algorithm, time-out, selection function, deadlock check.
    pub routing: RoutingSpec,
    /// `[traffic]`: pattern, message lengths and offered loads.
    pub traffic: TrafficSpec,
    /// `[run]`: warm-up, measurement, drain and watchdog lengths in cycles.
    pub run: RunSpec,
}

/// The validated `[router]` table: the virtual-channel buffers of every channel.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RouterSpec {
    /// Virtual channels per physical channel (V).
    pub vcs: u32,
    /// Flits per virtual channel.
    pub buffer_depth: u32,
    /// Buffers free once the tail has arrived (paper 004 section 3.5; dimension-order only).
    pub early_free: bool,
    /// Router delay D in cycles (`[router] delay`, default 0).
    pub delay: u32,
    /// Cycles a flit takes across a network link (`[topology] link_latency`, default 1).
    pub link_latency: u32,
    /// Cycles a flit takes across a dragonfly's global channel (`[topology] global_latency`;
    /// None: `link_latency`); left out of the serialized scenario when not given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_latency: Option<u32>,
    /// Crossbar inputs per virtual channel or per port (`[router] crossbar`).
    pub crossbar: Crossbar,
    /// The `[router]` keys that are plain: each a typed value with its default.
    #[serde(flatten)]
    pub options: keys::RouterOptions,
}

/// How many flits an input port may send per cycle (`[router] crossbar`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Crossbar {
    /// One crossbar input per virtual channel (paper 000's (n+1)V-way crossbar).
    PerVc,
    /// One crossbar input per port: at most one flit per input port per cycle.
    PerPort,
}

impl Crossbar {
    /// Both crossbars, in the order messages list them.
    pub const ALL: [Crossbar; 2] = [Crossbar::PerVc, Crossbar::PerPort];

    /// The scenario name.
    pub fn name(self) -> &'static str {
        match self {
            Crossbar::PerVc => "per-vc",
            Crossbar::PerPort => "per-port",
        }
    }
}

/// How a header chooses among free candidates of the same priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Selection {
    /// Uniformly at random among the free virtual channels (paper 000 assumption f).
    Random,
    /// The physical channel with the fewest busy virtual channels; ties at random.
    LeastMultiplexed,
    /// The physical channel whose eligible virtual channels have the most free flit slots;
    /// ties at random.
    MostFree,
    /// The (way, class) with the most free buffers (paper 004 Definition 4's avail); ties at
    /// random.
    Avail,
}

impl Selection {
    /// Every selection function, in the order messages list them.
    pub const ALL: [Selection; 4] = [
        Selection::Random,
        Selection::LeastMultiplexed,
        Selection::MostFree,
        Selection::Avail,
    ];

    /// The name in scenarios and tables.
    pub fn name(self) -> &'static str {
        match self {
            Selection::Random => "random",
            Selection::LeastMultiplexed => "least-multiplexed",
            Selection::MostFree => "most-free",
            Selection::Avail => "avail",
        }
    }
}

/// How each node's messages arrive (`[traffic] process`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Process {
    /// Exponential inter-arrival times of mean 1/λ in continuous time, an arrival joining its
    /// queue in the cycle it falls in (papers' assumption a); several may fall in one cycle.
    #[default]
    Poisson,
    /// One trial per cycle, succeeding with probability λ ≤ 1 (BookSim's injection process):
    /// at most one arrival per node per cycle.
    Bernoulli,
    /// A two-state Markov-modulated source: bursts of Bernoulli trials at the peak rate (one
    /// message per M̄ cycles), each burst's message count geometric of mean `burst_length`,
    /// separated by geometric off periods whose mean makes the long-run rate λ.
    OnOff,
}

impl Process {
    /// Every arrival process, in the order messages list them.
    pub const ALL: [Process; 3] = [Process::Poisson, Process::Bernoulli, Process::OnOff];

    /// The name in scenarios and tables.
    pub fn name(self) -> &'static str {
        match self {
            Process::Poisson => "poisson",
            Process::Bernoulli => "bernoulli",
            Process::OnOff => "on-off",
        }
    }

    /// The default: a scenario serializes without it, so that the points' keys (and the
    /// records cached under them) stay what they were before the key existed.
    pub fn is_poisson(&self) -> bool {
        *self == Process::Poisson
    }
}

/// The validated `[routing]` table.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RoutingSpec {
    /// The routing algorithm (`[routing] algorithm`).
    pub algorithm: Algorithm,
    /// Time-out τ in cycles (duato-timeout only).
    pub timeout: u64,
    /// How a header chooses among free candidates of equal tier.
    pub selection: Selection,
    /// Refuse routings known to deadlock on this network; false runs them to study deadlock.
    pub deadlock_check: bool,
    /// Direction of a message half-way round a bidirectional ring (`[routing] tie`).
    pub tie: Tie,
    /// When a message takes a ring's upper dateline class (`[routing] dateline`).
    pub dateline: Dateline,
    /// `nca`'s choice of up ports (`[routing] up`); None for the other routings, and left out
    /// of the serialized scenario then, so that their points' keys are unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub up: Option<UpPorts>,
}

/// Where messages go (README: Traffic patterns).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    /// Every processor but the source equally likely (paper 000's assumption).
    Uniform,
    /// A fraction of messages to one hot node, the rest uniform (paper 002).
    Hotspot {
        /// The hot node's index (`hotspot_node`).
        node: u32,
        /// h: the fraction of messages sent to the hot node (`hotspot_fraction`).
        fraction: f64,
    },
    /// Reverse the address bits (paper 002).
    BitReversal,
    /// Swap the halves of the address (paper 002); coordinates on non-power-of-two networks.
    MatrixTranspose,
    /// Complement every coordinate: a → k − 1 − a.
    BitComplement,
    /// a → a + ⌈k/2⌉ − 1 (mod k) in every dimension.
    Tornado,
    /// a → a + 1 (mod k) in every dimension.
    Neighbor,
    /// A random permutation fixed by the seed (`"permutation"` or `"random-permutation"`).
    Permutation,
    /// Processor q sends to q + offset (mod N).
    Shift {
        /// The offset in processor ids (`shift_offset`).
        offset: u32,
    },
    /// A dragonfly's adversarial pattern: every processor of group i sends to a random
    /// processor of group i + 1 (mod g) (Kim et al. 2008).
    GroupShift,
    /// Destinations weighted by distance from the source (`locality_model`).
    Locality(Locality),
    /// A traffic matrix read from a CSV file (`matrix`): the spec's [`TrafficSpec::matrix`].
    Matrix,
}

/// Communication locality models.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Locality {
    /// Reed and Fujimoto's decreasing probability: a destination at distance r has weight
    /// φ^(r−1) (paper 001).
    Decreasing {
        /// φ in (0, 1]: the weight ratio between successive distances.
        factor: f64,
    },
    /// With probability p a uniform destination within distance L, otherwise uniform.
    Sphere {
        /// L: the sphere's radius in hops.
        radius: u32,
        /// p: the probability of a destination inside the sphere.
        probability: f64,
    },
}

/// Every pattern's name, in the order messages list them (`Pattern::name` gives each).
pub const PATTERN_NAMES: [&str; 13] = [
    "uniform",
    "hotspot",
    "bit-reversal",
    "matrix-transpose",
    "bit-complement",
    "tornado",
    "neighbor",
    "permutation",
    "random-permutation",
    "shift",
    "group-shift",
    "locality",
    "matrix",
];

/// Names quoted and joined as messages list choices: `"a", "b" or "c"`.
pub fn quoted_choices(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    match q.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => q.join(""),
    }
}

impl Pattern {
    /// The name in scenarios and tables (one of [`PATTERN_NAMES`]).
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Uniform => "uniform",
            Pattern::Hotspot { .. } => "hotspot",
            Pattern::BitReversal => "bit-reversal",
            Pattern::MatrixTranspose => "matrix-transpose",
            Pattern::BitComplement => "bit-complement",
            Pattern::Tornado => "tornado",
            Pattern::Neighbor => "neighbor",
            Pattern::Permutation => "permutation",
            Pattern::Shift { .. } => "shift",
            Pattern::GroupShift => "group-shift",
            Pattern::Locality(_) => "locality",
            Pattern::Matrix => "matrix",
        }
    }
}

/// The validated `[traffic]` table.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TrafficSpec {
    /// Where messages go.
    pub pattern: Pattern,
    /// x: each message follows the pattern with probability x, else goes uniform (paper 002).
    pub pattern_fraction: f64,
    /// Every x of the sweep (`pattern_fraction` is one of them).
    pub pattern_fractions: Vec<f64>,
    /// Every hotspot fraction h of the sweep (hotspot pattern only).
    pub hotspot_fractions: Vec<f64>,
    /// Message lengths in flits, and the probability of each.
    pub lengths: Vec<u32>,
    /// The probability of each of `lengths` (summing to 1).
    pub length_probabilities: Vec<f64>,
    /// Offered loads λ in messages/node/cycle, one per load point.
    pub rates: Vec<f64>,
    /// How messages arrive at each node (`process`); left out of the serialized scenario
    /// when Poisson (the default), so that a Poisson point's key is unchanged.
    #[serde(skip_serializing_if = "Process::is_poisson")]
    pub process: Process,
    /// Messages of one source that may hold injection virtual channels at once
    /// (`source_concurrency`, with "vcs" resolved to the injection virtual channels); left out
    /// of the serialized scenario when 1 (the default), so that such a point's key is unchanged.
    #[serde(skip_serializing_if = "is_one")]
    pub source_concurrency: u32,
    /// The loads as the scenario gave them in flits/node/cycle (`flit_rates`), if it did;
    /// `rates` are these divided by the mean length.
    pub flit_rates: Option<Vec<f64>>,
    /// The `[traffic]` keys that are plain: each a typed value with its default.
    #[serde(flatten)]
    pub options: keys::TrafficOptions,
    /// The traffic matrix of the `matrix` pattern (None for the others, and left out of the
    /// serialized scenario then, so that their points' keys are unchanged).
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "shared")]
    pub matrix: Option<std::sync::Arc<TrafficMatrix>>,
    /// The trace replayed instead of sources (`[traffic] trace`), or None (left out of the
    /// serialized scenario then, so that other points' keys are unchanged).
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "shared")]
    pub trace: Option<std::sync::Arc<TraceSpec>>,
}

/// Serializes a shared traffic matrix (or trace) as the thing itself.
fn shared<T: serde::Serialize, S: serde::Serializer>(
    m: &Option<std::sync::Arc<T>>,
    s: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&m.as_deref(), s)
}

/// A traffic matrix (`[traffic] matrix`): N x N non-negative cells, row = source, column =
/// destination, with a zero diagonal and a positive total.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TrafficMatrix {
    /// The file as the scenario names it.
    pub file: String,
    /// The FNV-1a hash of the file's bytes as 16 hex digits: a point's key changes with them.
    pub hash: String,
    /// The cells are flits/cycle from source to destination (`matrix_scale = "absolute"`),
    /// rather than relative rates scaled to the offered load.
    pub absolute: bool,
    /// The cells, row by row (N² of them); not serialized (the hash stands for them).
    #[serde(skip)]
    pub cells: Vec<f64>,
    /// N, the processors.
    #[serde(skip)]
    pub n: usize,
}

impl TrafficMatrix {
    /// Row `s`: the relative rates from source `s` to every destination.
    pub fn row(&self, s: usize) -> &[f64] {
        &self.cells[s * self.n..(s + 1) * self.n]
    }

    /// The sum of every cell.
    pub fn total(&self) -> f64 {
        self.cells.iter().sum()
    }

    /// Each source's share of the load relative to the mean source: N·rowsum(s)/total, so that
    /// source s generates at λ times it.
    pub fn weights(&self) -> Vec<f64> {
        let total = self.total();
        (0..self.n)
            .map(|s| self.n as f64 * self.row(s).iter().sum::<f64>() / total)
            .collect()
    }
}

/// True for 1: a default count left out of serialized scenarios.
fn is_one(n: &u32) -> bool {
    *n == 1
}

impl TrafficSpec {
    /// Mean message length in flits.
    pub fn mean_length(&self) -> f64 {
        self.lengths
            .iter()
            .zip(&self.length_probabilities)
            .map(|(&l, &p)| l as f64 * p)
            .sum()
    }
}

/// The validated `[run]` table: the phases of one load point, in cycles.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunSpec {
    /// Cycles simulated before measuring; their messages are discarded (0 with an automatic
    /// warm-up, whose length the run decides).
    pub warmup_cycles: u64,
    /// `warmup_cycles = "auto"`: the longest warm-up (`max_warmup_cycles`); None for the
    /// fixed `warmup_cycles`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_warmup: Option<u64>,
    /// `precision`: the window lengthens until the latency's half-width meets it; None for
    /// one window of `measure_cycles`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precision: Option<Precision>,
    /// The measurement window in cycles: messages generated in it are measured.
    pub measure_cycles: u64,
    /// Cycles after the window to wait for measured messages; hitting it marks saturation.
    pub drain_cycles: u64,
    /// Deadlock watchdog: flits unmoved in a buffer for this many cycles stop the run.
    pub watchdog_cycles: u64,
    /// A point stops as saturated when more than this many messages per node wait at sources.
    pub max_backlog: u64,
    /// Batches of the batch-means confidence interval of the mean latency.
    pub batches: u32,
    /// Bin width of histogram.csv in cycles; 0 chooses, per point, the smallest width that
    /// gives at most 200 bins.
    pub histogram_bin: u64,
    /// Threads each point's cycle is split across; 0 lets the run choose (a large point
    /// splits when the run has fewer points than threads). Results do not depend on it, so it
    /// is no part of a point's key.
    #[serde(skip)]
    pub threads_per_point: usize,
}

/// The `[run]` precision target: measure until the 95% half-width of the mean latency is at
/// most `fraction` of it, with a window of at most `max_measure_cycles`.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Precision {
    /// The largest half-width, as a fraction of the mean latency (`precision`).
    pub fraction: f64,
    /// The longest window (`max_measure_cycles`).
    pub max_measure_cycles: u64,
}

impl RunSpec {
    /// The longest warm-up a point may run: `max_warmup_cycles` when automatic, else
    /// `warmup_cycles`.
    pub fn max_warmup(&self) -> u64 {
        self.auto_warmup.unwrap_or(self.warmup_cycles)
    }

    /// The longest window a point may measure: `max_measure_cycles` with a precision, else
    /// `measure_cycles`.
    pub fn max_measure(&self) -> u64 {
        self.precision
            .map_or(self.measure_cycles, |p| p.max_measure_cycles)
    }
}

// The specs' defaults: what a scenario leaving a table's keys out resolves to (on a mesh,
// where `tie` and `dateline` have their papers' values), so that code and tests building a
// spec name only the fields they set (`..Default::default()`).

impl Default for RouterSpec {
    fn default() -> Self {
        RouterSpec {
            vcs: 2,
            buffer_depth: 4,
            early_free: false,
            delay: 0,
            link_latency: 1,
            global_latency: None,
            crossbar: Crossbar::PerVc,
            options: Default::default(),
        }
    }
}

impl Default for RoutingSpec {
    fn default() -> Self {
        RoutingSpec {
            algorithm: Algorithm::Dor,
            timeout: 0,
            selection: Selection::Random,
            deadlock_check: true,
            tie: Tie::Plus,
            dateline: Dateline::AtWrap,
            up: None,
        }
    }
}

/// Uniform traffic of 32-flit messages, Poisson arrivals, one message at a time per source,
/// and no load points (`rates` is empty: a scenario must give its loads).
impl Default for TrafficSpec {
    fn default() -> Self {
        TrafficSpec {
            pattern: Pattern::Uniform,
            pattern_fraction: 1.0,
            pattern_fractions: vec![1.0],
            hotspot_fractions: Vec::new(),
            lengths: vec![32],
            length_probabilities: vec![1.0],
            rates: Vec::new(),
            process: Process::Poisson,
            source_concurrency: 1,
            flit_rates: None,
            options: Default::default(),
            matrix: None,
            trace: None,
        }
    }
}

impl Default for RunSpec {
    fn default() -> Self {
        RunSpec {
            warmup_cycles: 10_000,
            auto_warmup: None,
            precision: None,
            measure_cycles: 100_000,
            drain_cycles: 100_000,
            watchdog_cycles: 10_000,
            max_backlog: 100,
            batches: 20,
            histogram_bin: 0,
            threads_per_point: 0,
        }
    }
}
