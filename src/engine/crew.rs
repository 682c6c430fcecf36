//! The threads of a split point: the calling thread and `n - 1` helpers, started once per
//! engine, that run one job on every partition at once, several times a cycle. A job's start
//! and end are one atomic counter each: a waiting thread spins briefly, then yields, then
//! parks, so that a cycle's meeting points cost about a microsecond while the crew is busy and
//! an idle crew costs no core. A crew "in turn" has no helpers: the calling thread runs the
//! partitions' shares one after another, to weigh a split cycle's own work against one
//! thread's cycle (`examples/split_probe`).

#[cfg(all(test, loom))]
mod loom_tests;
mod sync;

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
#[cfg(not(loom))]
use std::time::{Duration, Instant};
use sync::thread::{self, JoinHandle, Thread};
use sync::{Arc, AtomicBool, AtomicU64, AtomicUsize, Mutex, Ordering, UnsafeCell};

/// A job: partition `i`'s share, run on thread `i` (the caller is thread 0).
type Job<'a> = &'a (dyn Fn(usize) + Sync);

/// What the crew's threads share.
struct Deck {
    /// Bumped to start a job.
    epoch: AtomicU64,
    /// Helpers that finished the current job.
    done: AtomicUsize,
    /// The crew is being dropped.
    stop: AtomicBool,
    /// The first panic of a helper's share of the current job, for the caller to go on with.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// The current job, its lifetime erased (valid while `epoch`'s job runs).
    job: UnsafeCell<Option<Job<'static>>>,
    /// Each helper's handle, to unpark it; and the caller's, for the helpers to unpark.
    helpers: Mutex<Vec<Thread>>,
    caller: Mutex<Option<Thread>>,
}

impl Deck {
    /// A deck for a crew that has run no job.
    fn new() -> Arc<Deck> {
        Arc::new(Deck {
            epoch: AtomicU64::new(0),
            done: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            panic: Mutex::new(None),
            job: UnsafeCell::new(None),
            helpers: Mutex::new(Vec::new()),
            caller: Mutex::new(None),
        })
    }
}

// SAFETY: `job` is written by the caller only between jobs (every helper done, none reading),
// and read by helpers only after the epoch's release; the rest is atomics and mutexes.
unsafe impl Sync for Deck {}

/// The crew of one engine.
pub(super) struct Crew {
    deck: Arc<Deck>,
    handles: Vec<JoinHandle<()>>,
    threads: usize,
    /// The calling thread runs every share, one after another.
    in_turn: bool,
}

/// Spins for about a microsecond, yields for up to 2 ms, then parks (woken by the thread that
/// makes `ready` hold, or after a millisecond) until `ready` holds: a busy crew meets without a
/// system call and keeps its cores awake through the cycle's serial parts (a parked virtual
/// core comes back slower), on a machine with more threads than cores a waiting thread gives
/// its core to any other that wants it, and an idle crew costs no core.
#[cfg(not(loom))]
fn wait_until(ready: impl Fn() -> bool) {
    let start = Instant::now();
    let mut spins = 0u32;
    while !ready() {
        if spins < 1 << 10 {
            spins += 1;
            std::hint::spin_loop();
        } else if start.elapsed() < Duration::from_millis(2) {
            std::thread::yield_now();
        } else {
            std::thread::park_timeout(Duration::from_millis(1));
        }
    }
}

/// Parks until `ready` holds: loom explores the other threads' steps meanwhile, and early
/// wake-ups (the std version's spins, yields and timeouts), and finds a wake-up that never comes.
#[cfg(loom)]
fn wait_until(ready: impl Fn() -> bool) {
    while !ready() {
        thread::park();
    }
}

impl Crew {
    /// The caller and `threads - 1` helpers; None if a helper cannot start.
    pub fn new(threads: usize) -> Option<Crew> {
        let deck = Deck::new();
        let mut handles = Vec::new();
        for i in 1..threads {
            let mine = Arc::clone(&deck);
            let h = thread::Builder::new()
                .name(format!("flitsim-point-{i}"))
                .spawn(move || helper(&mine, i))
                .ok()?;
            deck.helpers
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(h.thread().clone());
            handles.push(h);
        }
        Some(Crew {
            deck,
            handles,
            threads,
            in_turn: false,
        })
    }

