//! Run control of one load point: warm-up, measurement window, drain; saturation and deadlock
//! detection; the point's results.

use super::Engine;
use crate::error::{Error, Result};
use crate::network::Network;
use crate::routing::Routing;
use crate::scenario::Scenario;
use crate::stats::LatencyStats;
use crate::traffic::Traffic;

/// Run-control settings of one point (from the scenario's `[run]`).
#[derive(Clone, Copy, Debug)]
pub struct RunControl {
    pub warmup: u64,
    pub measure: u64,
    pub drain: u64,
    pub watchdog: u64,
    /// Messages per node waiting at sources beyond which the point is saturated.
    pub max_backlog: u64,
    pub batches: u32,
}

impl RunControl {
    pub fn from_scenario(s: &Scenario) -> RunControl {
        RunControl {
            warmup: s.run.warmup_cycles,
            measure: s.run.measure_cycles,
            drain: s.run.drain_cycles,
            watchdog: s.run.watchdog_cycles,
            max_backlog: s.run.max_backlog,
            batches: s.run.batches,
        }
    }
}

/// Why a point stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Every measured message was delivered.
    Drained,
    /// Source queues grew past the backlog limit: offered load above saturation.
    Backlog,
    /// The drain cap was hit with measured messages still in flight.
    DrainCap,
}

impl StopReason {
    pub fn name(self) -> &'static str {
        match self {
            StopReason::Drained => "drained",
            StopReason::Backlog => "backlog",
            StopReason::DrainCap => "drain-cap",
        }
    }
}

/// Results of one load point.
#[derive(Clone, Debug)]
pub struct PointResult {
    pub rate: f64,
    pub seed: u64,
    /// The traffic variant: pattern fraction x and hotspot fraction h (hotspot only).
    pub pattern_fraction: f64,
    pub hotspot_fraction: Option<f64>,
    /// Mean message length in flits.
    pub mean_length: f64,
    /// Fraction of generated messages actually sent (nodes a pattern maps onto themselves
    /// send nothing).
    pub offered_fraction: f64,
    pub nodes: u32,
    /// Cycles of the measurement window actually run (shorter if stopped early).
    pub window_cycles: u64,
    pub accepted_flits: f64,
    pub accepted_rate: f64,
    pub stats: LatencyStats,
    /// Measured messages never delivered (drain cap or early stop).
    pub undelivered: u64,
    /// Messages generated and messages delivered (any message) during the window.
    pub window_generated: u64,
    pub window_delivered: u64,
    pub stop: StopReason,
    pub cycles: u64,
    /// Per network link: flits and headers that crossed it in the window, per cycle.
    pub link_flits: Vec<f64>,
    pub link_msgs: Vec<f64>,
    /// Per node, per cycle in the window: flits and messages (heads) injected, and flits and
    /// messages (heads) ejected.
    pub node_inj_flits: Vec<f64>,
    pub node_inj_msgs: Vec<f64>,
    pub node_ej_flits: Vec<f64>,
    pub node_ej_msgs: Vec<f64>,
    /// P_v: fraction of link-cycles in the window with v busy virtual channels, v = 0..V.
    pub vc_occupancy: Vec<f64>,
    /// Per m-way channel (empty for k-ary n-cubes): flits it carried per cycle in the window,
    /// from router buffers and injection buffers into router buffers and ejection buffers.
    pub mway_channel_flits: Vec<f64>,
}

impl PointResult {
    /// The measured multiplexing degree V̄ (paper 000 eq. 30).
    pub fn vbar(&self) -> f64 {
        super::multiplexing_degree(&self.vc_occupancy)
    }

