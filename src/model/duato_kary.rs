//! Paper 000 (Khonsari, Ould-Khaoua, Ferguson, *A General Analytical Model of Adaptive Wormhole
//! Routing in k-Ary n-Cube Interconnection Networks*): mean message latency of Duato's fully
//! adaptive routing in the unidirectional k-ary n-cube and the hypercube, eqs. 1-30.
//!
//! An i-hop message's network latency is S_i = M + i plus its blocking at each channel (eqs.
//! 8-22), with the virtual-channel occupancy, M/G/1 waits and multiplexing degree of
//! [`super::queueing`] (eqs. 23-30). The mean S̄ appears on both sides: [`Model::solve`]
//! iterates S̄ ← F(S̄) from the zero-load M + d̄ ([`fixed_point`]) and reports
//! [`Outcome::Saturated`] when a utilisation reaches 1 or the iteration does not converge.
//! Eq. 1's latency (S̄ + W̄_s) V̄ is split as the simulator's columns: `network_latency` = S̄ V̄,
//! `source_wait` = W̄_s V̄. Where the printed equations are ambiguous or wrong (eqs. 10, 13,
//! 16-22) the corrected reading is the default; [`Eq13`] and [`PathMeasure`] select the printed
//! eq. 13 and the printed counting of eqs. 16-20. [`applies`] says which scenarios are covered.
//!
//! The model in full, every equation implemented as printed or corrected (and why), and where
//! the model and the simulator part are in
//! [docs/src/model-duato-kary.md](../../docs/src/model-duato-kary.md).

use super::queueing::{Saturation, fixed_point, mg1_wait, model_vbar, vc_occupancy};
use crate::model::{Outcome, Prediction};
use crate::scenario::{Algorithm, Pattern, Scenario, Selection};
use crate::topology::Kind;

/// Binomial coefficient C(a, b), exact; 0 when b < 0 or a < b (also for a < 0), the convention
/// under which eqs. 4, 5 and 15 hold.
pub fn binom(a: i64, b: i64) -> i128 {
    if b < 0 || a < b {
        return 0;
    }
    let b = b.min(a - b);
    let mut r: i128 = 1;
    for j in 1..=b {
        r = r * (a - b + j) as i128 / j as i128;
    }
    r
}

fn sign(l: i64) -> i128 {
    if l % 2 == 0 { 1 } else { -1 }
}

/// Eq. 4 (Proposition 1): N_q^{q+k−1}(r, m), the number of ways to put r like objects into m
/// cells with q to q + k − 1 objects in each.
pub fn n_ways(r: i64, m: i64, q: i64, k: i64) -> i128 {
    if m == 0 {
        return (r == 0) as i128;
    }
    // Eq. 4.
    (0..=m)
        .map(|l| sign(l) * binom(m, l) * binom(r - m * q - l * k + m - 1, m - 1))
        .sum()
}

/// Eq. 5: n_i, the number of nodes i hops from a node of the unidirectional k-ary n-cube (the
/// hypercube is k = 2).
pub fn nodes_at_distance(k: u32, n: u32, i: u32) -> i128 {
    // Eq. 5: N_0^{k−1}(i, n).
    n_ways(i as i64, n as i64, 0, k as i64)
}

/// Eq. 3: d_max = n (k − 1).
pub fn diameter(k: u32, n: u32) -> u32 {
    n * (k - 1)
}

/// Eq. 6: p_i = n_i / (N − 1), the probability that a message makes i hops, for
/// i = 0..=d_max (p_0 = 0: no node sends to itself).
pub fn hop_distribution(k: u32, n: u32) -> Vec<f64> {
    let nodes = (k as f64).powi(n as i32);
    (0..=diameter(k, n))
        .map(|i| match i {
            0 => 0.0,
            // Eq. 6.
            _ => nodes_at_distance(k, n, i) as f64 / (nodes - 1.0),
        })
        .collect()
}

/// Eq. 2: d̄ = Σ_i i p_i.
pub fn mean_distance(k: u32, n: u32) -> f64 {
    // Eq. 2.
    hop_distribution(k, n)
        .iter()
        .enumerate()
        .map(|(i, p)| i as f64 * p)
        .sum()
}

