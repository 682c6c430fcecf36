//! Paper 001 (Khonsari, Sarbazi-Azad, Ould-Khaoua, *An Analytical Model of Adaptive Wormhole
//! Routing with Time-out*), reconstructed: mean message latency of Duato's routing with the
//! time-out selection function (Duato 1994; routing `duato-timeout`) on the hypercube, under
//! uniform traffic or Reed and Fujimoto's decreasing-probability locality.
//!
//! The paper survives only as fragments (its abstract and pieces of eqs. 9-18); the gaps are
//! filled from paper 000's hypercube model ([`super::duato_kary`]). A blocked message waits at
//! the adaptive virtual channels, an M/M/1 queue with deterministic impatience τ
//! ([`impatient_mm1`], Tijms), and on timing out at the escape channel; S̄ is solved by the
//! fixed point of [`super::queueing`], and the latency is scaled by the multiplexing degree as
//! in paper 000. The load is [`Outcome::Saturated`] when a utilisation reaches 1 or the
//! iteration does not converge. [`applies`] says which scenarios are covered.
//!
//! The model, the derivation of the impatient queue, its limits, every assumption made to fill
//! the fragments and a comparison with simulation are in
//! [docs/src/model-timeout.md](../../docs/src/model-timeout.md).

use super::duato_kary::binom;
use super::queueing::{fixed_point, model_vbar, vc_occupancy};
use super::{Outcome, Prediction};
use crate::scenario::{Algorithm, Locality, Pattern, Scenario, Selection};
use crate::topology::Kind;

/// The M/M/1 queue with deterministic impatience τ (module doc): arrival rate λ, mean service
/// time S, patience τ.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Impatient {
    /// P_0: the probability that the server is idle (virtual wait 0).
    pub p0: f64,
    /// P_t = P(V > τ): the probability that a customer times out.
    pub p_t: f64,
    /// w_a = E[V | V <= τ]: the mean wait of the customers that are served.
    pub w_a: f64,
    /// E[min(V, τ)]: the mean time a customer waits, served or not.
    pub mean_wait: f64,
}

/// (1 − e^{−δτ})/δ, with its limit τ at δ = 0.
fn int_exp(delta: f64, tau: f64) -> f64 {
    let x = delta * tau;
    if x.abs() < 1e-8 {
        tau * (1.0 - x / 2.0)
    } else {
        -(-x).exp_m1() / delta
    }
}

/// ∫_0^τ x e^{−δx} dx = [1 − e^{−δτ}(1 + δτ)]/δ², with its limit τ²/2 at δ = 0.
fn int_x_exp(delta: f64, tau: f64) -> f64 {
    let x = delta * tau;
    if x.abs() < 1e-4 {
        // Series: τ² (1/2 − x/3 + x²/8 − x³/30).
        tau * tau * (0.5 - x / 3.0 + x * x / 8.0 - x * x * x / 30.0)
    } else {
        (1.0 - (-x).exp() * (1.0 + x)) / (delta * delta)
    }
}

/// Eq. 12 (Tijms): the M/M/1 queue with arrival rate `lambda`, mean service time `s` and
/// deterministic impatience `tau` (infinite allowed). None when λ or S is negative or not
/// finite, or when τ = ∞ and ρ >= 1 (no steady state).
pub fn impatient_mm1(lambda: f64, s: f64, tau: f64) -> Option<Impatient> {
    if !(lambda.is_finite() && s.is_finite() && lambda >= 0.0 && s > 0.0 && tau >= 0.0) {
        return None;
    }
    let rho = lambda * s;
    let delta = (1.0 - rho) / s;
    if tau.is_infinite() {
        if rho >= 1.0 {
            return None;
        }
        // Plain M/M/1: P_0 = 1 − ρ, W = ρ S / (1 − ρ).
        let w = rho * s / (1.0 - rho);
        return Some(Impatient {
            p0: 1.0 - rho,
            p_t: 0.0,
            w_a: w,
            mean_wait: w,
        });
    }
    let e = (-delta * tau).exp();
    if !e.is_finite() {
        // ρ so far past 1 that almost every customer times out.
        return Some(Impatient {
            p0: 0.0,
            p_t: 1.0,
            w_a: tau,
            mean_wait: tau,
        });
    }
    // Normalisation: P_0 [1 + λ (1 − e^{−δτ})/δ + ρ e^{−δτ}] = 1.
    let p0 = 1.0 / (1.0 + lambda * int_exp(delta, tau) + rho * e);
    // P_t = P_0 ρ e^{−δτ}.
    let p_t = (p0 * rho * e).clamp(0.0, 1.0);
    // E[V; V <= τ] = P_0 λ ∫_0^τ x e^{−δx} dx.
    let served = (p0 * lambda * int_x_exp(delta, tau)).max(0.0);
    let w_a = if p_t < 1.0 {
        (served / (1.0 - p_t)).min(tau)
    } else {
        tau
    };
    Some(Impatient {
        p0,
        p_t,
        w_a,
        mean_wait: served + tau * p_t,
    })
}

