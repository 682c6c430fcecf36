//! Queueing results shared by the latency models of papers 000 ([`super::duato_kary`]), 001
//! ([`super::timeout`]) and 003 ([`super::mesh_torus`]): the M/G/1 mean wait with Draper and
//! Ghosh's service-time variance, the virtual-channel occupancy chain and the multiplexing
//! degree it gives, and the fixed-point iteration S̄ ← F(S̄) by which papers 000 and 001 solve
//! for the mean network latency.
//!
//! The equation numbers in the comments are paper 000's (Khonsari, Ould-Khaoua, Ferguson), where
//! these formulas are printed: eqs. 23-27 (M/G/1 wait), 28-29 (occupancy), 30 (multiplexing
//! degree). Paper 003's eq. 4 is the same M/G/1 wait; paper 001's eqs. 10 and 18 are the
//! occupancy and the multiplexing degree. The occupancy is the chain paper 000's text describes
//! (up at λ_c, down at 1/S̄, out of state V at 1/S̄ − λ_c); its balance is tested with paper
//! 000's model.

/// Eqs. 28-29: P_v, v = 0..=V, the probability that v virtual channels of a physical channel are
/// busy, for utilisation ρ = λ_c S̄ (eq. 24). None when ρ >= 1 (no steady state).
pub fn vc_occupancy(rho: f64, vcs: u32) -> Option<Vec<f64>> {
    if !(0.0..1.0).contains(&rho) {
        return None;
    }
    let v = vcs as i32;
    let q: Vec<f64> = (0..=v)
        .map(|j| match j {
            // Eq. 29, state V.
            _ if j == v => rho.powi(v) / (1.0 - rho),
            // Eq. 29, 0 <= v <= V − 1.
            _ => rho.powi(j),
        })
        .collect();
    let total: f64 = q.iter().sum();
    // Eq. 28.
    Some(q.iter().map(|x| x / total).collect())
}

/// Eq. 30's V̄ of a model's P_v ([`crate::stats::multiplexing_degree`]), 1 when no virtual
/// channel is busy: its limit at zero load.
pub fn model_vbar(p: &[f64]) -> f64 {
    crate::stats::multiplexing_degree(p).unwrap_or(1.0)
}

/// Eqs. 23-27: the M/G/1 mean wait with arrival rate `a`, mean service time `s` and the
/// Draper-Ghosh variance (s − M)². None when the utilisation a s is 1 or more.
pub fn mg1_wait(a: f64, s: f64, m: f64) -> Option<f64> {
    // Eq. 24.
    let rho = a * s;
    if rho >= 1.0 {
        return None;
    }
    // Eq. 25 with σ² = (S̄ − M)²: 1 + C² = 1 + (S̄ − M)² / S̄².
    let c2 = (s - m) * (s - m) / (s * s);
    // Eqs. 23 and 26 (channel, a = λ_c), 27 (source, a = λ/V).
    Some(a * s * s * (1.0 + c2) / (2.0 * (1.0 - rho)))
}

/// Fixed-point steps after which a load that has not converged counts as saturated.
pub const MAX_ITERATIONS: usize = 200_000;

/// Relative change of S̄ between two steps under which the iteration has converged.
pub const TOLERANCE: f64 = 1e-11;

/// Iterates S̄ ← F(S̄) from `start` until two iterates agree to [`TOLERANCE`] (relative):
/// the fixed point and the steps taken, or Channel when F has no value (a utilisation reached
/// 1) or diverges, NotConverged after [`MAX_ITERATIONS`] steps. Papers 000 and 001.
pub fn fixed_point(
    start: f64,
    step: impl Fn(f64) -> Option<f64>,
) -> Result<(f64, usize), Saturation> {
    let mut s = start;
    for iterations in 1..=MAX_ITERATIONS {
        let next = step(s).ok_or(Saturation::Channel)?;
        if !next.is_finite() {
            return Err(Saturation::Channel);
        }
        let done = (next - s).abs() <= TOLERANCE * next;
        s = next;
        if done {
            return Ok((s, iterations));
        }
    }
    Err(Saturation::NotConverged)
}

/// Why a load has no stable solution (paper 000's model and paper 001's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Saturation {
    /// A channel's utilisation λ_c S̄ reached 1 (eqs. 26, 29; in paper 001's model also the
    /// escape channel's P_t λ_c S̄).
    Channel,
    /// The source queue's utilisation (λ/V) S̄ reached 1 (eq. 27; paper 001's eq. 17).
    Source,
    /// Not converged within [`MAX_ITERATIONS`] steps.
    NotConverged,
    /// The load is not a non-negative finite number.
    BadLoad,
}
