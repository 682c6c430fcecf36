//! Paper 003 (Greenberg and Guan, *Modeling and Comparison of Wormhole Routed Mesh and Torus
//! Networks*): mean message latency of e-cube (dimension-order) routing in the 2D k x k mesh
//! (section 3, eqs. 8-15, on the general framework of section 2, eqs. 1-7) and in the
//! unidirectional k-ary 2-cube torus (Appendix A, Draper and Ghosh's model with injection and
//! ejection channels added).
//!
//! Every channel's service time is resolved backwards along the routes, from the ejection
//! channel to the injection channel, each wait being the M/G/1 wait of eq. 4
//! ([`mg1_wait`]): a closed form, no fixed point. A load is [`Outcome::Saturated`] when some
//! channel class ([`Saturation::Channel`]) or injection queue ([`Saturation::Injection`])
//! reaches utilisation 1. The paper routes y before x; the simulator's dimension 0 is the
//! paper's y ([`mesh_link_class`]). The prediction is the paper's L̄ less one cycle, so that
//! the zero-load latency is the simulator's M + d̄ ([`Solution::paper_latency`] keeps L̄).
//! [`applies`] says which scenarios are covered (the mesh with vcs = 1, the unidirectional
//! torus with vcs = 2).
//!
//! The derivation, the reading of the appendix's torus formulas, the equations implemented as
//! printed or corrected, and where the model and the simulator part are in
//! [docs/src/model-mesh-torus.md](../../docs/src/model-mesh-torus.md).

use crate::model::queueing::mg1_wait;
use crate::model::{Outcome, Prediction};
use crate::scenario::{Algorithm, Pattern, Scenario};
use crate::topology::{KAryNCube, Kind};

// The tests (`tests.rs`, `use super::*`) name `Dir`, which the code here no longer does.
#[cfg(test)]
use crate::topology::Dir;

mod rates;
pub use rates::*;

/// Which of paper 003's networks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Network {
    /// The k x k mesh with bidirectional links (section 3).
    Mesh,
    /// The unidirectional k-ary 2-cube with two dateline virtual channels (Appendix A).
    Torus,
}

/// Why a load has no stable solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Saturation {
    /// A channel (class) has utilisation λ_j x̄_j >= 1 (eq. 4; Appendix A's F_W).
    Channel,
    /// An injection queue has utilisation λ x̄_inj >= 1 (eq. 4 at the injection channel).
    Injection,
    /// The load is not a non-negative finite number.
    BadLoad,
}

/// Service times and waits of the channel classes.
#[derive(Clone, Debug, PartialEq)]
pub enum Classes {
    /// `x_x[j0]`, `w_x[j0]`: x channel ⟨j0⟩ (eq. 12, index 0 unused, 0); `x_y[j0][j1]`,
    /// `w_y[j0][j1]`: y channel ⟨j0, j1⟩ (eq. 13, j1 = 0 unused, 0).
    Mesh {
        /// Service time of x channel ⟨j0⟩ in cycles (eq. 12).
        x_x: Vec<f64>,
        /// M/G/1 wait at x channel ⟨j0⟩ in cycles (eq. 4).
        w_x: Vec<f64>,
        /// Service time of y channel ⟨j0, j1⟩ in cycles (eq. 13).
        x_y: Vec<Vec<f64>>,
        /// M/G/1 wait at y channel ⟨j0, j1⟩ in cycles (eq. 4).
        w_y: Vec<Vec<f64>>,
    },
    /// `x_last[j0]`, `w_last[j0]`: Appendix A's x_{j0}, W_{j0} (last dimension);
    /// `x_first[j0][j1]`, `w_first[j0][j1]`: x_{j0,j1}, W_{j0,j1} (first dimension).
    Torus {
        /// Appendix A's x_{j0}: service time of a last-dimension channel, cycles.
        x_last: Vec<f64>,
        /// Appendix A's W_{j0}: wait at a last-dimension channel, cycles.
        w_last: Vec<f64>,
        /// Appendix A's x_{j0,j1}: service time of a first-dimension channel, cycles.
        x_first: Vec<Vec<f64>>,
        /// Appendix A's W_{j0,j1}: wait at a first-dimension channel, cycles.
        w_first: Vec<Vec<f64>>,
    },
}