/// Eq. 7: λ_c = λ d̄ / n, messages per cycle on each network channel.
pub fn channel_rate(lambda: f64, k: u32, n: u32) -> f64 {
    // Eq. 7.
    lambda * mean_distance(k, n) / n as f64
}

/// Eq. 15 (Proposition 2, eq. 14): N^m_{Q,K}(r), the number of ways to put r like objects into
/// m = `q.len()` cells with q_l to q_l + k_l − 1 objects in cell l.
pub fn n_ways_bounded(r: i64, q: &[i64], k: &[i64]) -> i128 {
    let m = q.len();
    assert_eq!(m, k.len(), "one bound per cell");
    if m == 0 {
        return (r == 0) as i128;
    }
    let sq: i64 = q.iter().sum();
    let mut total = 0;
    for j in 0..1u64 << m {
        let (mut ones, mut sk) = (0i64, 0i64);
        for (l, &kl) in k.iter().enumerate() {
            if j >> l & 1 == 1 {
                ones += 1;
                sk += kl;
            }
        }
        // Eq. 15.
        total += sign(ones) * binom(m as i64 + r - sq - 1 - sk, m as i64 - 1);
    }
    total
}

/// Eqs. 16-20 as printed (with Z a list of upper bounds, K = Z + 1 in Proposition 2's
/// notation): Pass^y after `t` hops of a message whose non-zero hop counts per dimension are
/// `z`, the fraction of the hop-count vectors c (0 <= c_l <= z_l, Σ c_l = t) in which exactly
/// `y` of those dimensions are complete (c_l = z_l). Counts vectors, not paths (module doc).
pub fn pass_printed(z: &[u32], t: u32, y: usize) -> f64 {
    let m = z.len();
    let zero = vec![0i64; m];
    let upper: Vec<i64> = z.iter().map(|&x| x as i64 + 1).collect();
    // Eq. 16: n_{i,h} = N^{m_I}_{0,Z}(h), every vector with c_l <= z_l.
    let all = n_ways_bounded(t as i64, &zero, &upper);
    if all == 0 {
        return 0.0;
    }
    // Eqs. 17-19: the dimensions l_1 < ... < l_y complete, the others below z_j (eq. 20's Z').
    let mut num = 0i128;
    for set in 0..1u64 << m {
        if set.count_ones() as usize != y {
            continue;
        }
        let done: i64 = (0..m)
            .filter(|&l| set >> l & 1 == 1)
            .map(|l| z[l] as i64)
            .sum();
        let rest: Vec<i64> = (0..m)
            .filter(|&l| set >> l & 1 == 0)
            .map(|l| z[l] as i64)
            .collect();
        num += n_ways_bounded(t as i64 - done, &vec![0; rest.len()], &rest);
    }
    num as f64 / all as f64
}

/// How the positions a message may have reached after t hops are weighted (eqs. 16-21).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PathMeasure {
    /// Every minimal path equally likely: the hop-count vector c has weight Π_l C(z_l, c_l).
    /// The enumeration the printed formulas are checked against; the default.
    #[default]
    MinimalPaths,
    /// Every hop-count vector equally likely, as eqs. 16-19 count them ("hops as like objects").
    HopCountVectors,
}

/// Which count eq. 13 uses for V − 1 busy virtual channels (torus only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Eq13 {
    /// The message is blocked only when its own escape virtual channel is busy: 1 of the V sets
    /// of V − 1 busy channels (the enumeration; the default).
    #[default]
    OwnEscapeChannel,
    /// As printed: 2 of the V sets.
    Printed,
}

/// The model's choices where the printed formulas admit two readings (module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// How eqs. 16-20 weigh a message's remaining paths: by minimal path, or as printed.
    pub phi: PathMeasure,
    /// Eq. 13's count of blocking sets of V − 1 busy virtual channels.
    pub eq13: Eq13,
}

