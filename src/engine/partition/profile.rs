//! Where a split cycle's time goes, when asked for ([`crate::engine::Engine::profile_split`],
//! used by `examples/split_probe`): the calling thread's work alone, and for each of the three
//! steps the threads run, the time from its start to its last thread's end, each thread's
//! share and the slowest thread's. A step lasts as long as its slowest share, so the slowest
//! share over the mean share is what the threads lose waiting for one another.

use super::MAX_THREADS;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The steps a split cycle runs on its threads, in order.
pub const STEPS: [&str; 3] = ["requests", "grants", "effects"];

/// Nanoseconds summed over the cycles profiled.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SplitProfile {
    /// Cycles profiled.
    pub cycles: u64,
    /// Threads the cycle is split across.
    pub threads: usize,
    /// The cycle in all, from its start to its end.
    pub total: u64,
    /// Each step of [`STEPS`], from its start to its last share's end.
    pub wall: [u64; 3],
    /// Each step's shares, summed over the threads.
    pub busy: [u64; 3],
    /// Each step's slowest share.
    pub slowest: [u64; 3],
    /// Each thread's shares of each step (thread 0 is the calling thread): which thread is the
    /// slower one, and whether it stays so.
    pub by_thread: Vec<[u64; 3]>,
}

impl SplitProfile {
    /// The cycle's time outside the steps: the calling thread alone (the hand-over of
    /// injection's buffers, the drawn messages joining their queues, deliveries and the
    /// cycle's end), and the steps' starts.
    pub fn serial(&self) -> u64 {
        self.total.saturating_sub(self.wall.iter().sum())
    }

    /// The fraction of the steps' time lost waiting: the slowest shares over the mean shares,
    /// minus one.
    pub fn imbalance(&self) -> f64 {
        let slowest: u64 = self.slowest.iter().sum();
        let mean = self.busy.iter().sum::<u64>() as f64 / self.threads.max(1) as f64;
        if mean > 0.0 {
            slowest as f64 / mean - 1.0
        } else {
            0.0
        }
    }
}

/// One thread's share of the step being timed, on a line of its own.
#[derive(Default)]
#[repr(align(128))]
struct Share(AtomicU64);

/// The profile being taken, and the shares of the step under way.
pub(super) struct Profiling {
    pub(super) profile: SplitProfile,
    shares: Vec<Share>,
}

impl Clone for Profiling {
    fn clone(&self) -> Profiling {
        Profiling {
            profile: self.profile.clone(),
            ..Profiling::new(self.shares.len())
        }
    }
}

impl Profiling {
    /// An empty profile of a cycle on `threads` threads.
    pub(super) fn new(threads: usize) -> Profiling {
        Profiling {
            profile: SplitProfile {
                threads,
                by_thread: vec![[0; 3]; threads.min(MAX_THREADS)],
                ..SplitProfile::default()
            },
            shares: (0..threads.min(MAX_THREADS))
                .map(|_| Share::default())
                .collect(),
        }
    }

    /// Runs `share` (thread `i`'s part of a step), noting its time.
    #[inline]
    pub(super) fn time_share(&self, i: usize, share: impl FnOnce()) {
        let start = Instant::now();
        share();
        let ns = start.elapsed().as_nanos() as u64;
        self.shares[i].0.store(ns, Ordering::Relaxed);
    }

    /// Notes step `s`, which took `wall` from its start to its last share's end (the shares'
    /// stores are visible: the crew's join orders them before its return).
    pub(super) fn end_step(&mut self, s: usize, wall: u64) {
        let p = &mut self.profile;
        p.wall[s] += wall;
        let shares = self.shares.iter().map(|x| x.0.load(Ordering::Relaxed));
        p.busy[s] += shares.clone().sum::<u64>();
        p.slowest[s] += shares.clone().max().unwrap_or(0);
        for (t, ns) in p.by_thread.iter_mut().zip(shares) {
            t[s] += ns;
        }
    }

    /// Notes a whole cycle of `total`.
    pub(super) fn end_cycle(&mut self, total: u64) {
        self.profile.cycles += 1;
        self.profile.total += total;
    }
}