    /// No helpers: the caller runs `shares` shares of each job, one after another.
    pub fn in_turn(shares: usize) -> Crew {
        Crew {
            deck: Deck::new(),
            handles: Vec::new(),
            threads: shares,
            in_turn: true,
        }
    }

    /// Threads, the caller's included (shares, for a crew in turn).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Whether the caller runs every share, one after another.
    pub fn runs_in_turn(&self) -> bool {
        self.in_turn
    }

    /// Runs `job(i)` on thread i for every i, the caller running `job(0)`; returns when all have.
    /// A share that panics makes `run` panic with it once every share has ended (so that no
    /// thread is left running a job whose data the unwinding frees).
    /// A crew in turn runs `job(0)`, `job(1)` and so on on the caller, and a panic goes on at
    /// once.
    pub fn run(&self, job: &(dyn Fn(usize) + Sync)) {
        if self.in_turn {
            (0..self.threads).for_each(job);
            return;
        }
        let d = &*self.deck;
        *d.caller.lock().unwrap_or_else(|e| e.into_inner()) = Some(thread::current());
        // SAFETY: only the lifetime changes; the reference outlives this call, which returns
        // only once every helper has finished with it.
        let erased = unsafe { std::mem::transmute::<Job<'_>, Job<'static>>(job) };
        // SAFETY: no helper reads `job` now (all finished the last job, or none has started).
        unsafe { sync::write(&d.job, Some(erased)) };
        d.done.store(0, Ordering::Relaxed);
        d.epoch.fetch_add(1, Ordering::Release);
        for h in d.helpers.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            h.unpark();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| job(0)));
        let helpers = self.threads - 1;
        wait_until(|| d.done.load(Ordering::Acquire) == helpers);
        let theirs = d.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Err(payload) = mine {
            resume_unwind(payload);
        }
        if let Some(payload) = theirs {
            resume_unwind(payload);
        }
    }
}

/// Helper `i`'s loop: each new epoch, its share of the job.
fn helper(d: &Deck, i: usize) {
    let mut seen = 0u64;
    loop {
        wait_until(|| d.stop.load(Ordering::Acquire) || d.epoch.load(Ordering::Acquire) != seen);
        if d.stop.load(Ordering::Acquire) {
            return;
        }
        seen = d.epoch.load(Ordering::Acquire);
        // SAFETY: the job was stored before the epoch's release and stays until all are done.
        if let Some(job) = unsafe { sync::read(&d.job) }
            && let Err(payload) = catch_unwind(AssertUnwindSafe(|| job(i)))
        {
            d.panic
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_or_insert(payload);
        }
        d.done.fetch_add(1, Ordering::Release);
        if let Some(c) = &*d.caller.lock().unwrap_or_else(|e| e.into_inner()) {
            c.unpark();
        }
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        self.deck.stop.store(true, Ordering::Release);
        for h in self.handles.drain(..) {
            h.thread().unpark();
            let _ = h.join();
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::Crew;
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_share_that_panics_panics_the_run_and_the_crew_goes_on() {
        let crew = Crew::new(3).expect("threads start");
        for who in [2, 0] {
            let run = catch_unwind(AssertUnwindSafe(|| {
                crew.run(&|i| {
                    if i == who {
                        panic!("share {i}");
                    }
                })
            }));
            let payload = run.expect_err("the share's panic reaches the caller");
            let text = payload.downcast_ref::<String>().expect("a message");
            assert_eq!(text, &format!("share {who}"));
        }
        let shares = AtomicUsize::new(0);
        crew.run(&|i| {
            shares.fetch_add(1 << (8 * i), Ordering::Relaxed);
        });
        assert_eq!(shares.into_inner(), 0x01_01_01);
    }

    #[test]
    fn a_crew_in_turn_runs_each_share_once_in_order_on_the_caller() {
        let crew = Crew::in_turn(3);
        assert_eq!(crew.threads(), 3);
        let caller = std::thread::current().id();
        let order = std::sync::Mutex::new(Vec::new());
        crew.run(&|i| {
            assert_eq!(std::thread::current().id(), caller);
            order.lock().unwrap().push(i);
        });
        assert_eq!(order.into_inner().unwrap(), vec![0, 1, 2]);
    }
}