    /// Saturated: stopped early, or the source queues and network filled up during the
    /// window: the messages generated in it exceed those delivered in it by more than
    /// 3√G + N (G generated, N nodes; a stable network's population changes by far less).
    pub fn saturated(&self) -> bool {
        let g = self.window_generated as f64;
        let deficit = g - self.window_delivered as f64;
        self.stop != StopReason::Drained || deficit > 3.0 * g.sqrt() + self.nodes as f64
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

    pub fn offered_flits(&self) -> f64 {
        self.rate * self.mean_length * self.offered_fraction
    }
}

/// Builds the network of a scenario.
pub fn build_network(s: &Scenario) -> Network {
    Network::for_scenario(s)
}

/// An engine for one load point of a scenario (`rate` in messages/node/cycle).
pub fn build_engine(s: &Scenario, rate: f64, seed: u64) -> Engine {
    let net = build_network(s);
    let routing = Routing::new(s, &net);
    let traffic = Traffic::new(&s.traffic, net.traffic_topo(), seed);
    Engine::new(net, routing, traffic, rate, seed)
        .with_selection(s.routing.selection)
        .with_early_free(s.router.early_free)
}

/// Simulates one load point of a scenario. A deadlock is an error naming the stuck buffers.
pub fn run_point(s: &Scenario, rate: f64, seed: u64) -> Result<PointResult> {
    let mut e = build_engine(s, rate, seed);
    let mut r = run_engine(&mut e, RunControl::from_scenario(s), rate, seed)?;
    r.pattern_fraction = s.traffic.pattern_fraction;
    r.hotspot_fraction = match s.traffic.pattern {
        crate::scenario::Pattern::Hotspot { fraction, .. } => Some(fraction),
        _ => None,
    };
    Ok(r)
}

/// Runs an engine through warm-up, window and drain.
pub fn run_engine(e: &mut Engine, rc: RunControl, rate: f64, seed: u64) -> Result<PointResult> {
    let w0 = rc.warmup;
    let w1 = rc.warmup + rc.measure;
    e.set_window(w0, w1, rc.batches);
    let nodes = e.net.nodes as u64;
    let backlog_cap = rc.max_backlog.saturating_mul(nodes);
    let mut snap0: Option<(Vec<u64>, Vec<u64>, u64, u64)> = None;
    let mut gen0 = 0;
    let mut gen1 = None;
    let mut occupancy = None;
    let mut snap1 = None;
    let mut stalled = 0u64;
    let stop = loop {
        if e.cycle == w0 {
            snap0 = Some((
                e.c_flits.clone(),
                e.c_msgs.clone(),
                e.ejected_flits,
                e.ejected_msgs,
            ));
            gen0 = e.generated_msgs;
            e.reset_occupancy();
        }
        if e.cycle == w1 {
            snap1 = Some((
                e.c_flits.clone(),
                e.c_msgs.clone(),
                e.ejected_flits,
                e.ejected_msgs,
            ));
            gen1 = Some(e.generated_msgs);
            occupancy = Some(e.vc_occupancy());
        }
        if e.cycle >= w1 && e.outstanding == 0 {
            break StopReason::Drained;
        }
        if e.cycle >= w1 + rc.drain {
            break StopReason::DrainCap;
        }
        if e.backlog > backlog_cap {
            break StopReason::Backlog;
        }
        e.step();
        stalled = if e.moved == 0 && e.flits_in_net > 0 {
            stalled + 1
        } else {
            0
        };
        if stalled >= rc.watchdog || (e.cycle.is_multiple_of(rc.watchdog) && e.cycle > 0) {
            // Flits that have not moved for a whole watchdog period may be deadlocked, or only
            // waiting behind heavy congestion: a drained copy of the network tells which.
            let stuck = e.stuck_buffers(rc.watchdog);
            if !stuck.is_empty()
                && let Some(frozen) = e.confirm_deadlock()
            {
                return Err(deadlock_report(e, &frozen, rc.watchdog, rate, seed));
            }
            stalled = 0;
        }
    };
    let end = e.cycle.min(w1);
    let window_cycles = end.saturating_sub(w0);
    let snap_end = snap1.unwrap_or_else(|| {
        (
            e.c_flits.clone(),
            e.c_msgs.clone(),
            e.ejected_flits,
            e.ejected_msgs,
        )
    });
    let (f0, m0, ef0, em0) = snap0.unwrap_or_else(|| snap_end.clone());
    let per = |a: u64, b: u64, div: f64| {
        if div > 0.0 {
            (a - b) as f64 / div
        } else {
            f64::NAN
        }
    };
    let wc = window_cycles as f64;
    let links = e.net.links as usize;
    let n = e.net.nodes as usize;
    let att = e.net.attach as usize;
    let inj = e.net.injection_channel(0) as usize;
    let ej = e.net.ejection_channel(0) as usize;
    // A processor's channels of one kind, summed, per cycle of the window.
    let per_node = |first: usize, now: &[u64], then: &[u64]| -> Vec<f64> {
        (0..n)
            .map(|p| {
                let c = first + p * att;
                let sum = |v: &[u64]| v[c..c + att].iter().sum::<u64>();
                per(sum(now), sum(then), wc)
            })
            .collect()
    };
    Ok(PointResult {
        rate,
        seed,
        pattern_fraction: 1.0,
        hotspot_fraction: None,
        mean_length: e.traffic.mean_length(),
        offered_fraction: e.traffic.offered_fraction(e.net.traffic_topo()),
        nodes: e.net.nodes,
        window_cycles,
        accepted_flits: per(snap_end.2, ef0, wc * nodes as f64),
        accepted_rate: per(snap_end.3, em0, wc * nodes as f64),
        undelivered: e.outstanding,
        window_generated: gen1.unwrap_or(e.generated_msgs) - gen0.min(e.generated_msgs),
        window_delivered: snap_end.3 - em0,
        stats: std::mem::take(&mut e.stats),
        stop,
        cycles: e.cycle,
        link_flits: (0..links).map(|c| per(snap_end.0[c], f0[c], wc)).collect(),
        link_msgs: (0..links).map(|c| per(snap_end.1[c], m0[c], wc)).collect(),
        node_inj_flits: per_node(inj, &snap_end.0, &f0),
        node_inj_msgs: per_node(inj, &snap_end.1, &m0),
        node_ej_flits: per_node(ej, &snap_end.0, &f0),
        node_ej_msgs: per_node(ej, &snap_end.1, &m0),
        mway_channel_flits: match e.net.shared {
            false => Vec::new(),
            true => {
                // Each link and ejection channel is read from the m-way channel it leaves.
                let mut v = vec![0u64; e.net.routers()];
                let chans = (0..links).chain(ej..ej + n * att);
                for c in chans {
                    v[e.net.arb_of[c] as usize] += snap_end.0[c] - f0[c];
                }
                v.into_iter().map(|x| per(x, 0, wc)).collect()
            }
        },
        vc_occupancy: match occupancy {
            Some(p) => p,
            None if window_cycles > 0 => e.vc_occupancy(),
            None => vec![f64::NAN; e.net.vcs as usize + 1],
        },
    })
}

fn deadlock_report(e: &Engine, frozen: &[String], watchdog: u64, rate: f64, seed: u64) -> Error {
    const SHOWN: usize = 12;
    let mut msg = format!(
        "deadlock at cycle {} (rate {rate}, seed {seed}): flits had not moved for {watchdog} cycles, and with no new messages {} buffer(s) still cannot move",
        e.cycle,
        frozen.len()
    );
    for line in frozen.iter().take(SHOWN) {
        msg.push_str("\n  ");
        msg.push_str(line);
    }
    if frozen.len() > SHOWN {
        msg.push_str(&format!("\n  ... and {} more", frozen.len() - SHOWN));
    }
    Error::Deadlock(msg)
}
