//! Paper 003 (Greenberg and Guan, *Modeling and Comparison of Wormhole Routed Mesh and Torus
//! Networks*): mean message latency of e-cube (dimension-order) routing in the 2D k x k mesh
//! (section 3, eqs. 8-15, on the general framework of section 2, eqs. 1-7) and in the
//! unidirectional k-ary 2-cube torus (Appendix A, Draper and Ghosh's model with injection and
//! ejection channels added).
//!
//! # The framework (section 2)
//!
//! A message's path is its injection channel, its network channels and its ejection channel.
//! It waits W_inj in the source queue, holds the injection channel for a service time x_inj,
//! and, once its tail has left the injection channel, needs D − 1 more steps, D being the number
//! of channels of the path (eq. 1); averaged over the nodes, eq. 2. The service time of a
//! channel is, over the channels j the message may take next with probability R_{i|j}, the next
//! channel's service time plus the part P_{i|j} W_j of its M/G/1 wait (eqs. 3, 5): W_j is eq. 4,
//! the M/G/1 wait with the Draper-Ghosh variance (x̄ − M)² ([`mg1_wait`], shared with paper
//! 000's model, which prints the same formula), and P_{i|j} = 1 − λ_i R_{i|j} / λ_j (eq. 6) removes the traffic
//! that comes from channel i itself, which cannot block it. Eq. 7 combines them. Service times
//! are resolved from the ejection channel back to the injection channel; the ejection channel
//! has service M and (the paper's simplification, footnote 1) no wait.
//!
//! Everything is a closed form resolved backwards along the routes: no fixed point, so the
//! model is evaluated directly at every load. A load is [`Outcome::Saturated`] when an eq. 4
//! has no finite value: some channel (class) has utilisation λ_j x̄_j >= 1
//! ([`Saturation::Channel`]) or some injection queue has λ x̄_inj >= 1
//! ([`Saturation::Injection`]). Every wait grows with λ, with its service time x and with
//! x − M (x − x_base on the torus), and every x − M is a positive combination of downstream
//! waits, so by induction along the routes the latency is increasing in λ up to that point
//! (also tested). Apart from the additive distance terms every time is M times a function of
//! λM, so the predicted saturation load in flits/node/cycle, λM, does not depend on M.
//!
//! # Dimension order: the paper's and the simulator's
//!
//! The paper routes the y dimension first, then x (section 3: "service times are resolved in
//! the order of ejection channels, x-dimension channels, y-dimension channels"; in the appendix
//! the dimension written j1 first, j0 last). The simulator corrects dimension 0 first. On a k x k
//! network with uniform traffic swapping the two coordinates is a symmetry, so the paper's
//! node ⟨j0, j1⟩ is the simulator's node with coordinate j0 in dimension 1 and j1 in dimension 0:
//! the paper's x (west/east, last) is the simulator's dimension 1, its y (south/north, first)
//! the simulator's dimension 0. West and south are the `-` direction. The tests compare the
//! closed forms with the simulator's own routes under this mapping ([`mesh_link_class`]).
//!
//! # The mesh (section 3)
//!
//! Channel equivalence classes: the west-bound x channel leaving x = j0 is ⟨j0⟩ (1 <= j0 < k);
//! the east-bound one leaving x = j0 is equivalent to ⟨k − 1 − j0⟩. The south-bound y channel
//! leaving ⟨j0, j1⟩ is ⟨j0, j1⟩ (0 <= j0 < k, 1 <= j1 < k), the north-bound one is ⟨j0,
//! k − 1 − j1⟩. Message rates eqs. 8-10, routing probabilities R of section 3.2, service times
//! eqs. 11-14 with eq. 4's waits, latency eq. 15 with D̄ = 2k/3 + 2 (the mean distance d̄ = 2k/3
//! over distinct pairs, plus the injection and ejection channels).
//!
//! # The torus (Appendix A)
//!
//! The appendix prints formulas without words or definitions of its symbols. The reading below
//! (ours) makes every printed rate and probability exact and the printed blocking factors
//! eq. 6; the rates and probabilities are checked by tests against the simulator's routes:
//!
//! - λ_net is every channel's rate; λ_new the rate at which messages enter a ring channel from
//!   outside its ring (injected, or switched in from the other dimension: the same for both
//!   dimensions, k(k − 1)/(k² − 1) λ); λ_sw the rate at which messages switch from the first to
//!   the last dimension at a node.
//! - Class j of a dimension is the traffic on one of its channels whose distance in that
//!   dimension is at least j; λ_j is its rate (λ_0 = λ_1 = λ_net). Of class j (j >= 1) a fraction
//!   2/(k + j − 1) is on its last hop in the dimension and the rest, (k + j − 3)/(k + j − 1),
//!   continues; the continuing traffic is modelled as entering class j − 1 of the next channel,
//!   where eq. 6 gives P = 1 − λ_j (k + j − 3)/(k + j − 1) / λ_{j−1} = λ_new / λ_{j−1}: the
//!   printed blocking factor.
//! - x_{j0} is the service time of class j0 of the last dimension (class 0: x_base, the
//!   ejection); x_{j0,j1} of class j1 of the first dimension for a message entering class j0
//!   of the last one: class 0 of the first dimension is its last hop there, after which it
//!   ejects (probability 1/k: no hop left in the last dimension) or switches.
//! - Virtual channels: the two dateline virtual channels share a physical channel flit by
//!   flit; a flit waits for the other one with probability λ_net M / 2 (half the channel's
//!   traffic), hence flit_xfer = 1 + λ_net M / 2 and the base service time x_base = flit_xfer
//!   M, which also replaces M in the variance of eq. 4 (F_W).
//! - x^inj_{j0,j1}: to the last dimension directly with probability 1/(k + 1) (no hop in the
//!   first), else (k/(k + 1)) to the first; W^inj = F_W(λ, x^inj); L̄ averages over
//!   j0, j1 = 0..k − 1 and adds (D̄ − 1) flit_xfer + 2, D̄ = k²/(k + 1).
//! - So a message entering a dimension is given the service time of class j, j = 0..k − 1
//!   equally likely (the distance it has there, 0 included), and class j's service time mixes
//!   the messages of distance j, j + 1, .., k − 1 found on a channel: the model's approximation,
//!   not a property of the routes (unlike the mesh's classes, which are exact).
//!
//! # Eq. 2 and the simulator's columns
//!
//! The simulator's `source_wait_mean` runs from generation until the head crosses the injection
//! channel: the paper's W_inj. Its `network_latency_mean` runs from then until the tail is
//! ejected: the paper's x_inj + D − 1. So `source_wait` = (1/N) Σ W_inj, `network_latency` =
//! (1/N) Σ x_inj + D̄ − 1 − 1 (mesh) or (1/N) Σ x^inj + (D̄ − 1) flit_xfer + 2 − 1 (torus), and
//! `latency` = their sum = the paper's L̄ − 1.
//!
//! The − 1: at zero load every x is M, so the paper's L̄ is M + d̄ + 1 for both networks (mesh:
//! M + D̄ − 1 with D̄ = d̄ + 2; torus: M + (D̄ − 1) + 2 with D̄ = d̄), while the simulator
//! measures exactly M + h for an h-hop message (README, "Timing and the router model"), M + d̄
//! on average. The paper counts the M flits passing the injection channel as M steps and then
//! D − 1 = h + 1 steps for the tail (h links and the ejection channel); the simulator's
//! latencies are differences of cycle numbers, and the head's crossing of the injection channel
//! is the start: the tail crosses it M − 1 cycles later, then h + 1 more. The model therefore
//! subtracts one cycle, a constant; [`Solution::paper_latency`] keeps the paper's value.
//! With it the model's zero-load latency is exactly M + d̄, d̄ over distinct pairs.
//!
//! # Equations: implemented as printed, or corrected
//!
//! - Eqs. 1-2: as printed; their constant is adjusted by − 1 cycle (above).
//! - Eqs. 3, 5, 6, 7: as printed; the mesh's eqs. 12-14 are eq. 7 on its classes, and a test
//!   checks that they equal eq. 7 applied channel by channel on the simulator's mesh with the
//!   enumerated rates and routing probabilities.
//! - Eq. 4: as printed (s/f = M), [`mg1_wait`].
//! - Eqs. 8-10: as printed; tested against [`dor_link_rates`] on every channel of small meshes.
//! - Section 3.2's R (1/j0 to eject, (j0 − 1)/j0 on; 1/(j1 k), (j1 − 1)/j1, j0/(j1 k),
//!   (k − 1 − j0)/(j1 k) from y channels; the four injection splits): as printed; tested
//!   against enumeration of the simulator's routes.
//! - Eq. 11: as printed (ejection service M, no wait: footnote 1).
//! - Eqs. 12-14: as printed. Their blocking factors are eq. 6 with eqs. 9-10 and the R above
//!   (checked by the eq. 7 test). Where a branch has probability 0 (eq. 12 at j0 = 1, eq. 13's
//!   west branch at j0 = 0, east at j0 = k − 1, straight on at j1 = 1; eq. 14's branches at the
//!   mesh's edges) it is left out: its channel class does not exist.
//! - Eq. 15: as printed, D̄ = 2k/3 + 2 (2k/3 is the exact mean distance over distinct pairs,
//!   tested), with the − 1 adjustment.
//! - Appendix A, λ_net, λ_new, λ_sw, λ_j: as printed (the λ_j formula with n = 2); tested
//!   against enumeration in both dimensions under the class reading above.
//! - Appendix A, x_{j0}, x_{j0,j1}, W = F_W: as printed. The probabilities 2/(k + j − 1),
//!   (k + j − 3)/(k + j − 1), 1/k, 1/(k + 1), k/(k + 1) are tested against enumeration, and
//!   λ_new/λ_{j−1} against eq. 6. The factor 1 − λ_sw/(2 λ_{j0}) (switching traffic into class
//!   j0 of the last dimension) is an approximation the model makes: by enumeration the
//!   switching traffic of class j0 >= 1 is λ_sw (k − j0)/(k − 1), which eq. 6 would use; the
//!   injection factors 1 − λ/((k + 1) λ_{j0}) and 1 − λ k/((k + 1) λ_{j1}) likewise count all
//!   injected traffic of the dimension, not only class j's. Kept as printed (the enumerated
//!   value λ_sw (k − j0)/(k − 1) is tested).
//! - Appendix A, x^inj: the printed bracket layout is garbled (a 2 x 1 matrix); read as the sum
//!   of the two weighted terms (weights 1/(k + 1) and k/(k + 1), summing to 1).
//! - Appendix A, L̄: as printed, with the − 1 adjustment.
//!
//! # What the model leaves out (where it and the simulator part)
//!
//! - Ejection: the paper omits the ejection channel's wait; in the simulator the ejection
//!   channel carries one flit per cycle, so two messages arriving at one node share it.
//! - Arbitration: the paper assumes FCFS at the inputs (assumption 3); the simulator grants
//!   round-robin. The M/G/1 mean wait is the same under any order that ignores service times.
//! - The source queue: the model's is M/G/1 with the injection channel's service time. In the
//!   simulator the next message takes the injection channel when the previous one's tail has
//!   left the injection buffer (mesh, one virtual channel); on the torus (two virtual channels,
//!   also at the injection channel) it may start in the second injection virtual channel as soon
//!   as the previous tail has entered the first, so the simulator's source queue has more
//!   capacity than the model's.
//! - Buffer depth is not modelled: [`applies`] asks for buffers of 2 flits or more, with which
//!   the simulator moves one flit per hop per cycle. The paper's assumption 2 (worms longer than
//!   the diameter) is not checked; the model is evaluated as printed for any M.
//! - Virtual channels: the mesh model has none ([`applies`] asks for vcs = 1); the torus model
//!   has exactly the two dateline virtual channels per channel (vcs = 2): flit_xfer assumes
//!   one other virtual channel carrying half the traffic, and the classes assume one message
//!   per virtual channel class at a time.
//!
//! [`dor_link_rates`]: crate::model::enumerate::dor_link_rates

