//! This machine's rate of random cache-line updates, the floor under a flit-hop's cost on a
//! network larger than the caches: each update reads and writes one 64-byte line at a random
//! place of an array of the given size (on huge pages, as the engine's arrays are), either one
//! after another or with each line asked for `AHEAD` updates early (as the engine's visits
//! ask for theirs), so that the misses overlap as far as the memory system allows.
//!
//! Run: `cargo run --release --example memory_probe -- MIB [AHEAD]`, e.g. `-- 1024 16`.

use std::time::Instant;

/// One cache line.
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Line([u64; 8]);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(mib) = args.first().and_then(|a| a.parse::<usize>().ok()) else {
        eprintln!("usage: memory_probe MIB [AHEAD]");
        std::process::exit(2);
    };
    let ahead: usize = args
        .get(1)
        .map_or(16, |a| a.parse().expect("a whole number"));
    let lines = (mib << 20) / 64;
    let mut a = flitsim::huge_pages::filled(lines, Line([0; 8]));
    // A fixed xorshift stream of places, made before the clock starts.
    let updates = 1 << 22;
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let at: Vec<u32> = (0..updates)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % lines as u64) as u32
        })
        .collect();
    for round in 0..3 {
        let t = Instant::now();
        for i in 0..updates {
            if ahead > 0
                && let Some(&j) = at.get(i + ahead)
            {
                prefetch(&a[j as usize]);
            }
            a[at[i] as usize].0[0] += 1;
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "{mib} MiB, {ahead} ahead, round {round}: {:.1} M line updates/s ({:.1} ns each)",
            updates as f64 / s / 1e6,
            s / updates as f64 * 1e9
        );
    }
    std::hint::black_box(&a);
}

/// Asks for the line of `x` (a hint).
#[inline(always)]
fn prefetch(x: &Line) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and faults on no address; `x` is a valid reference.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
            (x as *const Line).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
