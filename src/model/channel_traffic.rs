//! Paper 002's channel-traffic models on the binary n-cube (N = 2^n nodes, every node
//! generating λ messages/cycle): hop distributions of uniform, hotspot, bit-reversal and
//! matrix-transpose traffic and their mixtures with uniform traffic, mean distances, channel
//! rates under uniform and hotspot traffic, and the exact per-link rates of p-cube routing.
//!
//! Each closed form is checked in the tests below against exact enumeration
//! (`model::enumerate` with a `Traffic` of the pattern, or a brute force written in the test).
//! Where the printed equation is wrong, the function implements what enumeration gives and its
//! comment says what was corrected: eq. 8 (undefined for odd n), eq. 9 (wrong normalisation),
//! eqs. 11/17 (mixture weighted by x instead of the share of messages actually sent) and
//! eqs. 20-21 (garbled counts; re-derived here for a link by its source's weight).
//!
//! Addresses: bit-reversal maps bit i to bit n−1−i; matrix-transpose rotates the address by
//! ⌊n/2⌋ bits (the halves swap for even n), as `traffic::pattern` defines them.

/// C(n, k) as f64 (0 when k > n).
fn binom(n: u32, k: u32) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// N = 2^n.
fn nodes(n: u32) -> f64 {
    2f64.powi(n as i32)
}

/// Mean of a distribution over hops, Σ i·P_i.
pub fn mean_of(p: &[f64]) -> f64 {
    p.iter().enumerate().map(|(i, q)| i as f64 * q).sum()
}

/// Normalises per-source counts n_i (i = 0..=n) to the distribution of sent messages:
/// P_i = n_i / (N − n_0) for i ≥ 1, P_0 = 0 (paper 002 eqs. 9 and 15, as they define it).
fn normalise_sent(counts: &[f64]) -> Vec<f64> {
    let sent: f64 = counts.iter().skip(1).sum();
    counts
        .iter()
        .enumerate()
        .map(|(i, &c)| if i == 0 { 0.0 } else { c / sent })
        .collect()
}

/// Paper 002 eq. 1 (faithful): uniform traffic, P_u,i = C(n, i)/(N − 1), i = 0..=n (P_0 = 0).
pub fn uniform_hops(n: u32) -> Vec<f64> {
    (0..=n)
        .map(|i| {
            if i == 0 {
                0.0
            } else {
                binom(n, i) / (nodes(n) - 1.0)
            }
        })
        .collect()
}

/// Paper 002 eq. 2 (faithful): d_u = Σ i·P_u,i = n·2^(n−1)/(2^n − 1).
pub fn uniform_mean_distance(n: u32) -> f64 {
    n as f64 * nodes(n) / 2.0 / (nodes(n) - 1.0)
}

/// Paper 002 eq. 3 (faithful): λ_channel = N·λ·d_u/(n·N) = λ·d_u/n, exact on every link under
/// e-cube and fully adaptive routing (not under p-cube: see `pcube_link_rate`).
pub fn uniform_channel_rate(n: u32, lambda: f64) -> f64 {
    lambda * uniform_mean_distance(n) / n as f64
}

/// Paper 002 eq. 4 (faithful): a hotspot message makes i hops with probability C(n, i)/(N − 1)
/// (the N − 1 other nodes send to the hot node; the hot node sends none of its hotspot share),
/// so any mixture of hotspot and uniform messages has the uniform distribution too.
pub fn hotspot_hops(n: u32) -> Vec<f64> {
    uniform_hops(n)
}

/// Paper 002 eq. 4 → eq. 2: the mean distance under hotspot traffic is d_u, whatever h.
pub fn hotspot_mean_distance(n: u32) -> f64 {
    uniform_mean_distance(n)
}