use crate::model::queueing::mg1_wait;
use crate::model::{Outcome, Prediction};
use crate::scenario::{Algorithm, Pattern, Scenario};
use crate::topology::{Dir, KAryNCube, Kind, Link};

/// Which of paper 003's networks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Network {
    /// The k x k mesh with bidirectional links (section 3).
    Mesh,
    /// The unidirectional k-ary 2-cube with two dateline virtual channels (Appendix A).
    Torus,
}

/// Eq. 15: the mesh's mean distance over distinct pairs, network channels only (D̄ − 2 = 2k/3).
pub fn mesh_mean_distance(k: u32) -> f64 {
    // Eq. 15: D̄ = 2k/3 + 2 counts the injection and ejection channels.
    2.0 * k as f64 / 3.0
}

/// Appendix A: the unidirectional torus's mean distance over distinct pairs, D̄ = k²/(k + 1).
pub fn torus_mean_distance(k: u32) -> f64 {
    let k = k as f64;
    // Appendix A, D̄.
    k * k / (k + 1.0)
}

/// Eq. 9: λ_⟨j0⟩, messages per cycle on an x channel of class ⟨j0⟩ (1 <= j0 < k) at λ
/// messages/node/cycle.
pub fn mesh_x_rate(k: u32, j0: u32, lambda: f64) -> f64 {
    let (k, j) = (k as f64, j0 as f64);
    // Eq. 9.
    j * (k - j) * k / (k * k - 1.0) * lambda
}