/// The hop distribution p_i, i = 0..=n, of the n-cube: uniform over the other N − 1 nodes when
/// `factor` is None; otherwise a fraction `x` of Reed and Fujimoto's decreasing probability
/// with factor φ (weight φ^(i−1) at distance i >= 1) and 1 − x uniform.
pub fn hop_distribution(n: u32, factor: Option<f64>, x: f64) -> Vec<f64> {
    let c = |i: u32| binom(n as i64, i as i64) as f64;
    let nodes = 2f64.powi(n as i32);
    let uniform: Vec<f64> = (0..=n)
        .map(|i| if i == 0 { 0.0 } else { c(i) / (nodes - 1.0) })
        .collect();
    let Some(phi) = factor else {
        return uniform;
    };
    let w: Vec<f64> = (0..=n)
        .map(|i| {
            if i == 0 {
                0.0
            } else {
                c(i) * phi.powi(i as i32 - 1)
            }
        })
        .collect();
    let z: f64 = w.iter().sum();
    w.iter()
        .zip(&uniform)
        .map(|(a, u)| x * a / z + (1.0 - x) * u)
        .collect()
}

/// The model's state at its fixed point.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// λ_c (eq. 11).
    pub lambda_c: f64,
    /// Mean network latency S̄, before the V̄ scaling.
    pub s_bar: f64,
    /// The adaptive class's impatient queue (eq. 12).
    pub adaptive: Impatient,
    /// Mean wait at the escape channel w_d (M/M/1, arrival P_t λ_c).
    pub w_d: f64,
    /// Mean wait of a blocked message w = E[min(W, τ)] + P_t w_d.
    pub w: f64,
    /// Mean source wait W_s (eq. 17), before the V̄ scaling.
    pub w_s: f64,
    /// P_0..=P_V (eq. 10).
    pub p_v: Vec<f64>,
    /// P_a (eq. 9).
    pub p_a: f64,
    /// V̄ (eq. 18).
    pub vbar: f64,
    /// Fixed-point steps taken.
    pub iterations: usize,
}

impl Solution {
    /// Latency (S̄ + W_s) V̄, split as the simulator's columns.
    pub fn prediction(&self) -> Prediction {
        Prediction::multiplexed(self.s_bar, self.w_s, &self.p_v)
    }
}

pub use super::queueing::Saturation;

/// Paper 001's model of one n-cube with V virtual channels, M-flit messages and time-out τ.
#[derive(Clone, Debug)]
pub struct Model {
    /// Dimensions n of the hypercube (2^n nodes).
    pub n: u32,
    /// Virtual channels V per physical channel, adaptive and escape together.
    pub vcs: u32,
    /// Message length M, flits.
    pub length: f64,
    /// Time-out τ, cycles (may be infinite).
    pub tau: f64,
    /// p_i, i = 0..=n.
    pub p: Vec<f64>,
    /// d̄.
    pub dbar: f64,
    /// (p_i, r) for every hop of every i: the hop has r = i − h + 1 profitable dimensions.
    terms: Vec<(f64, i32)>,
}

/// Per-hop blocking state at one S̄: (P_v, P_a, the impatient queue, w_d, w).
type HopState = (Vec<f64>, f64, Impatient, f64, f64);

impl Model {
    /// The model of an n-cube with hop distribution `p` (p_0..=p_n).
    pub fn new(n: u32, vcs: u32, length: u32, tau: f64, p: Vec<f64>) -> Model {
        assert!(n >= 1 && vcs >= 2 && p.len() == n as usize + 1);
        let dbar = p.iter().enumerate().map(|(i, x)| i as f64 * x).sum();
        // Σ_i p_i Σ_{h=1}^{i} P_a^{i−h+1} = Σ_r P_a^r Σ_{i>=r} p_i.
        let terms = (1..=n as usize)
            .map(|r| (p[r..].iter().sum::<f64>(), r as i32))
            .collect();
        Model {
            n,
            vcs,
            length: length as f64,
            tau,
            p,
            dbar,
            terms,
        }
    }

    /// The model of a scenario that [`applies`] accepts.
    pub fn from_scenario(s: &Scenario) -> Result<Model, String> {
        applies(s)?;
        let n = s.topology.radix.len() as u32;
        let tr = &s.traffic;
        let p = match tr.pattern {
            Pattern::Locality(Locality::Decreasing { factor }) => {
                hop_distribution(n, Some(factor), tr.pattern_fraction)
            }
            _ => hop_distribution(n, None, 0.0),
        };
        Ok(Model::new(
            n,
            s.router.vcs,
            tr.lengths[0],
            s.routing.timeout as f64,
            p,
        ))
    }

