//! The results of one load point and the window arithmetic that turns the engine's counts over
//! the measurement window (its channels' counts, kept only inside the window, and its
//! network-wide counters at the end less those at the start) into per-cycle rates.

use super::LatencyStats;
use crate::network::Network;
use crate::spec::Process;

/// The engine's counts over a measurement window: flits and headers per channel, flits and
/// messages ejected, messages generated.
#[derive(Clone, Debug)]
pub struct Counters {
    /// Flits that crossed each channel in the window.
    pub flits: Vec<u64>,
    /// Headers (messages) that crossed each channel in the window.
    pub msgs: Vec<u64>,
    /// Flits ejected.
    pub ejected_flits: u64,
    /// Messages ejected.
    pub ejected_msgs: u64,
    /// Messages generated.
    pub generated: u64,
}

/// What a point's run measured, beyond the counters: the measurement window, why it stopped,
/// and the engine's per-message statistics and occupancy.
pub struct Measured {
    /// Offered load λ in messages/node/cycle, and the seed.
    pub rate: f64,
    /// The seed of the point.
    pub seed: u64,
    /// The traffic variant: pattern fraction x and hotspot fraction h.
    pub variant: (f64, Option<f64>),
    /// Mean message length in flits.
    pub mean_length: f64,
    /// R, the replies' length in flits (0: no replies).
    pub reply_length: u16,
    /// Fraction of generated messages actually sent.
    pub offered_fraction: f64,
    /// Variance per node and cycle of the flits the sources offer ([`offered_variance`]).
    pub offered_variance: f64,
    /// Cycles of warm-up run (the automatic warm-up's length as decided, or the cycles run
    /// when the point stopped before its window).
    pub warmup_cycles: u64,
    /// Cycles of the measurement window actually run.
    pub window_cycles: u64,
    /// Measured messages never delivered.
    pub undelivered: u64,
    /// Why the point stopped, and the cycle it stopped at.
    pub stop: StopReason,
    /// The cycle the point stopped at.
    pub cycles: u64,
    /// Latency statistics of the measured messages.
    pub stats: LatencyStats,
    /// P_v over the window.
    pub vc_occupancy: Vec<f64>,
}

/// How many standard deviations of the offered flit count the window's accepted flits may fall
/// short of it at a stable load ([`PointResult::shortfall`]). At 3, a stable point is called
/// saturated with probability at most Φ(−3) = 0.13% (the offered count is Poisson or binomial,
/// whose lower tail is lighter than the normal's), and a load past the knee is called stable
/// only while its window's shortfall is within 3σ: 3/√G of the load for G messages of one
/// length offered in the window (1.7% on the 8x8 mesh's 50,000-cycle window near its knee).
pub const SHORTFALL_SIGMAS: f64 = 3.0;

/// The variance per node and cycle of the flits the sources offer, for arrival `process` at
/// λ = `rate` messages/node/cycle of which the share `fraction` (f) is sent, of lengths with
/// moments E\[M\] = `m1` and E\[M²\] = `m2`, on-off bursts shaped by `burst`. Poisson: each
/// source's sent messages are a Poisson stream, a compound Poisson count of variance
/// λ·f·E\[M²\]. Bernoulli (one trial per cycle, source s sending with probability λ·p_s,
/// Σp_s = f·N): λ·f·E\[M²\] − (λ·f·E\[M\])², exact when every source sends alike and otherwise
/// larger than the exact λ·f·E\[M²\] − λ²·E\[M\]²·Σp_s²/N (Σp_s² ≥ (Σp_s)²/N), so the
/// tolerance errs towards stable. On-off, a renewal process of gaps of variance σ²: its count
/// has variance σ²λ³ per cycle, thinned by f to f²σ²λ³ + f(1 − f)λ, compounded with the lengths.
pub fn offered_variance(
    process: Process,
    rate: f64,
    fraction: f64,
    m1: f64,
    m2: f64,
    burst: crate::traffic::Burst,
) -> f64 {
    let sent = rate * fraction;
    match process {
        Process::Poisson => sent * m2,
        Process::Bernoulli => sent * m2 - (sent * m1).powi(2),
        Process::OnOff => {
            let count = fraction.powi(2) * burst.gap_variance(rate) * rate.powi(3)
                + fraction * (1.0 - fraction) * rate;
            sent * (m2 - m1 * m1) + m1 * m1 * count
        }
    }
}

/// `(now − then) / div`, NaN for an empty window.
fn per(now: u64, then: u64, div: f64) -> f64 {
    if div > 0.0 {
        (now - then) as f64 / div
    } else {
        f64::NAN
    }
}