/// Eqs. 17-20 for every t and y: `pass[t][y]` is the probability that exactly y of the
/// dimensions with non-zero hop counts `z` are complete after t hops (t = 0..=Σ z), under the
/// given measure.
pub fn pass_probabilities(z: &[u32], measure: PathMeasure) -> Vec<Vec<f64>> {
    let i: usize = z.iter().map(|&x| x as usize).sum();
    let m = z.len();
    // dp[s][y]: total weight of the partial vectors using s hops with y dimensions complete.
    let mut dp = vec![vec![0.0; m + 1]; i + 1];
    dp[0][0] = 1.0;
    let mut used = 0usize;
    for &zl in z {
        let zl = zl as usize;
        let mut next = vec![vec![0.0; m + 1]; i + 1];
        for s in 0..=used {
            for y in 0..m {
                let here = dp[s][y];
                if here == 0.0 {
                    continue;
                }
                for c in 0..=zl {
                    let w = match measure {
                        PathMeasure::MinimalPaths => binom(zl as i64, c as i64) as f64,
                        PathMeasure::HopCountVectors => 1.0,
                    };
                    next[s + c][y + (c == zl) as usize] += here * w;
                }
            }
        }
        used += zl;
        dp = next;
    }
    dp.into_iter()
        .map(|row| {
            let total: f64 = row.iter().sum();
            row.into_iter().map(|x| x / total).collect()
        })
        .collect()
}