/// Eq. 10: λ_⟨j0,j1⟩, messages per cycle on a y channel of class ⟨j0, j1⟩ (1 <= j1 < k; the
/// same for every j0).
pub fn mesh_y_rate(k: u32, j1: u32, lambda: f64) -> f64 {
    let (k, j) = (k as f64, j1 as f64);
    // Eq. 10.
    j * (k - j) * k / (k * k - 1.0) * lambda
}

/// The paper's equivalence class of a mesh channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshClass {
    /// An x channel (the simulator's dimension 1), class ⟨j0⟩, 1 <= j0 < k.
    X(u32),
    /// A y channel (the simulator's dimension 0), class ⟨j0, j1⟩, 1 <= j1 < k.
    Y(u32, u32),
}

/// The equivalence class of a link of the simulator's k x k mesh (section 3: east-bound
/// ⟨j0, E⟩ is ⟨k − 1 − j0⟩, north-bound ⟨j0, j1, N⟩ is ⟨j0, k − 1 − j1⟩), with the paper's
/// x = the simulator's dimension 1 and y = dimension 0 (module doc).
pub fn mesh_link_class(topo: &KAryNCube, link: &Link) -> MeshClass {
    let k = topo.radix[0];
    let x = topo.coord(link.src, 1);
    let y = topo.coord(link.src, 0);
    match (link.dim, link.dir) {
        (1, Dir::Minus) => MeshClass::X(x),
        (1, Dir::Plus) => MeshClass::X(k - 1 - x),
        (_, Dir::Minus) => MeshClass::Y(x, y),
        (_, Dir::Plus) => MeshClass::Y(x, k - 1 - y),
    }
}

