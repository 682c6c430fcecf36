//! Trace replay (`[traffic] trace`), outside the per-cycle hot path: an engine without sources
//! is sent each message of the trace in the cycle it becomes ready, stepped, and its
//! deliveries read and cleared every cycle. A message is ready at its scheduled cycle
//! (`TraceSpec::scheduled`) or in the cycle after the tail of the last message it depends on
//! is delivered, whichever is later (the netrace model of closed-loop replay). A message whose
//! source is its destination never enters the network: it is delivered in the cycle it is
//! ready. The replay ends when every message is delivered, with a deadlock report if the
//! watchdog confirms one, or stopped (`drain-cap`, its undelivered messages counted) when
//! messages are in flight and none has been sent or delivered for `[run] drain_cycles` cycles.

use super::run::{RunControl, auto_threads, build_engine_on_with, deadlock_report, measured};
use super::watchdog::Watchdog;
use super::{Engine, SIMULATED, SIMULATED_STEP};
use crate::deadlock::DeadlockCause;
use crate::error::{Error, Result};
use crate::network::Network;
use crate::scenario::Scenario;
use crate::spec::TraceSpec;
use crate::stats::{PointResult, StopReason, TraceStats};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, Ordering};

/// When one message of a replay was generated and delivered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MessageTimes {
    /// The cycle it was generated (sent) in.
    pub generated: u64,
    /// The cycle its tail was delivered in.
    pub delivered: u64,
    /// How many times it was delivered (1 once the replay is done).
    pub deliveries: u32,
}

/// Replays the trace of `s` once with seed `seed` (which seeds selection among candidates and
/// random ties), its cycle split as [`super::run_point_on`] splits a point's over `threads`,
/// until it ends or `halt` is set. Every message is measured: the window is the whole replay.
pub fn replay(
    s: &Scenario,
    trace: &TraceSpec,
    seed: u64,
    threads: usize,
    halt: &AtomicBool,
) -> Result<PointResult> {
    replay_timed(s, trace, seed, threads, halt).map(|(r, _)| r)
}

/// [`replay`], with when each message (in trace order) was generated and delivered.
pub fn replay_timed(
    s: &Scenario,
    trace: &TraceSpec,
    seed: u64,
    threads: usize,
    halt: &AtomicBool,
) -> Result<(PointResult, Vec<MessageTimes>)> {
    let rc = RunControl::from_scenario(s);
    let net = Network::for_scenario(s);
    let auto = auto_threads(net.buffers(), threads);
    let mut e = build_engine_on_with(s, net, 0.0, seed, |c| {
        if s.run.threads_per_point == 0 && auto > 1 {
            c.threads = auto;
        }
    });
    e.log_deliveries = true;
    e.set_window(0, u64::MAX, 1);
    let start = e.open_window();
    e.reset_occupancy();
    let mut r = Replay::new(trace);
    let mut dog = Watchdog::new(&e, rc.watchdog);
    let stop = loop {
        r.send_ready(&mut e);
        if r.delivered == r.stats.messages {
            break StopReason::Drained;
        }
        let in_flight = e.backlog > 0 || e.flits_in_net > 0;
        if in_flight && e.cycle >= r.progress.saturating_add(rc.drain) {
            break StopReason::DrainCap;
        }
        e.step();
        r.take_deliveries(&mut e);
        if e.cycle.is_multiple_of(SIMULATED_STEP) {
            SIMULATED.fetch_add(SIMULATED_STEP, Ordering::Relaxed);
            if halt.load(Ordering::Relaxed) {
                return Err(Error::Io(format!(
                    "the replay of {} (seed {seed}) was stopped at cycle {}",
                    trace.file, e.cycle
                )));
            }
        }
        if let Some(frozen) = dog.check(&e) {
            let why = DeadlockCause::Watchdog {
                cycles: rc.watchdog,
            };
            return Err(deadlock_report(&e, frozen, why, 0.0, seed));
        }
    };
    if stop != StopReason::Drained
        && let Some(frozen) = e.confirm_deadlock()
    {
        return Err(deadlock_report(
            &e,
            frozen,
            DeadlockCause::DrainCap,
            0.0,
            seed,
        ));
    }
    let end = e.close_window();
    let occupancy = e.vc_occupancy();
    let w1 = e.cycle;
    let m = measured(&mut e, stop, 0, w1, Some(occupancy), 0.0, seed);
    let span = super::Span {
        start: Some(start),
        end: Some(end),
    };
    let (net, window) = e.into_window_counts(span);
    let mut result = PointResult::from_window(&net, m, &window);
    result.undelivered = r.stats.messages - r.delivered;
    let (stats, times) = r.finish();
    result.trace = Some(stats);
    Ok((result, times))
}

