//! Hop distributions of paper 002's permutations on hypercubes: bit-reversal and
//! matrix-transpose, n = 4..10, alone and mixed with uniform traffic.
//!
//! (a) Exact: the library's `model::enumerate::hop_distribution` against an enumeration written
//! here (every source, the bit map applied here) and against paper 002's closed forms, corrected
//! where the printed text is garbled (see `bit_reversal_count` and `transpose_count`).
//! (b) Simulated: the hop histogram of the messages measured by `run_point` at low load against
//! the exact distribution (chi-square at the 0.9999 quantile, 5-sigma test of the mean).
//!
//! Statistics of (b): under a fixed permutation a source always makes the same number of hops,
//! so the measured hop counts are not independent draws per message; but each source's number
//! of measured messages is Poisson(λW) (its own Poisson process over the W-cycle window),
//! independent across sources, so the count of messages that made h hops is Poisson with mean
//! λW·n_h (n_h the sources at h hops) independently across h. Given the total, the histogram is
//! multinomial with p_h = n_h / Σ n_h: the chi-square test is sound. In a mixture each message
//! independently follows the pattern (probability x) or is uniform, and the same argument holds
//! with p_h the mixture's distribution.

use crate::common::{Topo, chi2_9999};
use flitsim::Scenario;
use flitsim::engine::run_point;
use flitsim::model::enumerate::{hop_distribution, mean_distance};
use flitsim::network::Network;
use flitsim::stats::StopReason;
use flitsim::traffic::Traffic;

/// A hypercube scenario with e-cube routing and the given `[traffic]` lines.
fn cube_scenario(n: usize, traffic: &str, m: u32, rate: f64, measure: u64, seed: u64) -> Scenario {
    let text = format!(
        "name = \"traffic-hops\"\nseed = {seed}\n{}\n[router]\nvcs = 1\nbuffer_depth = 4\n\n\
         [routing]\nalgorithm = \"dor\"\n\n[traffic]\n{traffic}\nmessage_length = {m}\n\
         rates = [{rate:?}]\n\n[run]\nwarmup_cycles = 1000\nmeasure_cycles = {measure}\n",
        Topo::hypercube(n).toml()
    );
    Scenario::from_toml(&text, "traffic-hops.toml")
        .unwrap_or_else(|e| panic!("test scenario rejected: {e}\n{text}"))
}

/// A map of n-bit addresses, and the closed-form count of sources at i hops.
type BitMap = fn(u32, usize) -> u32;
type Count = fn(usize, usize) -> u64;

fn binom(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    (0..k).fold(1u64, |acc, i| acc * (n - i) / (i + 1))
}

/// Bit-reversal of the n-bit address, bit by bit: bit i goes to bit n-1-i.
fn reverse(x: u32, n: usize) -> u32 {
    (0..n).fold(0, |acc, i| acc | (((x >> i) & 1) << (n - 1 - i)))
}

/// Matrix-transpose of the n-bit address as flitsim defines it: bit i goes to bit
/// (i + ⌊n/2⌋) mod n. For even n the two halves swap; for odd n this is one cycle of all n bit
/// positions, the "fictive circle" of paper 002's odd-n analysis. Paper 002 prints the map as
/// x_{n/2}..x_1 x_n..x_{n/2+1} (even n) and x_{(n-1)/2}..x_1 x_n..x_{(n+1)/2} (odd n). Read
/// most significant bit first (section 2 writes addresses x_n..x_1), the even form is this swap
/// and the odd form the rotation by ⌈n/2⌉, the inverse of this one (a map and its inverse have
/// the same hop distribution, which is all the paper uses). Read position by position against
/// the source as section 3 writes it (x_1 x_2 .. x_n), it would reverse each half instead, which
/// is not what the analysis ("a bit difference in the first n/2 positions results in another in
/// the remaining n/2") describes.
fn transpose(x: u32, n: usize) -> u32 {
    let r = n / 2;
    (0..n).fold(0, |acc, i| acc | (((x >> i) & 1) << ((i + r) % n)))
}

/// Sources whose message makes i hops, i = 0..=n, by enumeration of all 2^n sources.
fn enumerate_counts(n: usize, map: impl Fn(u32, usize) -> u32) -> Vec<u64> {
    let mut c = vec![0u64; n + 1];
    for x in 0..1u32 << n {
        c[(x ^ map(x, n)).count_ones() as usize] += 1;
    }
    c
}