/// Section 3.2: where a message leaving x channel ⟨j0⟩ goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct XRouting {
    /// R_{⟨j0⟩|ej} = 1/j0.
    pub eject: f64,
    /// R_{⟨j0⟩|⟨j0−1⟩} = (j0 − 1)/j0.
    pub straight: f64,
}

/// Section 3.2: R from x channel ⟨j0⟩.
pub fn mesh_x_routing(j0: u32) -> XRouting {
    let j = j0 as f64;
    XRouting {
        eject: 1.0 / j,
        straight: (j - 1.0) / j,
    }
}

/// Section 3.2: where a message leaving y channel ⟨j0, j1⟩ goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct YRouting {
    /// 1/(j1 k).
    pub eject: f64,
    /// To ⟨j0, j1 − 1⟩: (j1 − 1)/j1.
    pub straight: f64,
    /// To the west-bound ⟨j0⟩: j0/(j1 k).
    pub west: f64,
    /// To the east-bound ⟨j0, E⟩ = ⟨k − 1 − j0⟩: (k − 1 − j0)/(j1 k).
    pub east: f64,
}

/// Section 3.2: R from y channel ⟨j0, j1⟩.
pub fn mesh_y_routing(k: u32, j0: u32, j1: u32) -> YRouting {
    let (k, a, b) = (k as f64, j0 as f64, j1 as f64);
    YRouting {
        eject: 1.0 / (b * k),
        straight: (b - 1.0) / b,
        west: a / (b * k),
        east: (k - 1.0 - a) / (b * k),
    }
}