/// Paper 002 eq. 5 (faithful as a class average only): the mean hotspot rate over the
/// (n − j + 1)·C(n, j − 1) = j·C(n, j) links whose tail is j hops from the hot node and whose head
/// j − 1 hops, λh·(N − Σ_{k<j} C(n, k))/((n − j + 1)·C(n, j − 1)), j = 1..=n. Exact as the
/// class mean under any minimal routing; link by link under e-cube the rates within a class
/// differ (λh·2^b on the link across bit b when b is the lowest bit differing from the hot node).
pub fn hotspot_rate_toward(n: u32, j: u32, lambda: f64, h: f64) -> f64 {
    assert!((1..=n).contains(&j), "j = {j} outside 1..={n}");
    let far = nodes(n) - (0..j).map(|k| binom(n, k)).sum::<f64>();
    lambda * h * far / ((n - j + 1) as f64 * binom(n, j - 1))
}

/// Paper 002 eq. 6 (faithful as a class average): the mean rate on the links j hops from the hot
/// node pointing toward it, (1 − h)·λ_channel (eq. 3) + λ_h,channel_j (eq. 5).
pub fn hotspot_channel_rate(n: u32, j: u32, lambda: f64, h: f64) -> f64 {
    (1.0 - h) * uniform_channel_rate(n, lambda) + hotspot_rate_toward(n, j, lambda, h)
}

/// Paper 002 eq. 6 for links pointing away from the hot node: no minimal route to the hot node
/// uses them, so only the uniform share (1 − h)·λ_channel (eq. 3) remains (exact per link under
/// e-cube).
pub fn hotspot_channel_rate_away(n: u32, lambda: f64, h: f64) -> f64 {
    (1.0 - h) * uniform_channel_rate(n, lambda)
}

/// Paper 002 eqs. 7-8 (corrected): sources whose bit-reversal message makes i hops,
/// C(⌊n/2⌋, i/2)·2^⌈n/2⌉ for even i, 0 for odd i (i = 0 counts the 2^⌈n/2⌉ palindromes, which
/// send nothing). Eq. 7 (even n) is right; eq. 8 prints C(n/2, i/2), undefined for odd n: it
/// must be C(⌊n/2⌋, i/2) (the middle bit is its own mirror and only doubles the count).
pub fn bit_reversal_sources(n: u32, i: u32) -> f64 {
    if i % 2 == 1 {
        return 0.0;
    }
    binom(n / 2, i / 2) * 2f64.powi(n.div_ceil(2) as i32)
}

/// Paper 002 eq. 9 (corrected): P_β,i = n_β,i/(N − n_β,0) = C(⌊n/2⌋, i/2)/(2^⌊n/2⌋ − 1) for
/// even i ≥ 2, else 0. The printed C(⌊n/2⌋, i/2)/2^(⌊n/2⌋ − n mod 2) does not sum to 1 (its
/// mean is n/2 for even n, below the true h·2^h/(2^h − 1), h = ⌊n/2⌋).
pub fn bit_reversal_hops(n: u32) -> Vec<f64> {
    normalise_sent(
        &(0..=n)
            .map(|i| bit_reversal_sources(n, i))
            .collect::<Vec<_>>(),
    )
}

/// Paper 002 eq. 10 with the corrected eq. 9: d_bit-reversed = h·2^h/(2^h − 1), h = ⌊n/2⌋.
pub fn bit_reversal_mean_distance(n: u32) -> f64 {
    mean_of(&bit_reversal_hops(n))
}

/// Paper 002 eqs. 12-14 (faithful): sources whose matrix-transpose message makes i hops:
/// 2^(n/2)·C(n/2, i/2) for even n (eq. 12), 2·C(n, i) for odd n (eq. 13), 0 for odd i.
/// (The text around them is garbled — "combining equations (4) and (5)" — but the counts are
/// right.)
pub fn transpose_sources(n: u32, i: u32) -> f64 {
    if i % 2 == 1 {
        return 0.0;
    }
    if n.is_multiple_of(2) {
        2f64.powi(n as i32 / 2) * binom(n / 2, i / 2)
    } else {
        2.0 * binom(n, i)
    }
}

/// Paper 002 eq. 15 (faithful): P_m,i = C(n/2, i/2)/(2^(n/2) − 1) for even n, C(n, i)/(2^(n−1) − 1)
/// for odd n, even i ≥ 2; 0 otherwise.
pub fn transpose_hops(n: u32) -> Vec<f64> {
    normalise_sent(&(0..=n).map(|i| transpose_sources(n, i)).collect::<Vec<_>>())
}