/// A replay's progress through its trace.
struct Replay<'a> {
    trace: &'a TraceSpec,
    /// How many messages each still waits for.
    waits: Vec<u32>,
    /// The messages whose dependencies are delivered, by the cycle they are ready in, then
    /// by index.
    ready: BinaryHeap<Reverse<(u64, u32)>>,
    /// The message in each of the engine's message slots.
    in_slot: Vec<u32>,
    delivered: u64,
    /// The cycle of the last delivery (0 before the first).
    last_delivery: u64,
    /// The last cycle a message was sent or delivered in.
    progress: u64,
    /// The sum of the messages' slowdowns.
    slowdown: u64,
    times: Vec<MessageTimes>,
    stats: TraceStats,
}

impl<'a> Replay<'a> {
    fn new(trace: &'a TraceSpec) -> Replay<'a> {
        let m = &trace.messages;
        let ready = (0..m.len())
            .filter(|&i| m.waits[i] == 0)
            .map(|i| Reverse((trace.scheduled(i), i as u32)))
            .collect();
        Replay {
            trace,
            waits: m.waits.clone(),
            ready,
            in_slot: Vec::new(),
            delivered: 0,
            last_delivery: 0,
            progress: 0,
            slowdown: 0,
            times: vec![MessageTimes::default(); m.len()],
            stats: TraceStats {
                messages: m.len() as u64,
                local: 0,
                delivered: 0,
                runtime_cycles: 0,
                trace_cycles: trace.last_scheduled(),
                mean_slowdown: 0.0,
                max_slowdown: 0,
            },
        }
    }

    /// Sends the messages ready in this cycle, in index order; one to its own source is
    /// delivered at once.
    fn send_ready(&mut self, e: &mut Engine) {
        let now = e.cycle;
        while let Some(&Reverse((at, i))) = self.ready.peek()
            && at <= now
        {
            self.ready.pop();
            self.progress = now;
            let i = i as usize;
            let m = &self.trace.messages;
            let late = now - self.trace.scheduled(i);
            self.slowdown += late;
            self.stats.max_slowdown = self.stats.max_slowdown.max(late);
            self.times[i].generated = now;
            if m.src[i] == m.dst[i] {
                self.stats.local += 1;
                self.delivered_at(i, now);
                continue;
            }
            let slot = e.send(m.src[i], m.dst[i], m.len[i]) as usize;
            if slot >= self.in_slot.len() {
                self.in_slot.resize(slot + 1, 0);
            }
            self.in_slot[slot] = i as u32;
        }
    }

    /// Reads and clears the deliveries of the cycle just stepped.
    fn take_deliveries(&mut self, e: &mut Engine) {
        for k in 0..e.deliveries.len() {
            let d = e.deliveries[k];
            self.delivered_at(self.in_slot[d.msg as usize] as usize, d.eject);
        }
        e.deliveries.clear();
    }

    /// Message `i`'s tail was delivered in cycle `t`: the messages waiting for it may be ready
    /// from cycle t + 1.
    fn delivered_at(&mut self, i: usize, t: u64) {
        self.delivered += 1;
        self.times[i].delivered = t;
        self.times[i].deliveries += 1;
        self.last_delivery = self.last_delivery.max(t);
        self.progress = self.progress.max(t);
        for &j in self.trace.messages.waiting_for(i) {
            let w = &mut self.waits[j as usize];
            *w -= 1;
            if *w == 0 {
                let at = self.trace.scheduled(j as usize).max(t + 1);
                self.ready.push(Reverse((at, j)));
            }
        }
    }

    /// The replay's results, and each message's times.
    fn finish(self) -> (TraceStats, Vec<MessageTimes>) {
        let stats = TraceStats {
            delivered: self.delivered,
            runtime_cycles: self.last_delivery,
            mean_slowdown: self.slowdown as f64 / self.stats.messages as f64,
            ..self.stats
        };
        (stats, self.times)
    }
}
