//! The large per-buffer, per-channel and per-link arrays of a big network on the kernel's
//! transparent huge pages (2 MiB on x86-64). A cycle touches them at random, so with 4 KiB
//! pages nearly every access of a million-node network also misses the address-translation
//! caches; on huge pages the same arrays need a few hundred translations instead of a few
//! hundred thousand. A request to the kernel only: the contents, and so every result, are the
//! same either way.

/// Arrays smaller than this keep ordinary pages (they fit in a few huge pages' worth of
/// translations anyway, and small networks must not pay for the request).
const HUGE_FROM: usize = 8 << 20;

/// A vector of `n` copies of `value`, its memory asked to be backed by huge pages when it is
/// large, before it is first written (so that the pages are huge from the start).
pub fn filled<T: Clone>(n: usize, value: T) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    advise(&v);
    v.resize(n, value);
    v
}

/// An empty vector with room for `n` elements, asked to be backed by huge pages when large.
pub fn with_capacity<T>(n: usize) -> Vec<T> {
    let v = Vec::with_capacity(n);
    advise(&v);
    v
}

/// Asks the kernel for huge pages over the whole 2 MiB pages inside `v`'s allocation.
fn advise<T>(v: &Vec<T>) {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < HUGE_FROM {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = v.as_ptr() as usize;
        let (lo, hi) = (start.next_multiple_of(HUGE), (start + bytes) / HUGE * HUGE);
        if hi > lo {
            // SAFETY: [lo, hi) lies inside the vector's allocation; MADV_HUGEPAGE changes only
            // how the kernel backs those pages, never their contents. A refusal (a kernel
            // without transparent huge pages) leaves ordinary pages, so the result is ignored.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
}