/// The model's values at one load.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// x_inj of node ⟨j0, j1⟩ (eq. 14; Appendix A's x^inj_{j0,j1}), `x_inj[j0][j1]`.
    pub x_inj: Vec<Vec<f64>>,
    /// W_inj (eq. 4; Appendix A's W^inj), `w_inj[j0][j1]`.
    pub w_inj: Vec<Vec<f64>>,
    /// Appendix A's flit_xfer (1 on the mesh).
    pub flit_xfer: f64,
    /// Service times and waits of every channel class.
    pub classes: Classes,
    /// The paper's L̄ as printed (eq. 15; Appendix A), one cycle above `latency`.
    pub paper_latency: f64,
    /// Mean source wait, (1/N) Σ W_inj.
    pub source_wait: f64,
    /// Mean network latency (module doc: eq. 2 with the − 1).
    pub network_latency: f64,
}

impl Solution {
    /// Eq. 2 as the simulator's columns (module doc).
    pub fn prediction(&self) -> Prediction {
        Prediction {
            latency: self.source_wait + self.network_latency,
            network_latency: self.network_latency,
            source_wait: self.source_wait,
            vbar: None,
            vc_occupancy: None,
        }
    }
}

/// Paper 003's model of one network: the k x k mesh or the unidirectional k-ary 2-cube, M-flit
/// messages.
#[derive(Clone, Debug)]
pub struct Model {
    /// The mesh or the unidirectional torus.
    pub network: Network,
    /// Radix k of both dimensions (k x k nodes).
    pub k: u32,
    /// Message length M (s/f), flits.
    pub length: f64,
}

impl Model {
    /// The k x k mesh (section 3).
    pub fn mesh(k: u32, length: u32) -> Model {
        assert!(k >= 2, "a mesh needs k >= 2");
        Model {
            network: Network::Mesh,
            k,
            length: length as f64,
        }
    }

    /// The unidirectional k-ary 2-cube (Appendix A).
    pub fn torus(k: u32, length: u32) -> Model {
        assert!(k >= 2, "a torus needs k >= 2");
        Model {
            network: Network::Torus,
            k,
            length: length as f64,
        }
    }

    /// The model of a scenario that [`applies`] accepts.
    pub fn from_scenario(s: &Scenario) -> Result<Model, String> {
        applies(s)?;
        let (k, m) = (s.topology.radix[0], s.traffic.lengths[0]);
        Ok(match s.topology.kind {
            Kind::Mesh => Model::mesh(k, m),
            _ => Model::torus(k, m),
        })
    }

    /// Mean distance over distinct pairs, network channels only (eq. 15; Appendix A's D̄).
    pub fn mean_distance(&self) -> f64 {
        match self.network {
            Network::Mesh => mesh_mean_distance(self.k),
            Network::Torus => torus_mean_distance(self.k),
        }
    }

    /// The model's message rate (messages per cycle) on every link of `topo` (the simulator's
    /// k x k mesh or unidirectional k-ary 2-cube), in link order: eqs. 9-10, or λ_net.
    pub fn link_rates(&self, topo: &KAryNCube, lambda: f64) -> Vec<f64> {
        topo.links
            .iter()
            .map(|l| match self.network {
                Network::Mesh => match mesh_link_class(topo, l) {
                    MeshClass::X(j0) => mesh_x_rate(self.k, j0, lambda),
                    MeshClass::Y(_, j1) => mesh_y_rate(self.k, j1, lambda),
                },
                Network::Torus => torus_rates(self.k, lambda).net,
            })
            .collect()
    }

    /// The model at λ messages/node/cycle, or why it has no stable solution.
    pub fn solve(&self, lambda: f64) -> Result<Solution, Saturation> {
        if !(lambda.is_finite() && lambda >= 0.0) {
            return Err(Saturation::BadLoad);
        }
        match self.network {
            Network::Mesh => self.solve_mesh(lambda),
            Network::Torus => self.solve_torus(lambda),
        }
    }

    /// The prediction at λ messages/node/cycle, or `Saturated`.
    pub fn predict(&self, lambda: f64) -> Outcome {
        match self.solve(lambda) {
            Ok(sol) => Outcome::Stable(sol.prediction()),
            Err(_) => Outcome::Saturated,
        }
    }