/// Why a point stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum StopReason {
    /// Every measured message was delivered.
    Drained,
    /// Source queues grew past the backlog limit: offered load above saturation.
    Backlog,
    /// The drain cap was hit with measured messages still in flight.
    DrainCap,
    /// An automatic warm-up reached `max_warmup_cycles` still drifting: saturated, no window.
    WarmupCap,
    /// Every measured message was delivered, but the window reached `max_measure_cycles`
    /// without the latency's half-width meeting `precision`.
    MeasureCap,
}

impl StopReason {
    /// The reason as summary.csv's `stop` column writes it.
    pub fn name(self) -> &'static str {
        match self {
            StopReason::Drained => "drained",
            StopReason::Backlog => "backlog",
            StopReason::DrainCap => "drain-cap",
            StopReason::WarmupCap => "warmup-cap",
            StopReason::MeasureCap => "measure-cap",
        }
    }
}

/// Results of one load point.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PointResult {
    /// Offered load λ in messages/node/cycle.
    pub rate: f64,
    /// The seed of the point.
    pub seed: u64,
    /// The traffic variant: pattern fraction x and hotspot fraction h (hotspot only).
    pub pattern_fraction: f64,
    /// The hotspot fraction h (hotspot only).
    pub hotspot_fraction: Option<f64>,
    /// Mean message length in flits.
    pub mean_length: f64,
    /// Fraction of generated messages actually sent (nodes a pattern maps onto themselves
    /// send nothing).
    pub offered_fraction: f64,
    /// R, the replies' length in flits (0: no replies): each request sent brings R flits more
    /// into the network, which `offered_flits` counts.
    #[serde(default)]
    pub reply_length: u16,
    /// Variance per node and cycle of the flits the sources offer, replies included
    /// ([`offered_variance`]): a window of W cycles on N nodes offers a count of flits whose
    /// variance is N·W times this.
    pub offered_variance: f64,
    /// Processors.
    pub nodes: u32,
    /// Cycles of warm-up run: the fixed or automatic warm-up, or fewer if the point stopped
    /// before its window.
    pub warmup_cycles: u64,
    /// Cycles of the measurement window actually run (shorter if stopped early).
    pub window_cycles: u64,
    /// Flits ejected per node per cycle in the window.
    pub accepted_flits: f64,
    /// Messages ejected per node per cycle in the window.
    pub accepted_rate: f64,
    /// Latency statistics of the measured messages.
    pub stats: LatencyStats,
    /// Measured messages never delivered (drain cap or early stop).
    pub undelivered: u64,
    /// Messages generated during the window.
    pub window_generated: u64,
    /// Messages delivered (any message) during the window.
    pub window_delivered: u64,
    /// Why the point stopped.
    pub stop: StopReason,
    /// The cycle it stopped at.
    pub cycles: u64,
    /// Per network link, in the order of `Topology::links_in_order`: flits and headers that
    /// crossed it in the window, per cycle.
    pub link_flits: Vec<f64>,
    /// Per network link, in the same order: headers that crossed it per cycle in the window.
    pub link_msgs: Vec<f64>,
    /// Per node, per cycle in the window: flits and messages (heads) injected, and flits and
    /// messages (heads) ejected.
    pub node_inj_flits: Vec<f64>,
    /// Per node: messages (heads) injected per cycle.
    pub node_inj_msgs: Vec<f64>,
    /// Per node: flits ejected per cycle.
    pub node_ej_flits: Vec<f64>,
    /// Per node: messages (heads) ejected per cycle.
    pub node_ej_msgs: Vec<f64>,
    /// P_v: fraction of link-cycles in the window with v busy virtual channels, v = 0..V.
    pub vc_occupancy: Vec<f64>,
    /// Per m-way channel (empty for k-ary n-cubes): flits it carried per cycle in the window,
    /// from router buffers and injection buffers into router buffers and ejection buffers.
    pub mway_channel_flits: Vec<f64>,
    /// The load as the scenario gave it in flits/node/cycle (`flit_rates`), if it did: the
    /// offered load is written as given, never as `rate` × M recomputed.
    pub given_flit_rate: Option<f64>,
    /// A trace replay's own results (`[traffic] trace`), None for sources.
    pub trace: Option<super::TraceStats>,
}