/// Bit-reversal, sources at i hops. Paper 002 eq. 7 (even n): C(n/2, i/2)·2^(n/2) for even i,
/// 0 for odd i. Eq. 8 (all n) must read C(⌊n/2⌋, i/2)·2^(⌊n/2⌋ + n mod 2) — the printed
/// C(n/2, i/2) is not defined for odd n; the middle bit is its own mirror and doubles the count.
/// Eq. 9 is garbled: printed P = C(⌊n/2⌋, i/2) / 2^(⌊n/2⌋ − n mod 2); dividing eq. 8 by
/// N − n₀ = 2^n − 2^⌈n/2⌉ gives P_i = C(⌊n/2⌋, i/2) / (2^⌊n/2⌋ − 1), i = 2, 4, ...
fn bit_reversal_count(n: usize, i: usize) -> u64 {
    if i % 2 == 1 {
        return 0;
    }
    binom(n as u64 / 2, i as u64 / 2) << (n / 2 + n % 2)
}

/// Matrix-transpose, sources at i hops. Even n: paper 002 eq. 12, 2^(n/2)·C(n/2, i/2) for even
/// i. Odd n: eq. 13, 2·C(n, i) for even i (binary strings on a circle of n positions with
/// exactly i changes between neighbours: choose the i change points, then the first bit).
/// Eqs. 14-15 state these correctly (P_i = C(n/2, i/2)/(2^(n/2) − 1) for even n and
/// C(n, i)/(2^(n−1) − 1) for odd n), but the text around them is garbled: it calls the
/// transpose probabilities P_β ("bit-reversal"), says "combining equations (4) and (5)" for
/// (12) and (13), and prints the map ambiguously (see `transpose`).
fn transpose_count(n: usize, i: usize) -> u64 {
    if i % 2 == 1 {
        return 0;
    }
    if n.is_multiple_of(2) {
        binom(n as u64 / 2, i as u64 / 2) << (n / 2)
    } else {
        2 * binom(n as u64, i as u64)
    }
}

/// The printed (garbled) paper 002 eq. 9.
fn eq9_printed(n: usize, i: usize) -> f64 {
    if i % 2 == 1 {
        return 0.0;
    }
    binom(n as u64 / 2, i as u64 / 2) as f64 / 2f64.powi(n as i32 / 2 - (n % 2) as i32)
}

fn traffic_for(n: usize, pattern: &str, x: f64) -> (flitsim::topology::KAryNCube, Traffic) {
    let s = cube_scenario(
        n,
        &format!("pattern = \"{pattern}\"\npattern_fraction = {x:?}"),
        2,
        0.01,
        100,
        1,
    );
    let topo = Network::for_scenario(&s).cube().clone();
    let t = Traffic::new(&s.traffic, flitsim::traffic::Addresses::of(&topo), 1);
    (topo, t)
}