/// Paper 002 eq. 16 (faithful): d_matrix-transpose = Σ i·P_m,i (for odd n, n·2^(n−2)/(2^(n−1) − 1)).
pub fn transpose_mean_distance(n: u32) -> f64 {
    mean_of(&transpose_hops(n))
}

/// A permutation pattern of paper 002 on the hypercube.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Permutation {
    BitReversal,
    MatrixTranspose,
}

impl Permutation {
    /// Sources at i hops (eqs. 7-8 corrected, 12-14).
    pub fn sources(self, n: u32, i: u32) -> f64 {
        match self {
            Permutation::BitReversal => bit_reversal_sources(n, i),
            Permutation::MatrixTranspose => transpose_sources(n, i),
        }
    }
}

/// Paper 002 eqs. 11 and 17 (corrected) for the hop distribution: each message follows the
/// pattern with probability x, else is uniform. The n_0 fixed points send no pattern message,
/// so of the messages actually sent the pattern's share is x(N − n_0)/N against 1 − x:
/// P_i = (x(N − n_0)/N · P_pat,i + (1 − x)·P_u,i) / (x(N − n_0)/N + 1 − x).
pub fn mixture_hops(n: u32, pattern: Permutation, x: f64) -> Vec<f64> {
    let counts: Vec<f64> = (0..=n).map(|i| pattern.sources(n, i)).collect();
    let pat = normalise_sent(&counts);
    let uni = uniform_hops(n);
    let wp = x * (nodes(n) - counts[0]) / nodes(n);
    let wu = 1.0 - x;
    pat.iter()
        .zip(&uni)
        .map(|(p, u)| (wp * p + wu * u) / (wp + wu))
        .collect()
}

/// Paper 002 eqs. 11 and 17 (corrected): mean distance of the sent messages of the mixture,
/// (x(N − n_0)/N · d_pat + (1 − x)·d_u)/(x(N − n_0)/N + 1 − x). The printed
/// d = x·d_pat + (1 − x)·d_u (see `mixture_mean_distance_printed`) weights by x, which is the same
/// only when x is 0 or 1 (or n_0 = 0, never the case here).
pub fn mixture_mean_distance(n: u32, pattern: Permutation, x: f64) -> f64 {
    mean_of(&mixture_hops(n, pattern, x))
}

/// Paper 002 eqs. 11 and 17 as printed: x·d_pat + (1 − x)·d_u (not the mean of the sent
/// messages: see `mixture_mean_distance`).
pub fn mixture_mean_distance_printed(n: u32, pattern: Permutation, x: f64) -> f64 {
    let d = match pattern {
        Permutation::BitReversal => bit_reversal_mean_distance(n),
        Permutation::MatrixTranspose => transpose_mean_distance(n),
    };
    x * d + (1.0 - x) * uniform_mean_distance(n)
}

/// Paper 002 eq. 20 (corrected: re-derived): under uniform traffic and p-cube routing (phase 1
/// clears the bits 1 → 0 in uniformly random order, phase 2 sets the bits 0 → 1 likewise), the
/// rate on a 0 → 1 link in any dimension k from a node a of weight w. Such a link is crossed in
/// phase 2 by a message s → t with s ∧ t ⊆ a ⊆ t and t_k = 1: r of a's w ones already set in
/// phase 2 (C(w, r) choices), b further bits of t among a's other n − w − 1 zeros
/// (C(n − w − 1, b)), s free on the remaining n − w − 1 − b zeros outside t (2^(n−w−1−b)); the
/// random order passes a and then takes k with probability 1/(C(r + b + 1, r)·(b + 1)) =
/// 1/((r + b + 1)·C(r + b, r)) (eqs. 18-19). So
/// λ·Σ_{r=0..w} Σ_{b=0..n−w−1} C(w, r)·C(n−w−1, b)·2^(n−w−1−b) / ((r+b+1)·C(r+b, r)) / (N − 1).
/// The printed eq. 20 has the summand's form but wrong counts (C(n − 1, i), C(m, j)·2^(m−j))
/// and limits: reading m as a's zeros other than k, it agrees with enumeration only for w = 0
/// and w = n − 1.
pub fn pcube_up_rate(n: u32, w: u32, lambda: f64) -> f64 {
    assert!(
        w < n,
        "a node of weight {w} has no 0 → 1 link in an {n}-cube"
    );
    let z = n - w - 1;
    let mut sum = 0.0;
    for r in 0..=w {
        for b in 0..=z {
            sum += binom(w, r) * binom(z, b) * 2f64.powi((z - b) as i32)
                / ((r + b + 1) as f64 * binom(r + b, r));
        }
    }
    lambda * sum / (nodes(n) - 1.0)
}