impl PointResult {
    /// The point's results from the counts of its window (`Engine::window_counts`); messages
    /// generated count from the start to the end of the window.
    pub fn from_window(net: &Network, m: Measured, w: &Counters) -> PointResult {
        let wc = m.window_cycles as f64;
        let nodes = net.nodes as usize;
        let links = net.links as usize;
        let att = net.attach as usize;
        let inj = net.injection_channel(0) as usize;
        let ej = net.ejection_channel(0) as usize;
        // A processor's channels of one kind, summed, per cycle of the window.
        let per_node = |first: usize, counts: &[u64]| -> Vec<f64> {
            (0..nodes)
                .map(|p| {
                    let c = first + p * att;
                    per(counts[c..c + att].iter().sum::<u64>(), 0, wc)
                })
                .collect()
        };
        // Each link's count per cycle, in the order the tables list links.
        let in_order = |counts: &[u64]| -> Vec<f64> {
            let order = net.topology.links_in_order();
            order.map(|l| per(counts[l as usize], 0, wc)).collect()
        };
        let node_cycles = wc * nodes as f64;
        PointResult {
            rate: m.rate,
            seed: m.seed,
            pattern_fraction: m.variant.0,
            hotspot_fraction: m.variant.1,
            mean_length: m.mean_length,
            offered_fraction: m.offered_fraction,
            reply_length: m.reply_length,
            offered_variance: m.offered_variance,
            nodes: net.nodes,
            warmup_cycles: m.warmup_cycles,
            window_cycles: m.window_cycles,
            accepted_flits: per(w.ejected_flits, 0, node_cycles),
            accepted_rate: per(w.ejected_msgs, 0, node_cycles),
            undelivered: m.undelivered,
            window_generated: w.generated,
            window_delivered: w.ejected_msgs,
            stats: m.stats,
            stop: m.stop,
            cycles: m.cycles,
            link_flits: in_order(&w.flits),
            link_msgs: in_order(&w.msgs),
            node_inj_flits: per_node(inj, &w.flits),
            node_inj_msgs: per_node(inj, &w.msgs),
            node_ej_flits: per_node(ej, &w.flits),
            node_ej_msgs: per_node(ej, &w.msgs),
            mway_channel_flits: if net.shared {
                // Each link and ejection channel is read from the m-way channel it leaves.
                let mut v = vec![0u64; net.routers()];
                for c in (0..links).chain(ej..ej + nodes * att) {
                    v[net.arb_of[c] as usize] += w.flits[c];
                }
                v.into_iter().map(|x| per(x, 0, wc)).collect()
            } else {
                Vec::new()
            },
            vc_occupancy: m.vc_occupancy,
            given_flit_rate: None,
            trace: None,
        }
    }

    /// The measured multiplexing degree V̄ (paper 000 eq. 30); NaN when no virtual channel
    /// was busy in the window.
    pub fn vbar(&self) -> f64 {
        super::multiplexing_degree(&self.vc_occupancy).unwrap_or(f64::NAN)
    }

    /// Saturated: the point stopped early (backlog, drain cap or warm-up cap); or the messages generated in
    /// the window exceed those delivered in it by more than 3√G + N (G generated, N nodes: the
    /// source queues and network filled up; a stable network's population changes by far
    /// less); or the flits accepted in the window fall short of those offered by more than
    /// [`SHORTFALL_SIGMAS`] standard deviations of the offered count ([`Self::shortfall`]).
    pub fn saturated(&self) -> bool {
        let g = self.window_generated as f64;
        let deficit = g - self.window_delivered as f64;
        !matches!(self.stop, StopReason::Drained | StopReason::MeasureCap)
            || deficit > 3.0 * g.sqrt() + self.nodes as f64
            || self.shortfall() > SHORTFALL_SIGMAS
    }

    /// The window's accepted flits short of its offered flits, in standard deviations of the
    /// offered count: (O − A)/σ with O = `offered_flits` · N · W, A = `accepted_flits` · N · W
    /// and σ² = `offered_variance` · N · W (N nodes, W window cycles); 0 when nothing is offered.
    /// At a stable load E\[A\] = E\[O\] and the sources' counting noise σ dominates its spread.
    pub fn shortfall(&self) -> f64 {
        let node_cycles = self.nodes as f64 * self.window_cycles as f64;
        let sigma = (self.offered_variance * node_cycles).sqrt();
        if sigma > 0.0 {
            (self.offered_flits() - self.accepted_flits) * node_cycles / sigma
        } else {
            0.0
        }
    }

    /// Flits per cycle on each network channel: the links of a k-ary n-cube, the shared
    /// channels of an m-way network (paper 004's "traffic" when times 100).
    pub fn channel_use(&self) -> &[f64] {
        if self.mway_channel_flits.is_empty() {
            &self.link_flits
        } else {
            &self.mway_channel_flits
        }
    }

    /// Offered load in flits/node/cycle: λ times the mean length times the share sent (the
    /// scenario's flit rate as given when every node sends); with replies, each request sent
    /// also brings its R-flit reply, λ·(M̄ + R) times that share in all, so that a stable point
    /// accepts what is offered either way.
    pub fn offered_flits(&self) -> f64 {
        let requests = match self.given_flit_rate {
            Some(f) if self.offered_fraction == 1.0 => f,
            _ => self.rate * self.mean_length * self.offered_fraction,
        };
        if self.reply_length == 0 {
            return requests;
        }
        requests * (self.mean_length + self.reply_length as f64) / self.mean_length
    }
}
