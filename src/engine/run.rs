//! Run control of one load point: warm-up, measurement window, drain; saturation and deadlock
//! detection; the point's results.

use super::probes::Span;
use super::watchdog::Watchdog;
use super::{Engine, EngineConfig};
use crate::deadlock::{DeadlockCause, DeadlockReport, StuckBuffer};
use crate::error::{Error, Result};
use crate::network::Network;
use crate::routing::Routing;
use crate::scenario::Scenario;
use crate::spec::Precision;
use crate::stats::mser::{AutoWarmup, BATCH_CYCLES};
use crate::stats::{Measured, PointResult, StopReason, offered_variance};
use crate::traffic::{Addresses, Traffic};
use std::sync::atomic::{AtomicBool, Ordering};

/// Cycles simulated by every point of this process so far, in steps of [`SIMULATED_STEP`]: what
/// a run's progress report counts while a long point runs.
pub static SIMULATED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How often (in a point's cycles) [`SIMULATED`] is advanced.
pub const SIMULATED_STEP: u64 = 4096;

/// Run-control settings of one point (from the scenario's `[run]`).
#[derive(Clone, Copy, Debug)]
pub struct RunControl {
    /// Cycles before the measurement window (unless `auto_warmup`).
    pub warmup: u64,
    /// An automatic warm-up (MSER-5, [`crate::stats::mser`]) of at most this many cycles,
    /// instead of `warmup`.
    pub auto_warmup: Option<u64>,
    /// Cycles of the measurement window.
    pub measure: u64,
    /// Most cycles after the window to deliver the measured messages.
    pub drain: u64,
    /// Cycles without a flit moving after which the deadlock check runs.
    pub watchdog: u64,
    /// Messages per node waiting at sources beyond which the point is saturated.
    pub max_backlog: u64,
    /// Batches of the batch-means confidence interval.
    pub batches: u32,
}

impl RunControl {
    /// The scenario's `[run]` settings.
    pub fn from_scenario(s: &Scenario) -> RunControl {
        RunControl {
            warmup: s.run.warmup_cycles,
            auto_warmup: s.run.auto_warmup,
            measure: s.run.measure_cycles,
            drain: s.run.drain_cycles,
            watchdog: s.run.watchdog_cycles,
            max_backlog: s.run.max_backlog,
            batches: s.run.batches,
        }
    }
}

/// An engine for one load point of a scenario (`rate` in messages/node/cycle).
pub fn build_engine(s: &Scenario, rate: f64, seed: u64) -> Engine {
    build_engine_with(s, rate, seed, |_| {})
}

/// [`build_engine`] with its configuration changed by `tune` (threads, prefetching, flows:
/// what the tests and probes vary to the same results).
pub fn build_engine_with(
    s: &Scenario,
    rate: f64,
    seed: u64,
    tune: impl FnOnce(&mut EngineConfig),
) -> Engine {
    build_engine_on_with(s, Network::for_scenario(s), rate, seed, tune)
}

/// [`build_engine`] on `net`, a wiring of the scenario's network (its links numbered
/// otherwise, say).
pub fn build_engine_on(s: &Scenario, net: Network, rate: f64, seed: u64) -> Engine {
    build_engine_on_with(s, net, rate, seed, |_| {})
}

/// [`build_engine_on`] with its configuration changed by `tune`.
pub(super) fn build_engine_on_with(
    s: &Scenario,
    net: Network,
    rate: f64,
    seed: u64,
    tune: impl FnOnce(&mut EngineConfig),
) -> Engine {
    let routing = Routing::new(s, &net);
    let traffic = Traffic::new(&s.traffic, Addresses::of_processors(&net.topology), seed);
    let mut config = EngineConfig::of(s, &net);
    tune(&mut config);
    Engine::build(net, routing, traffic, rate, seed, &config)
}

/// Simulates one load point of a scenario. A deadlock is an error naming the stuck buffers.
pub fn run_point(s: &Scenario, rate: f64, seed: u64) -> Result<PointResult> {
    run_point_on(s, rate, seed, 1)
}

/// [`run_point`] with `threads` threads free for the point: when the scenario leaves the count
/// to the run (`[run] threads_per_point = 0`), its cycle is split across [`auto_threads`] of
/// them (one below [`AUTO_SPLIT_BUFFERS`] buffers). Results are the same either way.
pub fn run_point_on(s: &Scenario, rate: f64, seed: u64, threads: usize) -> Result<PointResult> {
    run_point_until(s, rate, seed, threads, &NEVER)
}

/// A flag never set: the stop of a point that runs to its end.
static NEVER: AtomicBool = AtomicBool::new(false);

/// [`run_point_on`] that ends early, with an error, once `stop` is set (checked every
/// [`SIMULATED_STEP`] cycles): how a run stops its points when it cannot keep their results.
/// A scenario with a trace (`[traffic] trace`) is replayed instead ([`super::replay`]).
pub fn run_point_until(
    s: &Scenario,
    rate: f64,
    seed: u64,
    threads: usize,
    stop: &AtomicBool,
) -> Result<PointResult> {
    if let Some(trace) = &s.traffic.trace {
        return super::replay(s, trace, seed, threads, stop);
    }
    let mut rc = RunControl::from_scenario(s);
    loop {
        let net = Network::for_scenario(s);
        let auto = auto_threads(net.buffers(), threads);
        let mut e = build_engine_on_with(s, net, rate, seed, |c| {
            if s.run.threads_per_point == 0 && auto > 1 {
                c.threads = auto;
            }
        });
        let (measured, span) = simulate(&mut e, rc, rate, seed, stop)?;
        let (net, window) = e.into_window_counts(span);
        let mut r = PointResult::from_window(&net, measured, &window);
        let Some(p) = s.run.precision else {
            return Ok(r);
        };
        match next_window(&r, rc.measure, p) {
            Some(measure) => {
                // The same point run again with a longer window: the run is a function of
                // the seed alone, so its warm-up ends where this one's did.
                rc.measure = measure;
                rc.warmup = r.warmup_cycles;
                rc.auto_warmup = None;
            }
            None if r.stop == StopReason::Drained && !precise(&r, p) => {
                r.stop = StopReason::MeasureCap;
                return Ok(r);
            }
            None => return Ok(r),
        }
    }
}

/// Whether the point's 95% half-width of the mean latency is at most `p.fraction` of the
/// mean (false when either is undefined).
fn precise(r: &PointResult, p: Precision) -> bool {
    r.stats.ci95() <= p.fraction * r.stats.mean()
}

/// The longer window a point measured over `measure` cycles needs to meet the precision `p`:
/// None when it meets it, stopped otherwise than drained (saturated points say so and stop),
/// or its window already reached `p.max_measure_cycles`. The half-width shrinks as 1/√window,
/// so the window grows by (half-width / target)² with a margin of 1.2, at least doubling, at
/// most to the cap.
fn next_window(r: &PointResult, measure: u64, p: Precision) -> Option<u64> {
    if r.stop != StopReason::Drained || r.saturated() || precise(r, p) {
        return None;
    }
    if measure >= p.max_measure_cycles {
        return None;
    }
    let ratio = r.stats.ci95() / (p.fraction * r.stats.mean());
    let wanted = if ratio.is_finite() {
        (measure as f64 * 1.2 * ratio * ratio).ceil() as u64
    } else {
        0
    };
    Some(wanted.max(measure * 2).min(p.max_measure_cycles))
}

/// The fewest buffers (virtual channels) of a network whose points a run splits across threads
/// by itself. At 0.002 flits/node/cycle on 2 cores (bidirectional tori, V = 2): a 16-ary
/// 3-cube's 57,344 run as fast split as not (1.65 times as fast at 0.02), 16x16x8x8's 294,912
/// 1.33 times, a 32-ary 3-cube's 458,752 twice as fast.
pub const AUTO_SPLIT_BUFFERS: usize = 1 << 16;

/// The most buffers per thread of a point a run splits by itself: about one thread per
/// 2^20 buffers ([`auto_threads`]).
pub const BUFFERS_PER_THREAD: usize = 1 << 20;

/// The threads a run splits a point's cycle across when its scenario leaves the count to the
/// run, with `free` threads free for it, on a network of `buffers` buffers: one below
/// [`AUTO_SPLIT_BUFFERS`], else `buffers` / [`BUFFERS_PER_THREAD`] rounded, at least 2, never
/// more than `free`. Past about one thread per 2^20 buffers the split loses (16 cores,
/// bidirectional tori, V = 2, 0.002 flits/node/cycle): the 64-ary 3-cube's 3,670,016 buffers
/// moved 92 M flit-hops/s on 4 threads and 83 M on 16; the 32-ary 4-cube's 18,874,368 ran
/// 1.33, 1.83, 3.70 and 4.16 times one thread's speed on 2, 4, 8 and 16 threads.
pub fn auto_threads(buffers: usize, free: usize) -> usize {
    if buffers < AUTO_SPLIT_BUFFERS {
        return 1;
    }
    let wanted = (buffers + BUFFERS_PER_THREAD / 2) / BUFFERS_PER_THREAD;
    wanted.max(2).min(free).max(1)
}

/// Runs an engine through warm-up (fixed or automatic), window and drain: one window, which
/// `[run] precision` does not lengthen (that is [`run_point`]'s).
pub fn run_engine(e: &mut Engine, rc: RunControl, rate: f64, seed: u64) -> Result<PointResult> {
    let (measured, span) = simulate(e, rc, rate, seed, &NEVER)?;
    Ok(PointResult::from_window(
        &e.net,
        measured,
        &e.window_counts(span),
    ))
}

/// Runs an engine through warm-up, window and drain, or until `halt` is set: what it measured,
/// and the network-wide counts where its window opened and closed (its channels count only
/// inside the window).
fn simulate(
    e: &mut Engine,
    rc: RunControl,
    rate: f64,
    seed: u64,
    halt: &AtomicBool,
) -> Result<(Measured, Span)> {
    let mut ph = Phases::new(e, &rc);
    let nodes = e.net.nodes as u64;
    let backlog_cap = rc.max_backlog.saturating_mul(nodes);
    let mut span = Span::default();
    let mut occupancy = None;
    let mut dog = Watchdog::new(e, rc.watchdog);
    let stop = loop {
        if e.cycle == ph.next_check
            && let Some(stop) = ph.judge(e, &rc)
        {
            break stop;
        }
        if e.cycle == ph.w0 {
            span.start = Some(e.open_window());
            e.reset_occupancy();
        }
        if e.cycle == ph.w1 {
            span.end = Some(e.close_window());
            occupancy = Some(e.vc_occupancy());
        }
        if e.cycle >= ph.w1 && e.outstanding == 0 {
            break StopReason::Drained;
        }
        if e.cycle >= ph.w1.saturating_add(rc.drain) {
            break StopReason::DrainCap;
        }
        if e.backlog > backlog_cap {
            break StopReason::Backlog;
        }
        e.step();
        if e.cycle.is_multiple_of(SIMULATED_STEP) {
            SIMULATED.fetch_add(SIMULATED_STEP, Ordering::Relaxed);
            if halt.load(Ordering::Relaxed) {
                return Err(Error::Io(format!(
                    "the point (rate {rate}, seed {seed}) was stopped at cycle {}",
                    e.cycle
                )));
            }
        }
        if let Some(frozen) = dog.check(e) {
            let why = DeadlockCause::Watchdog {
                cycles: rc.watchdog,
            };
            return Err(deadlock_report(e, frozen, why, rate, seed));
        }
    };
    // A point about to stop as saturated may be deadlocked instead, before the watchdog's
    // period has passed: a drained copy of the network tells (truthful outcomes). So may one
    // ending with flits standing still in a closed loop (`max_outstanding`), whose sources,
    // all waiting on stuck replies, generate nothing to measure, so that it drains at once.
    if (stop != StopReason::Drained || (e.closed_loop() && dog.still() > 0))
        && let Some(frozen) = e.confirm_deadlock()
    {
        let why = match stop {
            StopReason::Drained => DeadlockCause::Ending {
                cycles: dog.still(),
            },
            StopReason::Backlog => DeadlockCause::Backlog,
            StopReason::WarmupCap => DeadlockCause::WarmupCap,
            _ => DeadlockCause::DrainCap,
        };
        return Err(deadlock_report(e, frozen, why, rate, seed));
    }
    Ok((measured(e, stop, ph.w0, ph.w1, occupancy, rate, seed), span))
}

/// A point's phases: its window `w0..w1` (both `u64::MAX` while an automatic warm-up runs)
/// and the automatic warm-up's series and cap, judged when the cycle reaches `next_check`.
struct Phases {
    w0: u64,
    w1: u64,
    auto: Option<(AutoWarmup, u64)>,
    next_check: u64,
}

impl Phases {
    /// The phases of `rc`, the engine's window set to them.
    fn new(e: &mut Engine, rc: &RunControl) -> Phases {
        let w0 = match rc.auto_warmup {
            Some(_) => u64::MAX,
            None => rc.warmup,
        };
        let w1 = w0.saturating_add(rc.measure);
        e.set_window(w0, w1, rc.batches);
        let auto = rc
            .auto_warmup
            .map(|cap| (AutoWarmup::new(e.net.nodes, cap), cap));
        let next_check = if auto.is_some() {
            BATCH_CYCLES
        } else {
            u64::MAX
        };
        Phases {
            w0,
            w1,
            auto,
            next_check,
        }
    }

    /// At a batch boundary of an automatic warm-up (MSER-5 judges the run only there, from
    /// the engine's running totals: simulated state only, the same on any number of threads):
    /// opens the window now if both series have settled; `WarmupCap` if they still drift at
    /// the cap; else the next check is a batch later.
    #[cold]
    fn judge(&mut self, e: &mut Engine, rc: &RunControl) -> Option<StopReason> {
        let (warm, cap) = self.auto.as_mut()?;
        if warm.batch_end(e.ejected_latency, e.ejected_msgs, e.ejected_flits) {
            (self.w0, self.w1) = (e.cycle, e.cycle + rc.measure);
            e.set_window(self.w0, self.w1, rc.batches);
            self.next_check = u64::MAX;
        } else if e.cycle >= *cap {
            return Some(StopReason::WarmupCap);
        } else {
            self.next_check += BATCH_CYCLES;
        }
        None
    }
}

/// What a point that stopped for `stop` measured in its window `w0..w1` (P_v over it in
/// `occupancy` if it closed).
pub(super) fn measured(
    e: &mut Engine,
    stop: StopReason,
    w0: u64,
    w1: u64,
    occupancy: Option<Vec<f64>>,
    rate: f64,
    seed: u64,
) -> Measured {
    let window_cycles = e.cycle.min(w1).saturating_sub(w0);
    let offered_fraction = e.traffic.offered_fraction();
    // With replies each request sent brings M + R flits into the network: the moments of that.
    let (m1, r) = (e.traffic.mean_length(), e.reply_length as f64);
    let m2 = e.traffic.length_moment(2) + 2.0 * r * m1 + r * r;
    Measured {
        rate,
        seed,
        variant: e.traffic.variant(),
        mean_length: m1,
        reply_length: e.reply_length,
        offered_fraction,
        offered_variance: offered_variance(
            e.sources.kind,
            rate,
            offered_fraction,
            m1 + r,
            m2,
            e.traffic.burst(),
        ),
        warmup_cycles: w0.min(e.cycle),
        window_cycles,
        undelivered: e.outstanding,
        stop,
        cycles: e.cycle,
        stats: std::mem::take(&mut e.stats),
        vc_occupancy: match occupancy {
            Some(p) => p,
            None if window_cycles > 0 => e.vc_occupancy(),
            None => vec![f64::NAN; e.net.vcs as usize + 1],
        },
    }
}

/// The deadlock error: the cycle, the point, why the check ran (`why`) and the stuck buffers.
pub(super) fn deadlock_report(
    e: &Engine,
    stuck: Vec<StuckBuffer>,
    why: DeadlockCause,
    rate: f64,
    seed: u64,
) -> Error {
    Error::Deadlock(Box::new(DeadlockReport {
        cycle: e.cycle,
        rate,
        seed,
        cause: why,
        stuck,
    }))
}

#[cfg(test)]
mod tests {
    use super::{AUTO_SPLIT_BUFFERS, auto_threads};
    use crate::network::Network;
    use crate::scenario::Scenario;

    /// The buffers of a bidirectional torus of radix `k` in `n` dimensions with V = 2.
    fn torus_buffers(k: u32, n: u32) -> usize {
        let text = format!(
            "name = \"t\"\n[topology]\nkind = \"torus\"\nk = {k}\nn = {n}\nlinks = \"bidirectional\"\n\
             [router]\nvcs = 2\n[traffic]\nflit_rates = [0.002]\n"
        );
        Network::for_scenario(&Scenario::from_toml(&text, "t.toml").unwrap()).buffers()
    }

    #[test]
    fn a_point_gets_at_most_one_thread_per_mebibuffer() {
        // The 262,144-node 64-ary 3-cube: 4 threads of 16 free.
        let cube3 = torus_buffers(64, 3);
        assert_eq!(cube3, 3_670_016);
        assert_eq!(auto_threads(cube3, 16), 4);
        // The 1,048,576-node 32-ary 4-cube: all 16.
        let cube4 = torus_buffers(32, 4);
        assert_eq!(cube4, 18_874_368);
        assert_eq!(auto_threads(cube4, 16), 16);
        assert_eq!(auto_threads(cube4, 64), 18);
        // Just above the threshold: 2; below it: 1.
        assert_eq!(auto_threads(70_000, 16), 2);
        assert_eq!(auto_threads(AUTO_SPLIT_BUFFERS, 16), 2);
        assert_eq!(auto_threads(AUTO_SPLIT_BUFFERS - 1, 16), 1);
        assert_eq!(auto_threads(torus_buffers(16, 3), 16), 1);
        // Never more than free.
        assert_eq!(auto_threads(cube3, 3), 3);
        assert_eq!(auto_threads(cube4, 2), 2);
        assert_eq!(auto_threads(70_000, 1), 1);
        assert_eq!(auto_threads(cube4, 1), 1);
    }
}