/// The multisets of non-zero hop counts (each 1..=k−1, at most n of them), in non-increasing
/// order, with the number of destinations (orderings over the n dimensions) each stands for.
fn hop_count_multisets(k: u32, n: u32) -> Vec<(Vec<u32>, f64)> {
    fn walk(k: u32, n: u32, max: u32, cur: &mut Vec<u32>, out: &mut Vec<(Vec<u32>, f64)>) {
        if !cur.is_empty() {
            // n! / ((n − m)! Π_v count_v!) orderings over the n dimensions.
            let mut ways = (n as usize - cur.len() + 1..=n as usize).product::<usize>() as f64;
            let mut run = 1usize;
            for w in 1..cur.len() {
                if cur[w] == cur[w - 1] {
                    run += 1;
                    ways /= run as f64;
                } else {
                    run = 1;
                }
            }
            out.push((cur.clone(), ways));
        }
        if cur.len() == n as usize {
            return;
        }
        for part in 1..=max.min(k - 1) {
            cur.push(part);
            walk(k, n, part, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    walk(k, n, k - 1, &mut Vec::new(), &mut out);
    out
}

/// Eq. 21, normalised: `p[i][h][y]` is the probability that a message going i hops has passed
/// y of the n dimensions (those it needs no hop in counted as passed) when it chooses its h-th
/// channel, i.e. after h − 1 hops; averaged over the n_i destinations i hops away.
/// 1 <= h <= i <= d_max; other entries empty.
pub fn dims_passed(k: u32, n: u32, measure: PathMeasure) -> Vec<Vec<Vec<f64>>> {
    let dmax = diameter(k, n) as usize;
    let n_us = n as usize;
    let mut p: Vec<Vec<Vec<f64>>> = (0..=dmax)
        .map(|i| {
            (0..=i)
                .map(|h| if h == 0 { vec![] } else { vec![0.0; n_us + 1] })
                .collect()
        })
        .collect();
    for (z, ways) in hop_count_multisets(k, n) {
        let i: usize = z.iter().map(|&x| x as usize).sum();
        let pass = pass_probabilities(&z, measure);
        for h in 1..=i {
            for (y, &q) in pass[h - 1].iter().enumerate() {
                p[i][h][y + n_us - z.len()] += ways * q;
            }
        }
    }
    for (i, row) in p.iter_mut().enumerate().skip(1) {
        let ni = nodes_at_distance(k, n, i as u32) as f64;
        // Eq. 21, with the normalisation 1/n_i.
        row.iter_mut().flatten().for_each(|x| *x /= ni);
    }
    p
}

/// Eq. 22: φ_{h,i} = Σ_y (n − y) P^y_h(i), the mean number of profitable dimensions (channels)
/// a message going i hops can choose from for its h-th channel. `phi[i][h]`, 1 <= h <= i.
pub fn phi(k: u32, n: u32, measure: PathMeasure) -> Vec<Vec<f64>> {
    dims_passed(k, n, measure)
        .iter()
        .map(|row| {
            row.iter()
                // Eq. 22.
                .map(|py| {
                    py.iter()
                        .enumerate()
                        .map(|(y, q)| (n as usize - y) as f64 * q)
                        .sum()
                })
                .collect()
        })
        .collect()
}

/// Eqs. 12-13: (P_a, P_{a&d}) from the occupancy `p` (P_0..=P_V): the probability that all
/// adaptive virtual channels of a physical channel are busy, and that they and the escape
/// virtual channel the message needs are. `escape` is the size of class b: 2 on a torus
/// (eqs. 12-13), 1 on a hypercube (Boura et al. \[4\]).
pub fn blocking_probabilities(p: &[f64], escape: u32, eq13: Eq13) -> (f64, f64) {
    let v = p.len() - 1;
    let c = |a: usize, b: usize| binom(a as i64, b as i64) as f64;
    match escape {
        2 => {
            // Eq. 12.
            let pa = p[v] + 2.0 * p[v - 1] / c(v, v - 1) + p[v - 2] / c(v, v - 2);
            let sets = match eq13 {
                Eq13::OwnEscapeChannel => 1.0,
                Eq13::Printed => 2.0,
            };
            // Eq. 13 (one set of V − 1 busy channels leaves the message's own escape channel
            // busy; the printed count is 2).
            let pad = p[v] + sets * p[v - 1] / c(v, v - 1);
            (pa, pad)
        }
        1 => {
            // Eq. 12 for the hypercube [4]: the adaptive V − 1 busy, the escape one free or not.
            let pa = p[v] + p[v - 1] / c(v, v - 1);
            // Eq. 13 for the hypercube [4].
            (pa, p[v])
        }
        _ => panic!("class b has 1 (hypercube) or 2 (torus) virtual channels, not {escape}"),
    }
}

/// The model's state at its fixed point.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// λ_c (eq. 7).
    pub lambda_c: f64,
    /// Mean network latency S̄ (eq. 9), before the V̄ scaling.
    pub s_bar: f64,
    /// Mean wait for a virtual channel w (eq. 26).
    pub w: f64,
    /// Mean wait in the source queue W̄_s (eq. 27), before the V̄ scaling.
    pub w_s: f64,
    /// P_0..=P_V (eqs. 28-29).
    pub p_v: Vec<f64>,
    /// P_a (eq. 12).
    pub p_a: f64,
    /// P_{a&d} (eq. 13).
    pub p_ad: f64,
    /// V̄ (eq. 30).
    pub vbar: f64,
    /// Fixed-point steps taken.
    pub iterations: usize,
}

impl Solution {
    /// Eq. 1, split as the simulator's columns (module doc).
    pub fn prediction(&self) -> Prediction {
        Prediction::multiplexed(self.s_bar, self.w_s, &self.p_v)
    }
}

/// Paper 000's model of one network: unidirectional k-ary n-cube (torus) or hypercube, V
/// virtual channels, M-flit messages.
#[derive(Clone, Debug)]
pub struct Model {
    /// Radix k (2 for the hypercube).
    pub k: u32,
    /// Dimensions n.
    pub n: u32,
    /// Virtual channels V per physical channel, classes a and b together.
    pub vcs: u32,
    /// Class b: 2 virtual channels on a torus, 1 on a hypercube.
    pub escape: u32,
    /// Message length M, flits.
    pub length: f64,
    /// The readings of eq. 13 and eqs. 16-20 in use.
    pub options: Options,
    /// p_i, i = 0..=d_max (eq. 6).
    pub p: Vec<f64>,
    /// d̄ (eq. 2).
    pub dbar: f64,
    /// φ_{h,i} (eq. 22), `phi[i][h]`.
    pub phi: Vec<Vec<f64>>,
    /// (p_i, φ_{h,i} − 1) for every 1 <= h <= i: the terms of eqs. 8-11 summed by eq. 9.
    terms: Vec<(f64, f64)>,
}

impl Model {
    fn new(k: u32, n: u32, vcs: u32, escape: u32, length: u32, options: Options) -> Model {
        assert!(k >= 2 && n >= 1, "a k-ary n-cube needs k >= 2 and n >= 1");
        assert!(vcs > escape, "class a needs at least one virtual channel");
        let p = hop_distribution(k, n);
        let phi = phi(k, n, options.phi);
        let mut terms: Vec<(f64, f64)> = Vec::new();
        for (i, row) in phi.iter().enumerate() {
            for &f in row.iter().skip(1) {
                match terms
                    .iter_mut()
                    .find(|t| (t.1 - (f - 1.0).max(0.0)).abs() < 1e-14)
                {
                    Some(t) => t.0 += p[i],
                    // φ_{h,i} >= 1: the rounding of φ_{i,i} = 1 must not give 0^(−ε).
                    None => terms.push((p[i], (f - 1.0).max(0.0))),
                }
            }
        }
        Model {
            k,
            n,
            vcs,
            escape,
            length: length as f64,
            options,
            dbar: mean_distance(k, n),
            p,
            phi,
            terms,
        }
    }

    /// The unidirectional k-ary n-cube: class a = V − 2, class b = 2 (dateline).
    pub fn torus(k: u32, n: u32, vcs: u32, length: u32, options: Options) -> Model {
        Model::new(k, n, vcs, 2, length, options)
    }

    /// The n-cube: class a = V − 1, class b = 1.
    pub fn hypercube(n: u32, vcs: u32, length: u32, options: Options) -> Model {
        Model::new(2, n, vcs, 1, length, options)
    }

    /// The model of a scenario that [`applies`] accepts, with the default options.
    pub fn from_scenario(s: &Scenario) -> Result<Model, String> {
        applies(s)?;
        let (k, n) = (s.topology.radix[0], s.topology.radix.len() as u32);
        let (vcs, m) = (s.router.vcs, s.traffic.lengths[0]);
        Ok(match s.topology.kind {
            Kind::Hypercube => Model::hypercube(n, vcs, m, Options::default()),
            _ => Model::torus(k, n, vcs, m, Options::default()),
        })
    }

    /// One step S̄ ← F(S̄) of the fixed point: eqs. 24, 28-29, 12-13, 26, then 8-11 and 9.
    /// None when ρ = λ_c S̄ >= 1.
    pub fn step(&self, lambda: f64, s: f64) -> Option<f64> {
        let lambda_c = lambda * self.dbar / self.n as f64;
        // Eq. 24.
        let p_v = vc_occupancy(lambda_c * s, self.vcs)?;
        let (p_a, p_ad) = blocking_probabilities(&p_v, self.escape, self.options.eq13);
        // Eq. 26.
        let w = mg1_wait(lambda_c, s, self.length)?;
        // Eqs. 8-11 summed by eq. 9: S̄ = M + d̄ + Σ_i p_i Σ_h P_{a&d} P_a^{φ_{h,i} − 1} w.
        let blocking: f64 = self
            .terms
            .iter()
            .map(|&(pi, e)| pi * p_ad * p_a.powf(e) * w)
            .sum();
        Some(self.length + self.dbar + blocking)
    }

    /// The fixed point of eqs. 8-29 at λ messages/node/cycle, or why there is none.
    pub fn solve(&self, lambda: f64) -> Result<Solution, Saturation> {
        if !(lambda.is_finite() && lambda >= 0.0) {
            return Err(Saturation::BadLoad);
        }
        // Eq. 7.
        let lambda_c = lambda * self.dbar / self.n as f64;
        // Eq. 8 without blocking, averaged by eq. 9: the zero-load S̄, below every fixed point.
        let (s, iterations) = fixed_point(self.length + self.dbar, |s| self.step(lambda, s))?;
        let p_v = vc_occupancy(lambda_c * s, self.vcs).ok_or(Saturation::Channel)?;
        let (p_a, p_ad) = blocking_probabilities(&p_v, self.escape, self.options.eq13);
        let w = mg1_wait(lambda_c, s, self.length).ok_or(Saturation::Channel)?;
        // Eq. 27.
        let w_s = mg1_wait(lambda / self.vcs as f64, s, self.length).ok_or(Saturation::Source)?;
        // Eq. 30.
        let vbar = model_vbar(&p_v);
        Ok(Solution {
            lambda_c,
            s_bar: s,
            w,
            w_s,
            p_v,
            p_a,
            p_ad,
            vbar,
            iterations,
        })
    }

    /// The prediction at λ messages/node/cycle (eq. 1), or `Saturated`.
    pub fn predict(&self, lambda: f64) -> Outcome {
        match self.solve(lambda) {
            Ok(sol) => Outcome::Stable(sol.prediction()),
            Err(_) => Outcome::Saturated,
        }
    }
}

/// Whether paper 000's model covers a scenario: a unidirectional torus (one radix k) or a
/// hypercube; Duato's routing without time-out, with the random selection of assumption f;
/// V >= 3 on a torus (class b = 2), V >= 2 on a hypercube (class b = 1); buffers of 2 flits or
/// more (one flit per hop per cycle, assumption d); uniform destinations (assumption c); one
/// message length (assumption d). Err says what does not fit.
pub fn applies(s: &Scenario) -> Result<(), String> {
    let t = &s.topology;
    match t.kind {
        Kind::Torus if t.bidirectional => {
            return Err("paper 000's model is for unidirectional tori (links = \"unidirectional\"), not bidirectional ones".into());
        }
        Kind::Mesh => {
            return Err(
                "paper 000's model covers the unidirectional torus and the hypercube, not the mesh"
                    .into(),
            );
        }
        Kind::Torus | Kind::Hypercube => {}
    }
    if t.radix.iter().any(|&k| k != t.radix[0]) {
        return Err(format!(
            "paper 000's model is for k-ary n-cubes with one radix in every dimension, not {:?}",
            t.radix
        ));
    }
    if s.routing.algorithm != Algorithm::Duato {
        return Err(format!(
            "paper 000's model is for routing \"duato\", not {:?}",
            s.routing.algorithm.name()
        ));
    }
    if s.routing.selection != Selection::Random {
        return Err(format!(
            "paper 000's model assumes the random selection of a free adaptive channel (assumption f), not {:?}",
            s.routing.selection.name()
        ));
    }
    let (need, class_b) = if t.kind == Kind::Hypercube {
        (2, 1)
    } else {
        (3, 2)
    };
    if s.router.vcs < need {
        return Err(format!(
            "paper 000's model needs V >= {need} here (class b = {class_b} virtual channels besides class a), not V = {}",
            s.router.vcs
        ));
    }
    if s.router.buffer_depth < 2 {
        return Err("paper 000's model moves one flit per hop per cycle (assumption d): buffers of 1 flit pass one every other cycle; use buffer_depth >= 2".into());
    }
    let tr = &s.traffic;
    if !(tr.pattern == Pattern::Uniform || tr.pattern_fraction == 0.0) {
        return Err(format!(
            "paper 000's model assumes uniform destinations (assumption c), not {} with pattern_fraction {}",
            tr.pattern.name(),
            tr.pattern_fraction
        ));
    }
    if tr.lengths.len() != 1 {
        return Err(format!(
            "paper 000's model assumes one message length M (assumption d), not {:?}",
            tr.lengths
        ));
    }
    Ok(())
}

/// Paper 000's prediction for a scenario at λ = `rate` messages/node/cycle (eq. 1), with the
/// default options.
///
/// # Panics
/// When [`applies`] rejects the scenario: call it first.
pub fn predict(s: &Scenario, rate: f64) -> Outcome {
    match Model::from_scenario(s) {
        Ok(m) => m.predict(rate),
        Err(why) => panic!("duato_kary::predict on a scenario it does not cover: {why}"),
    }
}

#[cfg(test)]
mod tests;