/// (a) n = 4..10: the library's map is the bit map applied here; its hop distribution and mean
/// distance equal the enumeration here, which equals the (corrected) closed forms; the printed
/// eq. 9 does not. Mixtures with uniform (x = 0, 0.2, ..., 1) average the two distributions
/// weighted by the messages actually sent.
#[test]
fn bit_reversal_and_transpose_hop_distributions_n4_to_n10() {
    let close = |a: f64, b: f64| (a - b).abs() < 1e-10 * (1.0 + b.abs());
    for n in 4..=10usize {
        let nodes = 1u64 << n;
        let maps: [(&str, BitMap, Count); 2] = [
            ("bit-reversal", reverse, bit_reversal_count),
            ("matrix-transpose", transpose, transpose_count),
        ];
        for (name, map, closed) in maps {
            let ctx = format!("{name} n={n}");
            let counts = enumerate_counts(n, map);
            for (i, &c) in counts.iter().enumerate() {
                assert_eq!(c, closed(n, i), "{ctx}: sources at {i} hops");
            }
            let n0 = counts[0];
            let sent = (nodes - n0) as f64;
            let (topo, t) = traffic_for(n, name, 1.0);
            // The library's map, source by source: one destination with probability 1, or
            // nothing from a fixed point.
            for s in 0..nodes as u32 {
                let d = t.distribution(s);
                if map(s, n) == s {
                    assert!(d.is_empty(), "{ctx}: fixed point {s} sends {d:?}");
                } else {
                    assert_eq!(d, vec![(map(s, n), 1.0)], "{ctx}: source {s}");
                }
            }
            let p = hop_distribution(&topo, &t);
            assert_eq!(p.len(), n + 1, "{ctx}");
            assert_eq!(p[0], 0.0, "{ctx}");
            for i in 1..=n {
                assert!(close(p[i], counts[i] as f64 / sent), "{ctx}: P_{i}");
            }
            let dbar: f64 = (1..=n).map(|i| i as f64 * counts[i] as f64 / sent).sum();
            assert!(close(mean_distance(&topo, &t), dbar), "{ctx}: mean");
            assert!(close(t.offered_fraction(), sent / nodes as f64), "{ctx}");
            if name == "bit-reversal" {
                // Corrected eq. 9 holds; the printed one is off (at i = 2 for every n here).
                let h = n / 2;
                for i in (2..=n).step_by(2) {
                    let p9 = binom(h as u64, i as u64 / 2) as f64 / ((1u64 << h) - 1) as f64;
                    assert!(close(p[i], p9), "{ctx}: corrected eq. 9 at {i}");
                }
                assert!(
                    (p[2] - eq9_printed(n, 2)).abs() > 1e-3,
                    "{ctx}: printed eq. 9"
                );
            }
            // Mixtures: each message follows the pattern with probability x, else is uniform
            // (uniform hop distribution C(n,i)/(N-1), paper 002 eq. 1). Fixed points send no
            // pattern message, so among sent messages the pattern's share is
            // x(N-n0)/N / (x(N-n0)/N + 1 - x) (paper 002 eq. 11 weights d by x itself, which
            // is the same only when n0 = 0 or x is 0 or 1).
            for x in [0.0, 0.2, 0.4, 0.6, 0.8, 1.0] {
                let (topo, t) = traffic_for(n, name, x);
                let pat = x * sent / nodes as f64;
                let uni = 1.0 - x;
                let p = hop_distribution(&topo, &t);
                let mut mean = 0.0;
                for i in 1..=n {
                    let want = (pat * counts[i] as f64 / sent
                        + uni * binom(n as u64, i as u64) as f64 / (nodes - 1) as f64)
                        / (pat + uni);
                    assert!(close(p[i], want), "{ctx} x={x}: P_{i}");
                    mean += i as f64 * want;
                }
                let md = mean_distance(&topo, &t);
                assert!(close(md, mean), "{ctx} x={x}: {md} vs {mean}");
                assert!(close(t.offered_fraction(), pat + uni), "{ctx} x={x}");
            }
        }
    }
}

/// Mean distance of pure bit-reversal and matrix-transpose (x = 1), n = 4..10, from the
/// enumeration, against uniform traffic's d_u = n·2^(n−1)/(2^n − 1) (paper 002 eq. 2).
/// Bit-reversal: 8/3, 8/3, 24/7, 24/7, 64/15, 64/15, 160/31 — above d_u for n = 4, 5, 6, 8, 10
/// (2.667 vs 2.133 at n = 4, 5.161 vs 5.005 at n = 10), below only for n = 7, 9. Transpose: the
/// same for even n, n·2^(n−2)/(2^(n−1) − 1) for odd n (8/3, 32/9, 384/85), above d_u for every
/// n. So mixing in either pattern lengthens the mean path for most n, while paper 002's
/// discussion of Figs. 3 and 4 says the path length decreases as the pattern's share grows. The
/// printed (garbled) eq. 9 would give that: its mean for even n is exactly n/2 < d_u. (Both
/// patterns' means grow with n, so the remark on Fig. 4 that at high transpose shares the path
/// length decreases as n grows does not hold either.)
#[test]
fn pure_pattern_mean_distances_against_uniform() {
    let mut prev = [0.0f64; 2];
    for n in 4..=10usize {
        let d_u = n as f64 * 2f64.powi(n as i32 - 1) / (2f64.powi(n as i32) - 1.0);
        for (k, name) in ["bit-reversal", "matrix-transpose"].iter().enumerate() {
            let (topo, t) = traffic_for(n, name, 1.0);
            let d = mean_distance(&topo, &t);
            if n % 2 == 1 && k == 1 {
                let want = n as f64 * 2f64.powi(n as i32 - 2) / (2f64.powi(n as i32 - 1) - 1.0);
                assert!((d - want).abs() < 1e-12, "{name} n={n}: {d} vs {want}");
            }
            let longer = k == 1 || !(n == 7 || n == 9);
            assert_eq!(d > d_u, longer, "{name} n={n}: {d} vs uniform {d_u}");
            assert!(d >= prev[k] - 1e-12, "{name}: mean distance falls at n={n}");
            prev[k] = d;
        }
        if n.is_multiple_of(2) {
            let printed: f64 = (0..=n).map(|i| i as f64 * eq9_printed(n, i)).sum();
            assert!((printed - n as f64 / 2.0).abs() < 1e-12 && printed < d_u);
        }
    }
    assert!((prev[0] - 160.0 / 31.0).abs() < 1e-12);
}

