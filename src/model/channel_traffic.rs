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
    /// Bit reversal: x1 x2 ... xn → xn ... x2 x1 (paper 002 eqs. 7-10).
    BitReversal,
    /// Matrix transpose: the address's two halves swap (paper 002 eqs. 12-16).
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
mod tests;
