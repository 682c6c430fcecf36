//! The program's allocator: the system's, except that an allocation the system refuses (memory
//! or address space exhausted, e.g. a point too large run with `--force`) ends the program with
//! one line on stderr and exit code 4, where Rust's default would print its own words and abort
//! (SIGABRT, a core dump). The points a run finished are on disk already (each is saved as it
//! finishes), so the rerun resumes. Nothing in flitsim asks for memory it can do without
//! (`try_reserve`): every failed allocation ends the program. The line is written with
//! `write(2)` and the program ends with `_exit(2)`, so that nothing is allocated, locked or
//! flushed on the way out. The engine allocates nothing per cycle, so the check costs the cycle
//! nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};

/// The system allocator, ending the program when an allocation fails.
struct Guard;

#[global_allocator]
static GUARD: Guard = Guard;

// SAFETY: every call is passed to the system allocator as it came; only a null result, which
// is never handed back, is acted on.
unsafe impl GlobalAlloc for Guard {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees on `layout` are the system allocator's.
        checked(unsafe { System.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        checked(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from the system's, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `dealloc`, and the caller's guarantees on `new_size`.
        checked(unsafe { System.realloc(ptr, layout, new_size) }, new_size)
    }
}

/// `ptr`, unless it is null: then the program ends, saying that `bytes` could not be had.
fn checked(ptr: *mut u8, bytes: usize) -> *mut u8 {
    if ptr.is_null() {
        out_of_memory(bytes);
    }
    ptr
}

/// Writes `flitsim: error: memory: ...; fix: ...` to stderr and ends the program with exit
/// code 4, allocating nothing. Only the first thread whose allocation fails says so: any other
/// waits for it to end the program, so that the line is one line.
fn out_of_memory(bytes: usize) -> ! {
    static SAID: AtomicBool = AtomicBool::new(false);
    if SAID.swap(true, Ordering::SeqCst) {
        loop {
            // SAFETY: pause waits for a signal; the first thread's `_exit` ends the process.
            unsafe { libc::pause() };
        }
    }
    let mut digits = itoa::Buffer::new();
    let parts: [&[u8]; 3] = [
        b"flitsim: error: memory: an allocation of ",
        digits.format(bytes).as_bytes(),
        b" bytes failed, the memory is exhausted; fix: a smaller network, fewer --threads, or a \
          machine with more memory (a run keeps the points it finished: rerun it to resume)\n",
    ];
    for part in parts {
        write_all(part);
    }
    // SAFETY: `_exit` ends the process at once; it is always safe to call.
    unsafe { libc::_exit(flitsim::error::EXIT_IO) }
}

/// Writes `bytes` to stderr whole, as far as stderr takes them.
fn write_all(mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: the pointer and length are those of a live slice.
        let n = unsafe { libc::write(libc::STDERR_FILENO, bytes.as_ptr().cast(), bytes.len()) };
        match n {
            n if n > 0 => bytes = &bytes[n as usize..],
            _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            _ => return,
        }
    }
}
