//! summary.csv: one row per load point and seed, its columns listed once in [`SUMMARY`].

use super::columns::{self, Cell, Column, rate, seed};
use crate::stats::PointResult;

/// The doc shared by `latency_min` and `latency_max`.
const EXTREMES: &str = "extremes";
/// The doc shared by `latency_p50`, `latency_p95` and `latency_p99`.
const PERCENTILES: &str = "nearest-rank percentiles (exact, from the integer histogram)";
/// The doc shared by `traffic_pct`, `traffic_min_pct` and `traffic_max_pct`.
const TRAFFIC: &str = "channel utilisation in the window (paper 004's \"traffic\"): mean over the network channels (links of a k-ary n-cube; m-way channels), and the least and most busy channel";
/// The doc shared by `injection_pct` and `ejection_pct`.
const INJECTION: &str = "flits injected (into injection buffers) and ejected per processor per cycle, times 100: paper 004's node injection and ejection rates";

/// The mean of a list (NaN when empty or undefined).
fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// summary.csv's columns in order (after the experiment's coordinates), with the units and docs
/// the book's column reference (docs/src/reference/columns.md) lists.
pub const SUMMARY: &[Column] = &[
    rate(),
    seed(),
    Column {
        name: "offered_flits",
        unit: "flits/node/cycle",
        doc: "λ·M (with `reply_length` R, λ·(M + R): the requests' and their replies' flits)",
        value: |r, _| Cell::Num(r.offered_flits()),
    },
    Column {
        name: "accepted_flits",
        unit: "flits/node/cycle",
        doc: "flits ejected during the window / (N · window cycles)",
        value: |r, _| Cell::Num(r.accepted_flits),
    },
    Column {
        name: "accepted_rate",
        unit: "messages/node/cycle",
        doc: "tails ejected during the window / (N · window cycles) (counts whole messages, so it differs from `accepted_flits`/M by the messages straddling the window's edges)",
        value: |r, _| Cell::Num(r.accepted_rate),
    },
    Column {
        name: "latency_mean",
        unit: "cycles",
        doc: "mean latency: generation to tail ejected, source queueing included",
        value: |r, _| Cell::Num(r.stats.mean()),
    },
    Column {
        name: "latency_ci95",
        unit: "cycles",
        doc: "95% confidence half-width of `latency_mean` by batch means (`batches` batches by generation time, Student t)",
        value: |r, _| Cell::Num(r.stats.ci95()),
    },
    Column {
        name: "network_latency_mean",
        unit: "cycles",
        doc: "head crosses the injection channel → tail ejected; M + h at zero load",
        value: |r, _| Cell::Num(r.stats.network_mean()),
    },
    Column {
        name: "source_wait_mean",
        unit: "cycles",
        doc: "generation → head crosses the injection channel",
        value: |r, _| Cell::Num(r.stats.wait_mean()),
    },
    Column {
        name: "latency_std",
        unit: "cycles",
        doc: "sample standard deviation of latency",
        value: |r, _| Cell::Num(r.stats.std()),
    },
    Column {
        name: "latency_min",
        unit: "cycles",
        doc: EXTREMES,
        value: |r, _| Cell::opt(r.stats.min()),
    },
    Column {
        name: "latency_max",
        unit: "cycles",
        doc: EXTREMES,
        value: |r, _| Cell::opt(r.stats.max()),
    },
    Column {
        name: "latency_p50",
        unit: "cycles",
        doc: PERCENTILES,
        value: |r, _| Cell::opt(r.stats.percentile(0.50)),
    },
    Column {
        name: "latency_p95",
        unit: "cycles",
        doc: PERCENTILES,
        value: |r, _| Cell::opt(r.stats.percentile(0.95)),
    },
    Column {
        name: "latency_p99",
        unit: "cycles",
        doc: PERCENTILES,
        value: |r, _| Cell::opt(r.stats.percentile(0.99)),
    },
    Column {
        name: "hops_mean",
        unit: "links",
        doc: "mean links crossed (m-way: routers passed)",
        value: |r, _| Cell::Num(r.stats.hops_mean()),
    },
    Column {
        name: "nonminimal_fraction",
        unit: "fraction",
        doc: "measured messages routed non-minimally (the dragonfly's `valiant`, `ugal-l`, `ugal-l-vch` and `ugal-g`: through an intermediate group) / measured messages; 0 for minimal routings",
        value: |r, _| Cell::Num(r.stats.nonminimal_fraction()),
    },
    Column {
        name: "adaptive_hop_fraction",
        unit: "fraction",
        doc: "hops onto class-a (adaptive) virtual channels / all network hops of the measured messages; 0 for `dor` and `pcube`, which have no class a; the rest are escape hops",
        value: |r, _| Cell::Num(r.stats.adaptive_hop_fraction()),
    },
    Column {
        name: "timeouts_per_message",
        unit: "count",
        doc: "`duato-timeout` only (0 otherwise): escape (class-b) hops per measured message; each was taken after a time-out (with τ = 0, at once when no class-a channel was free)",
        value: |r, _| Cell::Num(r.stats.timeouts_per_message()),
    },
    Column {
        name: "vbar",
        unit: "virtual channels",
        doc: "measured multiplexing degree V̄ = Σ v² P_v / Σ v P_v (paper 000 eq. 30) of the P_v in `vc_occupancy.csv`; NaN if no virtual channel was ever busy",
        value: |r, _| Cell::Num(r.vbar()),
    },
    Column {
        name: "traffic_pct",
        unit: "% of cycles",
        doc: TRAFFIC,
        value: |r, _| Cell::Num(100.0 * mean(r.channel_use())),
    },
    Column {
        name: "traffic_min_pct",
        unit: "% of cycles",
        doc: TRAFFIC,
        value: |r, _| Cell::Num(100.0 * r.channel_use().iter().copied().fold(f64::NAN, f64::min)),
    },
    Column {
        name: "traffic_max_pct",
        unit: "% of cycles",
        doc: TRAFFIC,
        value: |r, _| Cell::Num(100.0 * r.channel_use().iter().copied().fold(f64::NAN, f64::max)),
    },
    Column {
        name: "injection_pct",
        unit: "% of cycles",
        doc: INJECTION,
        value: |r, _| Cell::Num(100.0 * mean(&r.node_inj_flits)),
    },
    Column {
        name: "ejection_pct",
        unit: "% of cycles",
        doc: INJECTION,
        value: |r, _| Cell::Num(100.0 * mean(&r.node_ej_flits)),
    },
    Column {
        name: "messages",
        unit: "count",
        doc: "messages generated in the window and delivered",
        value: |r, _| Cell::Int(r.stats.count),
    },
    Column {
        name: "undelivered",
        unit: "count",
        doc: "measured messages still in flight when the point stopped",
        value: |r, _| Cell::Int(r.undelivered),
    },
    Column {
        name: "saturated",
        unit: "true/false",
        doc: "the point stopped early (`backlog`, `warmup-cap`), hit the drain cap, the messages generated in the window exceeded those delivered in it by more than 3√G + N (G generated, N nodes: the source queues were filling up), or the flits accepted in the window fell short of those offered by more than 3σ, σ the standard deviation of the flit count N nodes offer in W cycles (σ² = N·W·λf·E[M²] from Poisson sources, N·W·(λf·E[M²] − (λf·E[M])²) from Bernoulli ones; λ messages/node/cycle, f the share sent, M the message length; a stable point falls 3σ short with probability about 0.13%): past saturation, its latency is not a steady-state figure",
        value: |r, _| Cell::bool(r.saturated()),
    },
    Column {
        name: "stop",
        unit: "`drained`, `backlog`, `drain-cap`, `warmup-cap`, `measure-cap`",
        doc: "why the point stopped: every measured message delivered (`drained`; with `[run] precision`, the precision met unless `saturated`), the backlog limit, the drain cap, an automatic warm-up still drifting at `max_warmup_cycles` (`warmup-cap`, saturated, no window), or every measured message delivered but the window at `max_measure_cycles` without meeting `precision` (`measure-cap`)",
        value: |r, _| Cell::Text(r.stop.name()),
    },
    Column {
        name: "warmup_cycles",
        unit: "cycles",
        doc: "warm-up run: `[run] warmup_cycles`, or the automatic warm-up's length (a multiple of 500), or fewer if the point stopped before its window",
        value: |r, _| Cell::Int(r.warmup_cycles),
    },
    Column {
        name: "measure_cycles",
        unit: "cycles",
        doc: "measurement window run: `[run] measure_cycles`, or the window `precision` lengthened it to, or fewer if the point stopped inside it",
        value: |r, _| Cell::Int(r.window_cycles),
    },
    Column {
        name: "cycles",
        unit: "cycles",
        doc: "cycles simulated",
        value: |r, _| Cell::Int(r.cycles),
    },
];

/// summary.csv: one row per load point, the columns of [`SUMMARY`].
pub fn summary_csv(results: &[PointResult]) -> String {
    super::csv_text(
        &columns::names(SUMMARY),
        results.iter().map(|r| columns::cells(SUMMARY, r, &())),
    )
}