    fn solve_mesh(&self, lambda: f64) -> Result<Solution, Saturation> {
        let k = self.k as usize;
        let kf = k as f64;
        let m = self.length;
        let channel = |rate: f64, x: f64| mg1_wait(rate, x, m).ok_or(Saturation::Channel);
        // Eq. 11: the ejection channel serves M flits and has no wait.
        let eject = m;
        // X channels, j0 = 1..k − 1 (eqs. 9, 12, 4).
        let (mut x_x, mut w_x) = (vec![0.0; k], vec![0.0; k]);
        for j0 in 1..k {
            let a = j0 as f64;
            let r = mesh_x_routing(j0 as u32);
            let mut x = eject * r.eject;
            if j0 > 1 {
                // Eq. 12: P = 1 − λ_⟨j0⟩ R / λ_⟨j0−1⟩ = 1/(k − j0 + 1).
                x += (x_x[j0 - 1] + w_x[j0 - 1] / (kf - a + 1.0)) * r.straight;
            }
            x_x[j0] = x;
            // Eq. 4 with eq. 9's rate.
            w_x[j0] = channel(mesh_x_rate(self.k, j0 as u32, lambda), x)?;
        }
        // Y channels ⟨j0, j1⟩, j1 = 1..k − 1 (eqs. 10, 13, 4).
        let (mut x_y, mut w_y) = (vec![vec![0.0; k]; k], vec![vec![0.0; k]; k]);
        for j0 in 0..k {
            let a = j0 as f64;
            for j1 in 1..k {
                let b = j1 as f64;
                let r = mesh_y_routing(self.k, j0 as u32, j1 as u32);
                // Eq. 13, ejection.
                let mut x = eject * r.eject;
                if j0 > 0 {
                    // Eq. 13, west to ⟨j0⟩.
                    let p = (kf * (kf - a) - (kf - b)) / (kf * (kf - a));
                    x += (x_x[j0] + p * w_x[j0]) * r.west;
                }
                if j0 + 1 < k {
                    // Eq. 13, east to ⟨j0, E⟩ = ⟨k − 1 − j0⟩.
                    let e = k - 1 - j0;
                    let p = (kf * a + b) / (kf * (a + 1.0));
                    x += (x_x[e] + p * w_x[e]) * r.east;
                }
                if j1 > 1 {
                    // Eq. 13, straight on to ⟨j0, j1 − 1⟩.
                    x += (x_y[j0][j1 - 1] + w_y[j0][j1 - 1] / (kf - b + 1.0)) * r.straight;
                }
                x_y[j0][j1] = x;
                // Eq. 4 with eq. 10's rate.
                w_y[j0][j1] = channel(mesh_y_rate(self.k, j1 as u32, lambda), x)?;
            }
        }
        // Injection channels (eqs. 8, 14, 4).
        let (mut x_inj, mut w_inj) = (vec![vec![0.0; k]; k], vec![vec![0.0; k]; k]);
        for j0 in 0..k {
            let a = j0 as f64;
            for j1 in 0..k {
                let b = j1 as f64;
                let r = mesh_injection_routing(self.k, j0 as u32, j1 as u32);
                let mut x = 0.0;
                if j0 > 0 {
                    // Eq. 14, west.
                    let p = (kf * (kf - a) - 1.0) / (kf * (kf - a));
                    x += (x_x[j0] + p * w_x[j0]) * r.west;
                }
                if j0 + 1 < k {
                    // Eq. 14, east.
                    let e = k - 1 - j0;
                    let p = (kf * (1.0 + a) - 1.0) / (kf * (1.0 + a));
                    x += (x_x[e] + p * w_x[e]) * r.east;
                }
                if j1 > 0 {
                    // Eq. 14, south.
                    let p = (kf - b - 1.0) / (kf - b);
                    x += (x_y[j0][j1] + p * w_y[j0][j1]) * r.south;
                }
                if j1 + 1 < k {
                    // Eq. 14, north to ⟨j0, k − 1 − j1⟩.
                    let n = k - 1 - j1;
                    let p = b / (1.0 + b);
                    x += (x_y[j0][n] + p * w_y[j0][n]) * r.north;
                }
                x_inj[j0][j1] = x;
                // Eq. 4 at the injection channel, rate λ (eq. 8).
                w_inj[j0][j1] = mg1_wait(lambda, x, m).ok_or(Saturation::Injection)?;
            }
        }
        let nodes = kf * kf;
        let mean_x: f64 = x_inj.iter().flatten().sum::<f64>() / nodes;
        let mean_w: f64 = w_inj.iter().flatten().sum::<f64>() / nodes;
        // Eq. 15's D̄ (injection and ejection channels included).
        let d = mesh_mean_distance(self.k) + 2.0;
        Ok(Solution {
            x_inj,
            w_inj,
            flit_xfer: 1.0,
            classes: Classes::Mesh { x_x, w_x, x_y, w_y },
            // Eq. 15.
            paper_latency: mean_w + mean_x + d - 1.0,
            source_wait: mean_w,
            // Eq. 15 with the simulator's constant (module doc): D̄ − 2 = d̄.
            network_latency: mean_x + d - 2.0,
        })
    }

