//! The deadlock watchdog of a running point: flits that have not moved for a watchdog period
//! may be deadlocked, or only waiting behind heavy congestion; a drained copy of the network
//! tells which (`Engine::confirm_deadlock`).

use super::Engine;
use crate::deadlock::StuckBuffer;

/// The default `[run] watchdog_cycles`: the longest the watchdog's own floors grow to.
pub(super) const DEFAULT_WATCHDOG: u64 = 10_000;

/// The watchdog's state across the cycles of one point.
pub(super) struct Watchdog {
    /// Cycles between scans of every buffer.
    scan: u64,
    /// How long a buffer must be stuck before a drained copy is tried.
    stuck_for: u64,
    /// Consecutive cycles in which flits were in the network and none moved.
    still: u64,
    /// `still`, counted since the last scan.
    stalled: u64,
    /// The first cycle a drained copy may be tried again.
    next_confirm: u64,
}

impl Watchdog {
    /// The watchdog of `e` with `[run] watchdog_cycles = watchdog`. Its scan reads every
    /// buffer: it runs at most every buffers/64 cycles, so that its cost stays a small
    /// fraction of the cycle's whatever `watchdog` is (on a large network a tiny
    /// `watchdog_cycles` acts as a larger one; a deadlocked buffer never moves again, so it is
    /// found all the same). Confirming a deadlock drains a copy of the network: it waits for
    /// buffers stuck at least buffers/2 cycles (up to the default watchdog; congestion rarely
    /// holds a flit that long), and after a copy found congestion, as long again before the
    /// next.
    pub(super) fn new(e: &Engine, watchdog: u64) -> Watchdog {
        let nbuf = e.net.buffers() as u64;
        Watchdog {
            scan: watchdog.max((nbuf / 64).min(DEFAULT_WATCHDOG)).max(1),
            stuck_for: watchdog.max((nbuf / 2).min(DEFAULT_WATCHDOG)).max(1),
            still: 0,
            stalled: 0,
            next_confirm: 0,
        }
    }

    /// After a step of `e`: the stuck buffers of a confirmed deadlock, or None.
    pub(super) fn check(&mut self, e: &Engine) -> Option<Vec<StuckBuffer>> {
        self.still = if e.moved == 0 && e.flits_in_net > 0 {
            self.still + 1
        } else {
            0
        };
        self.stalled = if self.still > 0 { self.stalled + 1 } else { 0 };
        if self.stalled >= self.scan || (e.cycle.is_multiple_of(self.scan) && e.cycle > 0) {
            self.stalled = 0;
            if e.cycle >= self.next_confirm && !e.stuck_buffers(self.stuck_for).is_empty() {
                let frozen = e.confirm_deadlock();
                if frozen.is_some() {
                    return frozen;
                }
                self.next_confirm = e.cycle + self.stuck_for;
            }
        }
        None
    }

    /// Consecutive cycles, up to the last step, in which flits were in the network and none
    /// moved.
    pub(super) fn still(&self) -> u64 {
        self.still
    }
}
