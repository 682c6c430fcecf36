//! The key table's rows of `[traffic]` and `[run]`, each table declared once as its serde
//! struct and its rows (the `table!` macro of `keys.rs`), with the defaults serde fills in.

use super::Allowed::{Ints, Rule, Words};
use super::Need::{Default as D, Optional as O};
use super::{Count, Values, absent};
use super::{Key, Ty};
use crate::spec::PATTERN_NAMES;

table! {
    /// `[traffic]` as written (required).
    RawTraffic, TRAFFIC, "traffic" {
        #[serde(default = "default_pattern")]
        pattern: String => {
            ty: Ty::Str,
            need: D,
            default: "`\"uniform\"`",
            unit: "",
            allowed: Words(&PATTERN_NAMES),
            doc: "where messages go",
        },
        message_length: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "32",
            unit: "flits",
            allowed: Ints(1, 65535),
            doc: "message length M",
        },
        message_lengths: Option<Vec<i64>> => {
            ty: Ty::List(&Ty::Int),
            need: O,
            default: "",
            unit: "flits",
            allowed: Ints(1, 65535),
            doc: "several message lengths instead of `message_length`, each message drawing its length with `length_probabilities`",
        },
        length_probabilities: Option<Vec<f64>> => {
            ty: Ty::List(&Ty::Num),
            need: O,
            default: "",
            unit: "",
            allowed: Rule("each in [0, 1], summing to 1"),
            doc: "the probability of each of `message_lengths`",
        },
        rates: Option<Vec<f64>> => {
            ty: Ty::List(&Ty::Num),
            need: O,
            default: "one of `rates` and `flit_rates` is required (neither with `matrix_scale = \"absolute\"`)",
            unit: "messages/node/cycle",
            allowed: Rule("each > 0"),
            doc: "offered loads λ, one load point each",
        },
        flit_rates: Option<Vec<f64>> => {
            ty: Ty::List(&Ty::Num),
            need: O,
            default: "one of `rates` and `flit_rates` is required (neither with `matrix_scale = \"absolute\"`)",
            unit: "flits/node/cycle",
            allowed: Rule("each in (0, 1]"),
            doc: "offered loads λ·M̄ (M̄ the mean length), one load point each; λ = flit_rate / M̄",
        },
        process: Option<String> => {
            ty: Ty::Str,
            need: O,
            default: "`\"poisson\"`",
            unit: "",
            allowed: Words(&["poisson", "bernoulli", "on-off"]),
            doc: "how each node's messages arrive: Poisson, Bernoulli (one trial per cycle, so λ ≤ 1), or on-off (bursts of `burst_length` messages on average at one message per M̄ cycles, so λ·M̄ < 1); may be swept",
        },
        source_concurrency: Option<Count> => {
            ty: Ty::IntOrStr,
            need: O,
            default: "1",
            unit: "messages",
            allowed: Rule("1..V, or `\"vcs\"` (V; 1 in an m-way network)"),
            doc: "messages of one source injected at once, each in its own injection virtual channel; `\"vcs\"` is paper 000's model",
        },
        pattern_fraction: Option<Values> => {
            ty: Ty::Values,
            need: O,
            default: "1",
            unit: "",
            allowed: Rule("x in [0, 1]"),
            doc: "x: each message follows the pattern with probability x and goes uniform otherwise (paper 002); a list is swept",
        },
        hotspot_node: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "0",
            unit: "",
            allowed: Rule("a node index"),
            doc: "the hot node (`hotspot` only)",
        },
        hotspot_fraction: Option<Values> => {
            ty: Ty::Values,
            need: O,
            default: "required for `hotspot`",
            unit: "",
            allowed: Rule("h in [0, 1]"),
            doc: "h: the fraction of messages sent to the hot node; a list is swept",
        },
        shift_offset: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "required for `shift`",
            unit: "processors",
            allowed: Rule("1..N − 1"),
            doc: "`shift` only: processor q sends to q + offset (mod N)",
        },
        locality_model: Option<String> => {
            ty: Ty::Str,
            need: O,
            default: "`\"decreasing\"`",
            unit: "",
            allowed: Words(&["decreasing", "sphere"]),
            doc: "`locality` only: destinations weighted by distance (`decreasing`) or within a sphere (`sphere`)",
        },
        locality_factor: Option<f64> => {
            ty: Ty::Num,
            need: O,
            default: "required for `decreasing`",
            unit: "",
            allowed: Rule("φ in (0, 1]"),
            doc: "a destination at distance r has weight φ^(r−1)",
        },
        locality_radius: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "required for `sphere`",
            unit: "hops",
            allowed: Ints(1, 1 << 20),
            doc: "L: the sphere's radius",
        },
        locality_probability: Option<f64> => {
            ty: Ty::Num,
            need: O,
            default: "required for `sphere`",
            unit: "",
            allowed: Rule("p in [0, 1]"),
            doc: "p: the probability of a destination within distance L, otherwise uniform",
        },
        matrix: Option<String> => {
            ty: Ty::Str,
            need: O,
            default: "required for `matrix`",
            unit: "",
            allowed: Rule("a CSV file of N rows of N numbers ≥ 0, zero diagonal"),
            doc: "`matrix` only: the traffic matrix's file, relative to the scenario's directory; row s, column d is the rate from processor s to d",
        },
        matrix_scale: Option<String> => {
            ty: Ty::Str,
            need: O,
            default: "`\"relative\"`",
            unit: "",
            allowed: Words(&["relative", "absolute"]),
            doc: "`matrix` only: `relative` scales the cells to the offered loads (source s at λ·N·rowsum(s)/total); `absolute` reads them as flits/cycle, the matrix alone giving the load (no `rates` or `flit_rates`)",
        },
        trace: Option<String> => {
            ty: Ty::Str,
            need: O,
            default: "none: sources generate the messages",
            unit: "",
            allowed: Rule("a netrace v1 file (`.bz2`) or a CSV trace (`.csv`)"),
            doc: "replay this trace instead of sources (no loads, pattern, process or lengths), relative to the scenario's directory: each message is generated at its cycle or once the messages it depends on are delivered, whichever is later",
        },
        speedup: Option<f64> => {
            ty: Ty::Num,
            need: O,
            default: "1",
            unit: "",
            allowed: Rule("> 0"),
            doc: "`trace` only: the trace's cycle c is replayed at ⌊c / speedup⌋",
        },
        trace_flit_bytes: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "8",
            unit: "bytes",
            allowed: Ints(1, 1024),
            doc: "netrace `trace` only: bytes per flit; a packet of b bytes is ⌈b / trace_flit_bytes⌉ flits (8-byte requests 1 flit, 72-byte data 9 at the default)",
        },
    }
    /// The `[traffic]` keys that are plain (see `Plain`): each a typed value with its default.
    plain TrafficOptions {
        burst_length: f64 = 8.0 => {
            unit: "messages",
            allowed: super::Allowed::Between(1.0, 1e6),
            doc: "`on-off` only: B, the mean number of messages of a burst (geometric); the off period's mean is B/λ − B·M̄ cycles",
        },
        reply_length: u32 = 0 => {
            unit: "flits",
            allowed: super::Allowed::Ints(0, 65535),
            doc: "R: every message is a request its destination answers with an R-flit reply, requests and replies in separate virtual-channel classes of V/2 each, latency counted to the reply's tail; 0: no replies",
        },
        max_outstanding: u32 = 0 => {
            unit: "requests",
            allowed: super::Allowed::Ints(0, 1048576),
            doc: "with `reply_length` only: n, the most open requests (sent or queued, reply not yet delivered) of a processor, whose source is suspended at n (a closed loop); 0: unbounded",
        },
    }
}