    fn solve_torus(&self, lambda: f64) -> Result<Solution, Saturation> {
        let k = self.k as usize;
        let kf = k as f64;
        let m = self.length;
        let rates = torus_rates(self.k, lambda);
        let cls = &rates.class;
        let xfer = flit_xfer(rates.net, m);
        // Appendix A, x_base.
        let x_base = xfer * m;
        // Appendix A, F_W: eq. 4 with x_base in the variance.
        let f_w = |y: f64, z: f64| mg1_wait(y, z, x_base);
        let channel = |y: f64, z: f64| f_w(y, z).ok_or(Saturation::Channel);
        // With λ = 0 every ratio below is 0/0: its limit (the ratio of the formulas' factors of
        // λ) is taken by evaluating the rates at λ = 1 for the ratios.
        let unit = torus_rates(self.k, 1.0);
        // The last dimension: x_{j0}, W_{j0}, j0 = 0..k − 1.
        let (mut x_last, mut w_last) = (vec![0.0; k], vec![0.0; k]);
        for j0 in 0..k {
            let x = if j0 == 0 {
                x_base
            } else {
                let last = torus_last_hop(self.k, j0 as u32);
                // Appendix A, x_{j0}: P = λ_new / λ_{j0−1} (eq. 6).
                let p = unit.new / unit.class[j0 - 1];
                (1.0 - last) * (x_last[j0 - 1] + w_last[j0 - 1] * p) + last * x_last[0]
            };
            x_last[j0] = x;
            // Appendix A, W_{j0} = F_W(λ_{j0}, x_{j0}).
            w_last[j0] = channel(cls[j0], x)?;
        }
        // The first dimension: x_{j0,j1}, W_{j0,j1}.
        let (mut x_first, mut w_first) = (vec![vec![0.0; k]; k], vec![vec![0.0; k]; k]);
        for j0 in 0..k {
            for j1 in 0..k {
                let x = if j1 == 0 {
                    // Appendix A, x_{j0,0}: eject with 1/k, else switch into class j0.
                    let p = 1.0 - unit.sw / (2.0 * unit.class[j0]);
                    x_base / kf + (kf - 1.0) / kf * (x_last[j0] + w_last[j0] * p)
                } else {
                    let last = torus_last_hop(self.k, j1 as u32);
                    let p = unit.new / unit.class[j1 - 1];
                    // Appendix A, x_{j0,j1}, j1 > 0.
                    (1.0 - last) * (x_first[j0][j1 - 1] + p * w_first[j0][j1 - 1])
                        + last * x_first[j0][0]
                };
                x_first[j0][j1] = x;
                // Appendix A, W_{j0,j1} = F_W(λ_{j1}, x_{j0,j1}).
                w_first[j0][j1] = channel(cls[j1], x)?;
            }
        }
        // Injection: x^inj_{j0,j1}, W^inj_{j0,j1}.
        let (to_last, to_first) = torus_injection_split(self.k);
        let (mut x_inj, mut w_inj) = (vec![vec![0.0; k]; k], vec![vec![0.0; k]; k]);
        for j0 in 0..k {
            for j1 in 0..k {
                let p_last = 1.0 - 1.0 / unit.class[j0] * to_last;
                let p_first = 1.0 - 1.0 / unit.class[j1] * to_first;
                // Appendix A, x^inj_{j0,j1}.
                let x = (x_last[j0] + p_last * w_last[j0]) * to_last
                    + (x_first[j0][j1] + p_first * w_first[j0][j1]) * to_first;
                x_inj[j0][j1] = x;
                // Appendix A, W^inj_{j0,j1} = F_W(λ_node, x^inj_{j0,j1}).
                w_inj[j0][j1] = f_w(lambda, x).ok_or(Saturation::Injection)?;
            }
        }
        let nodes = kf * kf;
        let mean_x: f64 = x_inj.iter().flatten().sum::<f64>() / nodes;
        let mean_w: f64 = w_inj.iter().flatten().sum::<f64>() / nodes;
        let d = torus_mean_distance(self.k);
        // Appendix A, L̄: the tail's last D̄ − 1 network hops at flit_xfer, + 2.
        let tail = (d - 1.0) * xfer + 2.0;
        Ok(Solution {
            x_inj,
            w_inj,
            flit_xfer: xfer,
            classes: Classes::Torus {
                x_last,
                w_last,
                x_first,
                w_first,
            },
            // Appendix A, L̄.
            paper_latency: mean_w + mean_x + tail,
            source_wait: mean_w,
            // With the simulator's constant (module doc).
            network_latency: mean_x + tail - 1.0,
        })
    }
}