/// Section 3.2: where a message leaving the injection channel of ⟨j0, j1⟩ goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InjectionRouting {
    /// (k − 1 − j1) k/(k² − 1).
    pub north: f64,
    /// j1 k/(k² − 1).
    pub south: f64,
    /// (k − 1 − j0)/(k² − 1).
    pub east: f64,
    /// j0/(k² − 1).
    pub west: f64,
}

/// Section 3.2: R from the injection channel of node ⟨j0, j1⟩.
pub fn mesh_injection_routing(k: u32, j0: u32, j1: u32) -> InjectionRouting {
    let (k, a, b) = (k as f64, j0 as f64, j1 as f64);
    let pairs = k * k - 1.0;
    InjectionRouting {
        north: (k - 1.0 - b) * k / pairs,
        south: b * k / pairs,
        east: (k - 1.0 - a) / pairs,
        west: a / pairs,
    }
}

/// Appendix A's message rates at λ messages/node/cycle (k-ary 2-cube).
#[derive(Clone, Debug, PartialEq)]
pub struct TorusRates {
    /// λ_net: every channel.
    pub net: f64,
    /// λ_new: messages entering a channel from outside its ring, per channel.
    pub new: f64,
    /// λ_sw: messages switching from the first to the last dimension, per node.
    pub sw: f64,
    /// λ_j, j = 0..k − 1: messages on a channel whose distance in its dimension is >= j.
    pub class: Vec<f64>,
}

/// Appendix A, λ_j (n = 2): the rate on a channel of the messages whose distance in the
/// channel's dimension is at least j.
pub fn torus_class_rate(k: u32, j: u32, lambda: f64) -> f64 {
    let (kf, jf) = (k as f64, j as f64);
    let nodes = kf * kf;
    if j <= 1 {
        // Appendix A, λ_j = λ_net for j <= 1.
        lambda * (kf - 1.0) / 2.0 * nodes / (nodes - 1.0)
    } else {
        // Appendix A, λ_j for j > 1.
        lambda * kf * (kf * (kf - 1.0) - jf * (jf - 1.0)) / (2.0 * (nodes - 1.0))
    }
}

/// Appendix A's rates (n = 2).
pub fn torus_rates(k: u32, lambda: f64) -> TorusRates {
    let kf = k as f64;
    let nodes = kf * kf;
    TorusRates {
        // Appendix A, λ_net.
        net: lambda * (kf - 1.0) / 2.0 * nodes / (nodes - 1.0),
        // Appendix A, λ_new.
        new: lambda * kf * (kf - 1.0) / (nodes - 1.0),
        // Appendix A, λ_sw.
        sw: lambda * (kf - 1.0) * (kf - 1.0) / (nodes - 1.0),
        class: (0..k).map(|j| torus_class_rate(k, j, lambda)).collect(),
    }
}

/// Appendix A: the fraction of class j (j >= 1) on its last hop in the dimension,
/// 2/(k + j − 1); the rest, (k + j − 3)/(k + j − 1), continues.
pub fn torus_last_hop(k: u32, j: u32) -> f64 {
    2.0 / (k + j - 1) as f64
}

/// Appendix A: the injection splits (to the last dimension directly, to the first):
/// (1/(k + 1), k/(k + 1)).
pub fn torus_injection_split(k: u32) -> (f64, f64) {
    let kf = k as f64;
    (1.0 / (kf + 1.0), kf / (kf + 1.0))
}

/// Appendix A: flit_xfer = 1 + (λ_net/2) M, the mean time per flit with the other dateline
/// virtual channel sharing the physical channel.
pub fn flit_xfer(lambda_net: f64, length: f64) -> f64 {
    // Appendix A, flit_xfer.
    1.0 + lambda_net / 2.0 * length
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
        x_x: Vec<f64>,
        w_x: Vec<f64>,
        x_y: Vec<Vec<f64>>,
        w_y: Vec<Vec<f64>>,
    },
    /// `x_last[j0]`, `w_last[j0]`: Appendix A's x_{j0}, W_{j0} (last dimension);
    /// `x_first[j0][j1]`, `w_first[j0][j1]`: x_{j0,j1}, W_{j0,j1} (first dimension).
    Torus {
        x_last: Vec<f64>,
        w_last: Vec<f64>,
        x_first: Vec<Vec<f64>>,
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
    pub network: Network,
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