/// Paper 002 eq. 21 (corrected: re-derived): the rate on a 1 → 0 link in any dimension k from a
/// node a of weight w ≥ 1, crossed in phase 1 by a message s → t with a ⊆ s, t_k = 0: r bits of s
/// among a's n − w zeros already cleared (C(n − w, r)), b more of a's other w − 1 ones to clear
/// after k (C(w − 1, b)), t free on a's n − w − r zeros not in s (2^(n−w−r)):
/// λ·Σ_{r=0..n−w} Σ_{b=0..w−1} C(n−w, r)·C(w−1, b)·2^(n−w−r) / ((r+b+1)·C(r+b, r)) / (N − 1).
/// It equals `pcube_up_rate(n, w − 1)`: reversing a p-cube route s → t gives a p-cube route
/// t → s with the same probability. The printed eq. 21 matches no weight's rate (checked for
/// n = 4..6).
pub fn pcube_down_rate(n: u32, w: u32, lambda: f64) -> f64 {
    assert!(
        (1..=n).contains(&w),
        "a node of weight {w} has no 1 → 0 link in an {n}-cube"
    );
    let z = n - w;
    let mut sum = 0.0;
    for r in 0..=z {
        for b in 0..w {
            sum += binom(z, r) * binom(w - 1, b) * 2f64.powi((z - r) as i32)
                / ((r + b + 1) as f64 * binom(r + b, r));
        }
    }
    lambda * sum / (nodes(n) - 1.0)
}

