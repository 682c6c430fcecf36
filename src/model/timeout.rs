//! Paper 001 (Khonsari, Sarbazi-Azad, Ould-Khaoua, *An Analytical Model of Adaptive Wormhole
//! Routing with Time-out*), reconstructed: mean message latency of Duato's routing with the
//! time-out selection function (Duato 1994; routing `duato-timeout`) on the hypercube, under
//! uniform traffic or Reed and Fujimoto's decreasing-probability locality.
//!
//! The paper survives only as fragments (its abstract and the sentences around its
//! citations, with pieces of eqs. 9-18). What is reconstructed below follows those fragments
//! where they say something and paper 000's hypercube model ([`super::duato_kary`], built on the
//! same [Oul99, Bou94] model) where they do not. Every gap filled is listed under
//! *Assumptions*.
//!
//! # The model
//!
//! - **Hops.** p_i, i = 0..=n, the probability that a message makes i hops: uniform,
//!   p_i = C(n, i)/(N − 1); Reed and Fujimoto's decreasing probability with factor φ,
//!   p_i = C(n, i) φ^(i−1) / Σ_r C(n, r) φ^(r−1) (every node of the n-cube has C(n, r) nodes at
//!   distance r); with `pattern_fraction` x < 1 the mixture x p^loc + (1 − x) p^uni.
//!   [`hop_distribution`]; tested against [`super::enumerate::hop_distribution`]. d̄ = Σ i p_i.
//! - **Channel rate** (eq. 11): λ_c = λ d̄ / n: the N λ d̄ hops per cycle spread over the N n
//!   channels.
//! - **Service time.** Every channel's service time is the mean network latency S̄ (the
//!   fragment: "the mean service time seen by a message at each channel is the same across all
//!   network channels [Oul99] and can be approximated by the mean network latency, S").
//! - **Occupancy** (eq. 10 = paper 000 eqs. 28-29): P_v, v = 0..=V, from the chain with
//!   ρ = λ_c S̄ ([`super::queueing::vc_occupancy`]).
//! - **Blocking** (eq. 9): the h-th hop of an i-hop message has r = i − h + 1 profitable
//!   dimensions, and finds every adaptive virtual channel of all of them busy with probability
//!   P_a^r, P_a = P_V + P_{V−1}/C(V, V−1) (the V − 1 busy virtual channels are the V − 1
//!   adaptive ones).
//! - **Adaptive class as an impatient queue** (eq. 12): the blocked message waits at the
//!   adaptive virtual channels, an M/M/1 queue with arrival rate λ_c, mean service time S̄ and
//!   deterministic impatience τ ([`impatient_mm1`], derivation below): it is served (gets a
//!   class-a channel) after a wait W <= τ, or times out after τ cycles, with probability P_t.
//! - **Escape channel** (the fragment of eqs. 13-14): the timed-out messages, rate P_t λ_c,
//!   wait for the deterministic virtual channel of the lowest dimension still to cross, an
//!   M/M/1 queue with service time S̄: w_d = P_t λ_c S̄² / (1 − P_t λ_c S̄).
//! - **Mean wait of a blocked message** (eq. 15, "averaging over the waiting times seen by a
//!   message at one of the adaptive virtual channels and at the deterministic virtual
//!   channel"): w = (1 − P_t) w_a + P_t (τ + w_d) = E[min(W, τ)] + P_t w_d, with w_a the mean
//!   wait of the messages that are served at class a.
//! - **Network latency** (eqs. 7-8 of paper 001 = paper 000 eqs. 8-9): S_i = M + i +
//!   Σ_{h=1}^{i} P_a^{i−h+1} w, S̄ = Σ_i p_i S_i. S̄ is on both sides: iterated S̄ ← F(S̄) from
//!   the zero-load M + d̄, as paper 000's model does (F increases in S̄, so the iterates rise
//!   monotonically to the smallest fixed point).
//! - **Source** (eq. 17): M/M/1 with arrival rate λ/V and service time S̄:
//!   W_s = (λ/V) S̄² / (1 − (λ/V) S̄).
//! - **Multiplexing** (eq. 18 = paper 000 eq. 30): V̄ = Σ v² P_v / Σ v P_v, and the latency
//!   (S̄ + W_s) V̄, split as paper 000's model splits it: `network_latency` = S̄ V̄,
//!   `source_wait` = W_s V̄.
//!
//! The load is [`Outcome::Saturated`] when ρ = λ_c S̄ reaches 1 (the occupancy chain has no
//! steady state), when the escape channel's P_t λ_c S̄ or the source's (λ/V) S̄ reaches 1,
//! or when the fixed point has not converged within [`super::queueing::MAX_ITERATIONS`] steps.
//!
//! # M/M/1 with deterministic impatience (derivation)
//!
//! Arrival rate λ, exponential service of mean S (rate μ = 1/S), ρ = λ S, FCFS; a customer
//! leaves, unserved, once it has waited τ. With FCFS and a deterministic patience, a customer's
//! wait is known when it arrives: it is the virtual waiting time V (the work in the system of
//! the customers that will be served). A customer with V > τ times out and adds no work; one
//! with V <= τ is served after waiting V. So V is the workload of an M/M/1 queue in which an
//! arrival adds its service time only when it finds V <= τ.
//!
//! Level crossing (downcrossings of level x at rate f(x), the density of V; upcrossings by the
//! arrivals that find V = y <= min(x, τ) and bring more than x − y of work):
//!
//! - 0 < x <= τ: f(x) = λ [P_0 e^{−μx} + ∫_0^x f(y) e^{−μ(x−y)} dy], solved by
//!   f(x) = λ P_0 e^{−δx}, δ = μ − λ = (1 − ρ)/S;
//! - x > τ: f(x) = f(τ) e^{−μ(x−τ)}.
//!
//! Normalising, P_0 [1 + λ (1 − e^{−δτ})/δ + ρ e^{−δτ}] = 1, i.e.
//! P_0 = (1 − ρ) / (1 − ρ² e^{−δτ}) (Tijms' form; the denominator of the fragment of eq. 12).
//! By PASTA an arrival sees V's stationary law, so
//!
//! - P_t = P(V > τ) = ∫_τ^∞ f = P_0 ρ e^{−δτ};
//! - E[V; V <= τ] = P_0 λ ∫_0^τ x e^{−δx} dx = P_0 λ [1 − e^{−δτ}(1 + δτ)] / δ²;
//! - w_a = E[V | V <= τ] = E[V; V <= τ] / (1 − P_t), the mean wait of those served;
//! - E[min(V, τ)] = E[V; V <= τ] + τ P_t, the mean time a customer spends waiting.
//!
//! These hold for every ρ > 0 (the queue is stable even for ρ >= 1, since customers leave);
//! at ρ = 1 (δ = 0) the limits (1 − e^{−δτ})/δ → τ and the integral → τ²/2 are taken.
//! Checks (tested): the served throughput λ (1 − P_t) S equals the busy probability 1 − P_0;
//! τ → ∞ with ρ < 1 gives P_t → 0 and w_a → ρ S / (1 − ρ), the M/M/1 wait; τ = 0 gives the
//! M/M/1/1 loss system, P_t = ρ / (1 + ρ), w_a = 0; a Monte-Carlo of the queue agrees.
//!
//! # Limits of the network model (tested)
//!
//! - λ → 0: P_a = 0, V̄ = 1, W_s = 0: the latency is M + d̄, the simulator's zero-load latency.
//! - τ → ∞: P_t → 0 and w → the M/M/1 wait ρ S̄ / (1 − ρ): blocked messages wait for class a
//!   only, as the simulator's `duato-timeout` with a huge τ does (Duato's routing with the
//!   escape channel never taken). The latency grows with τ towards this limit.
//! - τ = 0: w = P_t w_d with P_t = ρ / (1 + ρ): a blocked message goes straight to the escape
//!   channel and waits there (M/M/1 with arrival rate λ_c ρ/(1 + ρ)); the model then has the
//!   smallest latency of all τ.
//!
//! # Assumptions (the paper survives only as fragments)
//!
//! 1. The blocking probability at a hop is eq. 9's P_a^{i−h+1} alone (all adaptive virtual
//!    channels of the remaining dimensions busy): with τ > 0 the simulator's first attempt
//!    asks for class a only, so the escape channel does not enter the blocking event. Eq. 9's
//!    P_d = P_V is not used (for τ = 0 it would multiply the blocking by P_V / P_a; not done,
//!    so that the model is one formula in τ).
//! 2. The waiting time w of eq. 15 is the unconditional wait of the queues (as paper 000 uses
//!    the unconditional M/G/1 wait after its blocking probability), and a timed-out message
//!    is charged the τ cycles it waited before turning to the escape channel (the fragment
//!    averages w_a and w_d; whether τ is added there is lost; physically it is spent).
//! 3. The adaptive virtual channels of a physical channel form one queue (not V − 1 servers),
//!    with arrival rate λ_c (all the traffic of the channel) and service time S̄, as the
//!    fragment says; the escape channel's arrivals are the timed-out share of λ_c, Poisson.
//! 4. Every channel carries λ_c = λ d̄ / n under locality too (the hypercube is
//!    vertex-transitive and the distribution depends only on the distance; that the escape
//!    channel favours low dimensions is ignored), and the time-out at one channel is
//!    independent of the others (stated in the fragment of section 2).
//! 5. Service times exponential with mean S̄ (M/M/1, as the paper's choice of Tijms' queue and
//!    of eq. 17 implies), not paper 000's M/G/1 with the Draper-Ghosh variance; so at τ → ∞
//!    this model is not paper 000's.
//! 6. Buffer depth is not modelled: [`applies`] asks for buffers of 2 flits or more (one flit
//!    per hop per cycle), and for one message length M, V >= 2 (class a = V − 1, class b = 1)
//!    and the random selection (paper 000 assumption f, behind the occupancy chain).
//! 7. Time is continuous: τ cycles of the simulator are τ time units; the simulator's
//!    per-cycle retry (a header is routed once per cycle) is not modelled.
//!
//! # Against simulation (measured when written; not tuned)
//!
//! `scenarios/hypercube-6-duato-tau{0,4,16,64}.toml` (6-cube, V = 3, M = 32, uniform; the
//! simulator saturates at λ ≈ 0.0175): the model is 7% low at λ = 0.004, 16% low at 0.008,
//! 31% low at 0.012 and 44% low at 0.014, for every τ; it saturates at 0.036 (τ = 0) to 0.028
//! (τ = 64), about twice the simulated load. Most of the gap is the source wait (eq. 17's
//! arrival rate λ/V splits the source into V queues; flitsim's source injects one message at
//! a time: at λ = 0.014 the model has 11 cycles, the simulator 48); the network part is 6%,
//! 10%, 17% and 20% low at the same loads. Like the simulator, the model varies little with τ
//! at these loads (from τ = 0 to 64 its latency rises by about 1% at λ = 0.014).

use super::duato_kary::binom;
use super::queueing::{fixed_point, multiplexing_degree, vc_occupancy};
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
    pub n: u32,
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
        let vbar = multiplexing_degree(&p_v);
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