    fn hop_state(&self, lambda_c: f64, s: f64) -> Option<HopState> {
        let rho = lambda_c * s;
        let p_v = vc_occupancy(rho, self.vcs)?;
        let v = self.vcs as usize;
        // Eq. 9: P_a = P_V + P_{V−1}/C(V, V−1).
        let p_a = p_v[v] + p_v[v - 1] / v as f64;
        // Eq. 12.
        let q = impatient_mm1(lambda_c, s, self.tau)?;
        // Eqs. 13-14: escape channel M/M/1 with arrival P_t λ_c.
        let a = q.p_t * lambda_c;
        if a * s >= 1.0 {
            return None;
        }
        let w_d = a * s * s / (1.0 - a * s);
        // Eq. 15.
        let w = q.mean_wait + q.p_t * w_d;
        Some((p_v, p_a, q, w_d, w))
    }

    /// One step S̄ ← F(S̄); None when a utilisation reaches 1.
    pub fn step(&self, lambda: f64, s: f64) -> Option<f64> {
        let lambda_c = lambda * self.dbar / self.n as f64;
        let (_, p_a, _, _, w) = self.hop_state(lambda_c, s)?;
        let blocking: f64 = self
            .terms
            .iter()
            .map(|&(tail, r)| tail * p_a.powi(r) * w)
            .sum();
        Some(self.length + self.dbar + blocking)
    }

    /// The fixed point at λ messages/node/cycle, or why there is none.
    pub fn solve(&self, lambda: f64) -> Result<Solution, Saturation> {
        if !(lambda.is_finite() && lambda >= 0.0) {
            return Err(Saturation::BadLoad);
        }
        // Eq. 11.
        let lambda_c = lambda * self.dbar / self.n as f64;
        let (s, iterations) = fixed_point(self.length + self.dbar, |s| self.step(lambda, s))?;
        let (p_v, p_a, adaptive, w_d, w) =
            self.hop_state(lambda_c, s).ok_or(Saturation::Channel)?;
        // Eq. 17.
        let a = lambda / self.vcs as f64;
        if a * s >= 1.0 {
            return Err(Saturation::Source);
        }
        let w_s = a * s * s / (1.0 - a * s);
        // Eq. 18.
        let vbar = model_vbar(&p_v);
        Ok(Solution {
            lambda_c,
            s_bar: s,
            adaptive,
            w_d,
            w,
            w_s,
            p_v,
            p_a,
            vbar,
            iterations,
        })
    }

    /// The prediction at λ messages/node/cycle, or `Saturated`.
    pub fn predict(&self, lambda: f64) -> Outcome {
        match self.solve(lambda) {
            Ok(sol) => Outcome::Stable(sol.prediction()),
            Err(_) => Outcome::Saturated,
        }
    }
}

/// Whether this model covers a scenario: a hypercube; routing "duato-timeout" with the random
/// selection; V >= 2; buffers of 2 flits or more; uniform traffic or Reed and Fujimoto's
/// decreasing-probability locality; one message length. Err says what does not fit.
pub fn applies(s: &Scenario) -> Result<(), String> {
    if s.topology.kind != Kind::Hypercube {
        return Err(format!(
            "paper 001's time-out model is for the hypercube, not {:?}",
            s.topology.kind
        ));
    }
    if s.routing.algorithm != Algorithm::DuatoTimeout {
        return Err(format!(
            "paper 001's model is for routing \"duato-timeout\", not {:?}",
            s.routing.algorithm.name()
        ));
    }
    if s.routing.selection != Selection::Random {
        return Err(format!(
            "paper 001's model assumes the random selection of a free adaptive channel, not {:?}",
            s.routing.selection.name()
        ));
    }
    if s.router.vcs < 2 {
        return Err(format!(
            "paper 001's model needs V >= 2 (class a = V − 1, class b = 1), not V = {}",
            s.router.vcs
        ));
    }
    if s.router.buffer_depth < 2 {
        return Err("paper 001's model moves one flit per hop per cycle: buffers of 1 flit pass one every other cycle; use buffer_depth >= 2".into());
    }
    let tr = &s.traffic;
    match tr.pattern {
        Pattern::Uniform | Pattern::Locality(Locality::Decreasing { .. }) => {}
        _ if tr.pattern_fraction == 0.0 => {}
        p => {
            return Err(format!(
                "paper 001's model covers uniform traffic and decreasing-probability locality, not {} with pattern_fraction {}",
                p.name(),
                tr.pattern_fraction
            ));
        }
    }
    if tr.lengths.len() != 1 {
        return Err(format!(
            "paper 001's model assumes one message length M, not {:?}",
            tr.lengths
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