/// Paper 002 eqs. 20-21 (corrected): the exact p-cube rate of the link leaving a node of weight
/// w, 0 → 1 (`up`) or 1 → 0; it depends on nothing else (not on the dimension).
pub fn pcube_link_rate(n: u32, w: u32, up: bool, lambda: f64) -> f64 {
    if up {
        pcube_up_rate(n, w, lambda)
    } else {
        pcube_down_rate(n, w, lambda)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::enumerate::{dor_link_rates, hop_distribution, mean_distance};
    use crate::network::Network;
    use crate::scenario::{Pattern, TrafficSpec};
    use crate::topology::{Dir, KAryNCube, Kind};
    use crate::traffic::Traffic;

    const LAMBDA: f64 = 0.01;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-10 * (1.0 + b.abs())
    }

    fn cube(n: u32) -> KAryNCube {
        KAryNCube::new(Kind::Hypercube, vec![2; n as usize], true)
    }

    fn traffic(topo: &KAryNCube, pattern: Pattern, x: f64) -> Traffic {
        let spec = TrafficSpec {
            pattern,
            pattern_fraction: x,
            pattern_fractions: vec![x],
            hotspot_fractions: vec![],
            lengths: vec![8],
            length_probabilities: vec![1.0],
            rates: vec![LAMBDA],
        };
        Traffic::new(&spec, topo, 1)
    }

    fn assert_dist(ctx: &str, got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len(), "{ctx}");
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!(close(*g, *w), "{ctx}: P_{i} = {g}, enumeration {w}");
        }
    }

    /// Brute-force source counts at each distance for a bit map of n-bit addresses.
    fn counts_of(n: u32, map: impl Fn(u32) -> u32) -> Vec<f64> {
        let mut c = vec![0.0; n as usize + 1];
        for s in 0..1u32 << n {
            c[(s ^ map(s)).count_ones() as usize] += 1.0;
        }
        c
    }

    fn reverse(x: u32, n: u32) -> u32 {
        (0..n).fold(0, |acc, i| acc | (((x >> i) & 1) << (n - 1 - i)))
    }

    fn transpose(x: u32, n: u32) -> u32 {
        (0..n).fold(0, |acc, i| acc | (((x >> i) & 1) << ((i + n / 2) % n)))
    }

    #[test]
    fn uniform_and_hotspot_hops_match_enumeration() {
        for n in 3..=8 {
            let topo = cube(n);
            let t = traffic(&topo, Pattern::Uniform, 1.0);
            let ctx = format!("uniform n={n}");
            assert_dist(&ctx, &uniform_hops(n), &hop_distribution(&topo, &t));
            assert!(close(uniform_mean_distance(n), mean_distance(&topo, &t)));
            assert!(close(uniform_mean_distance(n), mean_of(&uniform_hops(n))));
            for (hot, h) in [(0, 1.0), ((1 << n) - 3, 0.4), (5, 0.1)] {
                let t = traffic(
                    &topo,
                    Pattern::Hotspot {
                        node: hot,
                        fraction: h,
                    },
                    1.0,
                );
                let ctx = format!("hotspot n={n} node={hot} h={h}");
                assert_dist(&ctx, &hotspot_hops(n), &hop_distribution(&topo, &t));
                assert!(close(hotspot_mean_distance(n), mean_distance(&topo, &t)));
            }
        }
    }

    #[test]
    fn permutation_hops_match_enumeration_and_eq9_printed_is_wrong() {
        for n in 3..=8u32 {
            for (pattern, lib, map) in [
                (
                    Permutation::BitReversal,
                    Pattern::BitReversal,
                    reverse as fn(u32, u32) -> u32,
                ),
                (
                    Permutation::MatrixTranspose,
                    Pattern::MatrixTranspose,
                    transpose,
                ),
            ] {
                let ctx = format!("{pattern:?} n={n}");
                let brute = counts_of(n, |x| map(x, n));
                for (i, &c) in brute.iter().enumerate() {
                    assert_eq!(pattern.sources(n, i as u32), c, "{ctx}: sources at {i}");
                }
                let topo = cube(n);
                let t = traffic(&topo, lib, 1.0);
                let exact = hop_distribution(&topo, &t);
                let (p, d) = match pattern {
                    Permutation::BitReversal => {
                        (bit_reversal_hops(n), bit_reversal_mean_distance(n))
                    }
                    Permutation::MatrixTranspose => (transpose_hops(n), transpose_mean_distance(n)),
                };
                assert_dist(&ctx, &p, &exact);
                assert!(close(d, mean_distance(&topo, &t)), "{ctx}: mean");
                let h = (n / 2) as f64;
                if pattern == Permutation::BitReversal {
                    let hh = 2f64.powf(h);
                    assert!(close(d, h * hh / (hh - 1.0)), "{ctx}: closed mean");
                    // Printed eq. 9: C(⌊n/2⌋, i/2)/2^(⌊n/2⌋ − n mod 2) — off at i = 2 for
                    // n ≥ 4 (at n = 3 both give P_2 = 1).
                    let p9 = binom(n / 2, 1) / 2f64.powi((n / 2) as i32 - (n % 2) as i32);
                    assert_eq!((p9 - exact[2]).abs() > 1e-3, n >= 4, "{ctx}: printed eq. 9");
                } else if n % 2 == 1 {
                    let want = n as f64 * nodes(n) / 4.0 / (nodes(n) / 2.0 - 1.0);
                    assert!(close(d, want), "{ctx}: odd-n closed mean");
                }
            }
        }
    }

    #[test]
    fn mixtures_match_enumeration_and_printed_eq11_17_do_not() {
        for n in 3..=8u32 {
            for (pattern, lib) in [
                (Permutation::BitReversal, Pattern::BitReversal),
                (Permutation::MatrixTranspose, Pattern::MatrixTranspose),
            ] {
                for x in [0.0, 0.2, 0.5, 0.8, 1.0] {
                    let ctx = format!("{pattern:?} n={n} x={x}");
                    let topo = cube(n);
                    let t = traffic(&topo, lib, x);
                    assert_dist(
                        &ctx,
                        &mixture_hops(n, pattern, x),
                        &hop_distribution(&topo, &t),
                    );
                    let d = mixture_mean_distance(n, pattern, x);
                    assert!(close(d, mean_distance(&topo, &t)), "{ctx}");
                    let printed = mixture_mean_distance_printed(n, pattern, x);
                    if x == 0.0 || x == 1.0 {
                        assert!(close(printed, d), "{ctx}: printed at the ends");
                    } else {
                        assert!(
                            (printed - d).abs() > 1e-6,
                            "{ctx}: printed {printed} = {d}?"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn uniform_channel_rate_is_exact_on_every_ecube_link() {
        for n in 3..=8 {
            let topo = cube(n);
            let t = traffic(&topo, Pattern::Uniform, 1.0);
            let net = Network::new(topo, 1, 4);
            for r in dor_link_rates(&net, &t, LAMBDA) {
                assert!(close(r, uniform_channel_rate(n, LAMBDA)), "n={n}: {r}");
            }
        }
    }

    /// Eq. 5 and eq. 6 as class averages of the exact e-cube rates (`dor_link_rates`), links
    /// away from the hot node exactly (1 − h)·λ_channel; and eq. 5 is only an average: the
    /// e-cube rates within a class differ for j < n.
    #[test]
    fn hotspot_class_averages_match_enumeration() {
        for n in 3..=8u32 {
            let topo = cube(n);
            let net = Network::new(topo.clone(), 1, 4);
            for (hot, h) in [(0u32, 1.0), ((1 << n) - 2, 0.3), (0b101, 0.7)] {
                let ctx = format!("n={n} hot={hot} h={h}");
                let t = traffic(
                    &topo,
                    Pattern::Hotspot {
                        node: hot,
                        fraction: h,
                    },
                    1.0,
                );
                let rates = dor_link_rates(&net, &t, LAMBDA);
                let mut sum = vec![0.0; n as usize + 1];
                let mut cnt = vec![0usize; n as usize + 1];
                let mut spread = vec![(f64::MAX, 0.0f64); n as usize + 1];
                for (l, &r) in net.cube().links.iter().zip(&rates) {
                    let (ds, dd) = ((l.src ^ hot).count_ones(), (l.dst ^ hot).count_ones());
                    if dd < ds {
                        sum[ds as usize] += r;
                        cnt[ds as usize] += 1;
                        let s = &mut spread[ds as usize];
                        *s = (s.0.min(r), s.1.max(r));
                    } else {
                        assert!(close(r, hotspot_channel_rate_away(n, LAMBDA, h)), "{ctx}");
                    }
                }
                for j in 1..=n {
                    let k = j as usize;
                    assert_eq!(cnt[k] as f64, (n - j + 1) as f64 * binom(n, j - 1), "{ctx}");
                    let mean = sum[k] / cnt[k] as f64;
                    assert!(
                        close(mean, hotspot_channel_rate(n, j, LAMBDA, h)),
                        "{ctx}: j={j}"
                    );
                    // The uniform share is (1 − h)·λ_channel on every link: the rest is eq. 5.
                    let hs = mean - hotspot_channel_rate_away(n, LAMBDA, h);
                    assert!(
                        close(hs, hotspot_rate_toward(n, j, LAMBDA, h)),
                        "{ctx}: eq. 5"
                    );
                    if j < n {
                        assert!(spread[k].1 - spread[k].0 > 1e-9, "{ctx}: j={j} uniform?");
                    }
                }
            }
        }
    }

    /// Exact p-cube link rates per unit λ, `rate[x·n + d]`, by following the route
    /// distribution hop by hop with the routing of paper 002 Fig. 1b: S = C ∧ ¬D, or ¬C ∧ D
    /// once that is empty, and a uniformly random dimension of S.
    fn pcube_brute(n: u32) -> Vec<f64> {
        let nn = 1usize << n;
        let mask = nn - 1;
        let mut rate = vec![0.0; nn * n as usize];
        let q = 1.0 / (nn as f64 - 1.0);
        for s in 0..nn {
            for t in (0..nn).filter(|&t| t != s) {
                let mut mass = vec![0.0; nn];
                mass[s] = 1.0;
                for _ in 0..(s ^ t).count_ones() {
                    let mut next = vec![0.0; nn];
                    for x in (0..nn).filter(|&x| mass[x] > 0.0) {
                        let down = x & !t;
                        let set = if down != 0 { down } else { !x & t & mask };
                        let k = set.count_ones() as f64;
                        for d in (0..n as usize).filter(|&d| set >> d & 1 == 1) {
                            rate[x * n as usize + d] += q * mass[x] / k;
                            next[x ^ (1 << d)] += mass[x] / k;
                        }
                    }
                    mass = next;
                }
                assert!(close(mass[t], 1.0));
            }
        }
        rate
    }

    #[test]
    fn pcube_rates_match_brute_force_route_enumeration() {
        for n in 3..=6u32 {
            let brute = pcube_brute(n);
            let topo = cube(n);
            for x in 0..1u32 << n {
                let w = x.count_ones();
                for d in 0..n {
                    let up = x >> d & 1 == 0;
                    let want = LAMBDA * brute[(x * n + d) as usize];
                    let got = pcube_link_rate(n, w, up, LAMBDA);
                    assert!(close(got, want), "n={n} x={x} d={d}: {got} vs {want}");
                }
            }
            // The network's links agree on the direction (Plus is 0 → 1).
            for l in &topo.links {
                assert_eq!(l.dir == Dir::Plus, l.src >> l.dim & 1 == 0);
            }
            // Route reversal: a 1 → 0 link from weight w carries what a 0 → 1 link from w − 1
            // does; and the total is N·λ·d_u (every route is minimal).
            let mut total = 0.0;
            for w in 0..=n {
                if w >= 1 {
                    let down = pcube_down_rate(n, w, LAMBDA);
                    assert!(close(down, pcube_up_rate(n, w - 1, LAMBDA)));
                    total += binom(n, w) * w as f64 * down;
                }
                if w < n {
                    total += binom(n, w) * (n - w) as f64 * pcube_up_rate(n, w, LAMBDA);
                }
            }
            assert!(close(total, nodes(n) * LAMBDA * uniform_mean_distance(n)));
        }
        // The printed eqs. 20-21 (summand as printed; m read as in the paper). Eq. 20 with
        // m = n − 1 − w (a's zeros other than k) agrees only at w = 0 and w = n − 1; eq. 21
        // agrees with no 1 → 0 rate.
        let e20 = |n: u32, m: u32| -> f64 {
            let mut s = 0.0;
            for i in 0..n - m {
                for j in 0..=m {
                    s += binom(n - 1, i) * binom(m, j) * 2f64.powi((m - j) as i32)
                        / ((i + j + 1) as f64 * binom(i + j, i));
                }
            }
            s / (nodes(n) - 1.0)
        };
        let e21 = |n: u32, m: u32| -> f64 {
            let mut s = 0.0;
            for i in 0..n - m {
                for j in 0..m {
                    s += binom(n, i) * binom(m - 1, j) * 2f64.powi((m - j - 1) as i32)
                        / ((i + j + 1) as f64 * binom(i + j, i));
                }
            }
            s / (nodes(n) - 1.0)
        };
        for n in 4..=6u32 {
            for w in 0..n {
                let ends = w == 0 || w == n - 1;
                assert_eq!(close(e20(n, n - 1 - w), pcube_up_rate(n, w, 1.0)), ends);
            }
            for m in 1..n {
                assert!((1..=n).all(|w| !close(e21(n, m), pcube_down_rate(n, w, 1.0))));
            }
        }
        // The 6-cube values of tests/routing_hypercube_rates.rs: 1.7593λ from node 0, λ/6
        // from node 63.
        assert!((pcube_up_rate(6, 0, 1.0) - 1.759_259_259_259_259).abs() < 1e-12);
        assert!(close(pcube_down_rate(6, 6, 1.0), 1.0 / 6.0));
    }
}
