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
/// large, before it is first written (so that the pages are huge from the start). A large one
/// is written by every core, each taking whole huge pages: the kernel clears a page when it is
/// first written, and the pages of a million-node network's arrays (a gigabyte) are cleared
/// faster side by side.
pub fn filled<T: Clone + Send + Sync>(n: usize, value: T) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    if !advise(&v) {
        v.resize(n, value);
        return v;
    }
    use rayon::prelude::*;
    let per_page = (HUGE_PAGE / std::mem::size_of::<T>().max(1)).max(1);
    v.spare_capacity_mut()[..n]
        .par_chunks_mut(per_page)
        .for_each(|chunk| {
            for x in chunk {
                x.write(value.clone());
            }
        });
    // SAFETY: the first `n` elements were all written just above, and `n` is within capacity.
    unsafe { v.set_len(n) };
    v
}

/// An empty vector with room for `n` elements, asked to be backed by huge pages when large.
pub fn with_capacity<T>(n: usize) -> Vec<T> {
    let v = Vec::with_capacity(n);
    advise(&v);
    v
}

/// A huge page, bytes.
const HUGE_PAGE: usize = 2 << 20;

/// Asks the kernel for huge pages over the whole 2 MiB pages inside `v`'s allocation, if it is
/// large; true when it is.
fn advise<T>(v: &Vec<T>) -> bool {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < HUGE_FROM {
        return false;
    }
    #[cfg(target_os = "linux")]
    {
        let start = v.as_ptr() as usize;
        let (lo, hi) = (
            start.next_multiple_of(HUGE_PAGE),
            (start + bytes) / HUGE_PAGE * HUGE_PAGE,
        );
        if hi > lo {
            // SAFETY: [lo, hi) lies inside the vector's allocation; MADV_HUGEPAGE changes only
            // how the kernel backs those pages, never their contents. A refusal (a kernel
            // without transparent huge pages) leaves ordinary pages, so the result is ignored.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::filled;

    /// Every element is the value, whether the vector is written by one thread (small) or by
    /// every core a huge page at a time (9 MiB and a few elements, past `HUGE_FROM`).
    #[test]
    fn a_vector_is_filled_whole() {
        for n in [0, 1, 1000, (9 << 20) / 8 + 3] {
            let v = filled(n, (7u32, 9u32));
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|&x| x == (7, 9)), "n = {n}");
        }
    }
}
