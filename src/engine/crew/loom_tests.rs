//! Model checks of a job's start and end (`.ci/loom`: `RUSTFLAGS="--cfg loom"`): loom runs the
//! crew's threads through every interleaving of their atomic, mutex and park steps (up to a
//! number of preemptions) and fails on a read that no write happens before, or on a deadlock
//! (a lost wake-up, or a helper that never ends).

use super::Crew;
use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::thread;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

/// Checks `f` in every interleaving with at most `bound` preemptions, unless
/// `LOOM_MAX_PREEMPTIONS` says otherwise.
fn check(bound: usize, f: impl Fn() + Sync + Send + 'static) {
    let mut model = loom::model::Builder::new();
    model.preemption_bound.get_or_insert(bound);
    model.check(f);
}

/// One counter per share, each written only by its own share and read by the caller between
/// jobs: loom tracks every access, so one that the crew leaves unordered fails the check.
struct Slots(Vec<UnsafeCell<usize>>);

// SAFETY: share i touches only slot i, and the caller reads them only between jobs; whether
// the crew orders those accesses is what loom checks.
unsafe impl Sync for Slots {}

impl Slots {
    fn new(n: usize) -> Slots {
        Slots((0..n).map(|_| UnsafeCell::new(0)).collect())
    }

    /// Share i's step: counts one more run of it.
    fn bump(&self, i: usize) {
        self.0[i].with_mut(|p| {
            // SAFETY: only share i touches slot i while a job runs.
            unsafe { *p += 1 }
        });
    }

    /// Every slot's count, read by the caller between jobs.
    fn counts(&self) -> Vec<usize> {
        self.0
            .iter()
            .map(|s| {
                s.with(|p| {
                    // SAFETY: no share runs between jobs.
                    unsafe { *p }
                })
            })
            .collect()
    }
}

/// A crew of `threads` runs two jobs in a row: after each `run`, the caller sees every share's
/// write, each share having run exactly once per job; then the crew's drop ends every helper.
fn two_jobs(threads: usize) {
    let crew = Crew::new(threads).expect("threads start");
    let slots = Slots::new(threads);
    for round in 1..=2 {
        crew.run(&|i| slots.bump(i));
        assert_eq!(slots.counts(), vec![round; threads]);
    }
}

#[test]
fn a_crew_of_2_runs_two_jobs_each_share_once_seen_by_the_caller() {
    check(4, || two_jobs(2));
}

#[test]
fn a_crew_of_3_runs_two_jobs_each_share_once_seen_by_the_caller() {
    // A bound of 2 takes minutes on 2 cores.
    check(1, || two_jobs(3));
}

#[test]
fn a_crew_that_ran_no_job_drops() {
    check(3, || drop(Crew::new(3).expect("threads start")));
}

/// A share's panic, raised without the panic hook so that the model's many runs print nothing.
#[derive(Debug, PartialEq)]
struct Boom(usize);

#[test]
fn a_helpers_panic_reaches_the_caller_and_the_crew_goes_on() {
    check(4, || {
        let crew = Crew::new(2).expect("threads start");
        let slots = Slots::new(2);
        let run = catch_unwind(AssertUnwindSafe(|| {
            crew.run(&|i| {
                slots.bump(i);
                if i == 1 {
                    resume_unwind(Box::new(Boom(i)));
                }
            })
        }));
        let payload = run.expect_err("the helper's panic reaches the caller");
        assert_eq!(payload.downcast_ref::<Boom>(), Some(&Boom(1)));
        crew.run(&|i| slots.bump(i));
        assert_eq!(slots.counts(), vec![2, 2]);
    });
}

/// The crew's end of a job with the helper's `done` bump weakened to `Relaxed`: loom must find
/// the caller's read of the helper's write unordered (it shows the check can fail).
#[test]
#[should_panic(expected = "Causality violation")]
fn the_check_finds_a_done_bump_without_release() {
    check(3, || {
        let slot = Arc::new(UnsafeCell::new(0));
        let done = Arc::new(AtomicUsize::new(0));
        let helper = {
            let (slot, done) = (Arc::clone(&slot), Arc::clone(&done));
            thread::spawn(move || {
                slot.with_mut(|p| {
                    // SAFETY: loom runs one thread at a time: the race is the model's, to report.
                    unsafe { *p = 1 }
                });
                done.fetch_add(1, Ordering::Relaxed);
            })
        };
        while done.load(Ordering::Acquire) == 0 {
            thread::yield_now();
        }
        slot.with(|p| {
            // SAFETY: as above; loom is to report this read's race with the helper's write.
            unsafe { *p }
        });
        helper.join().expect("the helper ends");
    });
}
