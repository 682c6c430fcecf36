//! Paper 003's closed forms for the traffic, before any waiting: the mean distances, the mesh's
//! channel classes, message rates (eqs. 9-10) and routing probabilities (section 3.2), and the
//! torus's rates, last-hop fractions, injection splits and flit_xfer (Appendix A). Each is
//! tested against enumeration of the simulator's routes (`super::tests`).

use crate::topology::{Dir, KAryNCube, Link};

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