/// Whether paper 003's models cover a scenario: a 2D k x k mesh with one virtual channel, or a
/// 2D unidirectional k-ary 2-cube with the two dateline virtual channels; routing "dor";
/// buffers of 2 flits or more; uniform destinations (assumption 1); one message length
/// (assumption 2). Err says what does not fit.
pub fn applies(s: &Scenario) -> Result<(), String> {
    let t = &s.topology;
    if t.kind == Kind::Hypercube {
        return Err("paper 003's models cover the 2D mesh and the unidirectional 2D torus, not the hypercube".into());
    }
    if t.radix.len() != 2 || t.radix[0] != t.radix[1] {
        return Err(format!(
            "paper 003's models are for 2D k x k networks (n = 2, one radix), not radix {:?}",
            t.radix
        ));
    }
    match t.kind {
        Kind::Torus if t.bidirectional => {
            return Err("paper 003's torus model is for the unidirectional torus (links = \"unidirectional\"), not a bidirectional one".into());
        }
        Kind::Torus if s.router.vcs != 2 => {
            return Err(format!(
                "paper 003's torus model (Appendix A) has the two dateline virtual channels per channel (flit_xfer shares the channel with one other): use vcs = 2, not {}",
                s.router.vcs
            ));
        }
        Kind::Mesh if s.router.vcs != 1 => {
            return Err(format!(
                "paper 003's mesh model is wormhole routing without virtual channels: use vcs = 1, not {}",
                s.router.vcs
            ));
        }
        _ => {}
    }
    if s.routing.algorithm != Algorithm::Dor {
        return Err(format!(
            "paper 003's models are for e-cube routing (\"dor\"), not {:?}",
            s.routing.algorithm.name()
        ));
    }
    if s.router.buffer_depth < 2 {
        return Err("paper 003's models move one flit per hop per cycle: buffers of 1 flit pass one every other cycle; use buffer_depth >= 2".into());
    }
    let tr = &s.traffic;
    if !(tr.pattern == Pattern::Uniform || tr.pattern_fraction == 0.0) {
        return Err(format!(
            "paper 003's models assume uniform destinations (assumption 1), not {} with pattern_fraction {}",
            tr.pattern.name(),
            tr.pattern_fraction
        ));
    }
    if tr.lengths.len() != 1 {
        return Err(format!(
            "paper 003's models assume one message length (assumption 2), not {:?}",
            tr.lengths
        ));
    }
    Ok(())
}

/// Paper 003's prediction for a scenario at λ = `rate` messages/node/cycle.
///
/// # Panics
/// When [`applies`] rejects the scenario: call it first.
pub fn predict(s: &Scenario, rate: f64) -> Outcome {
    match Model::from_scenario(s) {
        Ok(m) => m.predict(rate),
        Err(why) => panic!("mesh_torus::predict on a scenario it does not cover: {why}"),
    }
}

#[cfg(test)]
mod tests;