table! {
    /// `[run]` as written (defaults when absent).
    RawRun, RUN, "run" {
        warmup_cycles: Option<Count> => {
            ty: Ty::IntOrStr,
            need: O,
            default: "10000",
            unit: "cycles",
            allowed: Rule("0..2^40, or `\"auto\"`"),
            doc: "cycles simulated before measuring, their messages discarded; `\"auto\"` ends the warm-up when MSER-5 finds the latency and accepted-load series settled (checked every 500 cycles from cycle 5,000)",
        },
        max_warmup_cycles: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "100000 (with `warmup_cycles = \"auto\"` only)",
            unit: "cycles",
            allowed: Ints(5000, 1 << 40),
            doc: "the longest automatic warm-up; a point still drifting there stops as saturated (`stop = warmup-cap`)",
        },
        #[serde(default = "default_measure")]
        measure_cycles: i64 => {
            ty: Ty::Int,
            need: D,
            default: "100000",
            unit: "cycles",
            allowed: Ints(1, 1 << 40),
            doc: "the measurement window: messages generated in it are measured; at least `batches`",
        },
        precision: Option<f64> => {
            ty: Ty::Num,
            need: O,
            default: "none: one window of `measure_cycles`",
            unit: "",
            allowed: Rule("in (0, 1)"),
            doc: "measure until `latency_ci95` is at most this fraction of `latency_mean`, lengthening the window from `measure_cycles` up to `max_measure_cycles` (`stop = measure-cap` if it is not reached)",
        },
        max_measure_cycles: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "10 · measure_cycles (with `precision` only)",
            unit: "cycles",
            allowed: Ints(1, 1 << 40),
            doc: "the longest window `precision` may lengthen the measurement to; at least `measure_cycles`",
        },
        drain_cycles: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "max(measure_cycles, 10000)",
            unit: "cycles",
            allowed: Ints(0, 1 << 40),
            doc: "how long after the window the run waits for measured messages; hitting it marks the point saturated",
        },
        #[serde(default = "default_watchdog")]
        watchdog_cycles: i64 => {
            ty: Ty::Int,
            need: D,
            default: "10000",
            unit: "cycles",
            allowed: Ints(1, 1 << 31),
            doc: "deadlock watchdog: a buffer whose flits have not moved for this long stops the run (exit code 3)",
        },
        #[serde(default = "default_backlog")]
        max_backlog: i64 => {
            ty: Ty::Int,
            need: D,
            default: "100",
            unit: "messages per node",
            allowed: Ints(1, 1 << 20),
            doc: "when more than `max_backlog` · N messages wait in source queues, the point stops early as saturated",
        },
        #[serde(default = "default_batches")]
        batches: i64 => {
            ty: Ty::Int,
            need: D,
            default: "20",
            unit: "",
            allowed: Ints(2, 1000),
            doc: "batches of the batch-means confidence interval",
        },
        #[serde(default = "default_bin")]
        histogram_bin: i64 => {
            ty: Ty::Int,
            need: D,
            default: "0",
            unit: "cycles",
            allowed: Ints(0, 1 << 20),
            doc: "bin width of `histogram.csv`; 0 chooses, per point, the smallest width giving at most 200 bins",
        },
        #[serde(default)]
        threads_per_point: i64 => {
            ty: Ty::Int,
            need: D,
            default: "0",
            unit: "threads",
            allowed: Ints(0, crate::threads::MAX_THREADS as i64),
            doc: "threads each point's cycle is split across; 0 lets the run choose; results do not depend on it",
        },
    }
}

fn default_pattern() -> String {
    "uniform".into()
}

impl Default for RawRun {
    fn default() -> Self {
        absent()
    }
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
