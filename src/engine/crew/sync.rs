//! The crew's synchronization primitives: std's, or loom's under `--cfg loom`, for the model
//! check of a job's start and end (`loom_tests`, run by `.ci/loom`).

#[cfg(loom)]
pub(super) use loom::{
    cell::UnsafeCell,
    sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
    sync::{Arc, Mutex},
};
#[cfg(not(loom))]
pub(super) use std::{
    cell::UnsafeCell,
    sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
    sync::{Arc, Mutex},
    thread,
};

/// Writes `value` into `cell`.
///
/// # Safety
/// No other thread reads or writes `cell` meanwhile.
#[cfg(not(loom))]
#[inline]
pub(super) unsafe fn write<T>(cell: &UnsafeCell<T>, value: T) {
    // SAFETY: the pointer is the live cell's, and the caller excludes every other access.
    unsafe { *cell.get() = value }
}

/// Reads a copy of `cell`'s value.
///
/// # Safety
/// No other thread writes `cell` meanwhile.
#[cfg(not(loom))]
#[inline]
pub(super) unsafe fn read<T: Copy>(cell: &UnsafeCell<T>) -> T {
    // SAFETY: the pointer is the live cell's, and the caller excludes every write.
    unsafe { *cell.get() }
}

/// Writes `value` into `cell`, loom checking that no other access races with it.
///
/// # Safety
/// No other thread reads or writes `cell` meanwhile.
#[cfg(loom)]
pub(super) unsafe fn write<T>(cell: &UnsafeCell<T>, value: T) {
    cell.with_mut(|p| {
        // SAFETY: the pointer is the live cell's, and the caller excludes every other access.
        unsafe { *p = value }
    })
}

/// Reads a copy of `cell`'s value, loom checking that no write races with it.
///
/// # Safety
/// No other thread writes `cell` meanwhile.
#[cfg(loom)]
pub(super) unsafe fn read<T: Copy>(cell: &UnsafeCell<T>) -> T {
    cell.with(|p| {
        // SAFETY: the pointer is the live cell's, and the caller excludes every write.
        unsafe { *p }
    })
}

/// loom's threads with std's park token made of loom's `Notify`, which may also wake early, as
/// a timed park does: loom's own `unpark` also wakes a thread blocked in `join`, aborting the
/// model (loom issue 249), and a helper unparks the caller after its last `done` while the
/// dropping caller may be joining it.
#[cfg(loom)]
pub(super) mod thread {
    use std::cell::RefCell;
    use std::sync::Arc;

    /// A thread's handle, to unpark it.
    #[derive(Clone)]
    pub struct Thread(Arc<loom::sync::Notify>);

    impl Thread {
        fn new() -> Thread {
            Thread(Arc::new(loom::sync::Notify::new()))
        }

        /// Makes the thread's token available, waking it if it parks.
        pub fn unpark(&self) {
            self.0.notify();
        }
    }

    loom::thread_local! {
        /// The running thread's handle: set by `Builder::spawn`, else made on first use.
        static CURRENT: RefCell<Option<Thread>> = RefCell::new(None);
    }

    /// The running thread's handle.
    pub fn current() -> Thread {
        CURRENT.with(|c| c.borrow_mut().get_or_insert_with(Thread::new).clone())
    }

    /// Takes the running thread's token, waiting for it (or not, spuriously).
    pub fn park() {
        current().0.wait();
    }

    /// `std::thread::Builder`'s name and spawn.
    pub struct Builder(loom::thread::Builder);

    impl Builder {
        pub fn new() -> Builder {
            Builder(loom::thread::Builder::new())
        }

        pub fn name(self, name: String) -> Builder {
            Builder(self.0.name(name))
        }

        /// Starts `f` on a new thread, which `current` then names by the handle's `thread`.
        pub fn spawn<F, T>(self, f: F) -> std::io::Result<JoinHandle<T>>
        where
            F: FnOnce() -> T + Send + 'static,
            T: Send + 'static,
        {
            let thread = Thread::new();
            let mine = thread.clone();
            let handle = self.0.spawn(move || {
                CURRENT.with(|c| *c.borrow_mut() = Some(mine));
                f()
            })?;
            Ok(JoinHandle(handle, thread))
        }
    }

    /// A started thread: its handle, and the wait for its end.
    pub struct JoinHandle<T>(loom::thread::JoinHandle<T>, Thread);

    impl<T> JoinHandle<T> {
        pub fn thread(&self) -> &Thread {
            &self.1
        }

        pub fn join(self) -> std::thread::Result<T> {
            self.0.join()
        }
    }
}