/// (b) The simulated hop histogram (messages measured by `run_point`, e-cube, low load)
/// against the exact distribution, for pure patterns and one mixture.
#[test]
fn simulated_hop_histograms_match_enumeration() {
    for (n, name, x, rate, measure, seed) in [
        (5, "bit-reversal", 1.0, 0.03, 30_000, 41),
        (6, "matrix-transpose", 1.0, 0.03, 15_000, 42),
        (7, "matrix-transpose", 1.0, 0.02, 12_000, 43),
        (8, "bit-reversal", 1.0, 0.02, 6_000, 44),
        (7, "bit-reversal", 0.5, 0.02, 12_000, 45),
        (9, "matrix-transpose", 0.3, 0.01, 6_000, 46),
    ] {
        let ctx = format!("{name} n={n} x={x}");
        let s = cube_scenario(
            n,
            &format!("pattern = \"{name}\"\npattern_fraction = {x:?}"),
            2,
            rate,
            measure,
            seed,
        );
        let r = run_point(&s, rate, seed).unwrap();
        assert_eq!(r.stop, StopReason::Drained, "{ctx}");
        assert_eq!(r.undelivered, 0, "{ctx}");
        let count = r.stats.count;
        let hist = &r.stats.hop_hist;
        assert_eq!(hist.iter().sum::<u64>(), count);
        assert!(count >= 15_000, "{ctx}: only {count} messages");
        // Exact distribution, from the enumeration here (the library's equals it: test above).
        let map: fn(u32, usize) -> u32 = if name == "bit-reversal" {
            reverse
        } else {
            transpose
        };
        let counts = enumerate_counts(n, map);
        let nodes = (1u64 << n) as f64;
        let sent = nodes - counts[0] as f64;
        let (pat, uni) = (x * sent / nodes, 1.0 - x);
        let p: Vec<f64> = (0..=n)
            .map(|i| {
                if i == 0 {
                    return 0.0;
                }
                (pat * counts[i] as f64 / sent
                    + uni * binom(n as u64, i as u64) as f64 / (nodes - 1.0))
                    / (pat + uni)
            })
            .collect();
        assert!(hist.len() <= n + 1, "{ctx}: more than n hops");
        assert_eq!(hist.first().copied().unwrap_or(0), 0, "{ctx}: sent to self");
        // Chi-square over the hop counts that can occur (pooling those expected below 5).
        let c = count as f64;
        let (mut chi2, mut bins, mut pool_o, mut pool_e) = (0.0, 0usize, 0.0, 0.0);
        for (i, &q) in p.iter().enumerate() {
            let o = hist.get(i).copied().unwrap_or(0) as f64;
            if q == 0.0 {
                assert_eq!(o, 0.0, "{ctx}: {o} messages at {i} hops, impossible");
                continue;
            }
            if c * q < 5.0 {
                pool_o += o;
                pool_e += c * q;
                continue;
            }
            chi2 += (o - c * q).powi(2) / (c * q);
            bins += 1;
        }
        if pool_e > 0.0 {
            chi2 += (pool_o - pool_e).powi(2) / pool_e;
            bins += 1;
        }
        let limit = chi2_9999(bins - 1);
        assert!(
            chi2 < limit,
            "{ctx}: chi-square {chi2:.1} > {limit:.1} ({bins} bins); {hist:?} vs {p:?}"
        );
        // Mean hops: Σ_h (h − d̄)·count_h has mean 0 and variance Σ_h (h − d̄)²·E[count_h]
        // (independent Poisson counts), i.e. c·Var(h).
        let m1: f64 = p.iter().enumerate().map(|(i, q)| i as f64 * q).sum();
        let m2: f64 = p.iter().enumerate().map(|(i, q)| (i * i) as f64 * q).sum();
        let got = r.stats.hops_mean();
        let z = (got - m1) * c / (c * (m2 - m1 * m1)).sqrt();
        assert!(z.abs() < 5.0, "{ctx}: mean hops {got} vs {m1} (z = {z:.2})");
        println!(
            "{ctx}: {count} messages, chi-square {chi2:.1} (limit {limit:.1}, {bins} bins), \
             mean hops {got:.4} vs exact {m1:.4} (z = {z:.2})"
        );
    }
}
