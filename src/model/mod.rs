//! Analytical models of the papers (000: `duato_kary`; 001: `timeout`; 002: `channel_traffic`;
//! 003: `mesh_torus`), and exact enumeration over source-destination pairs (the
//! reference that the papers' closed forms are checked against).
//!
//! Every latency model answers the same question: for a scenario and an offered load λ
//! (messages/node/cycle), the mean message latency (source wait included, as the simulator's
//! `latency_mean`), or that the load is past the model's saturation.

pub mod channel_traffic;
pub mod duato_kary;
pub mod enumerate;
pub mod mesh_torus;
pub mod timeout;

use crate::scenario::Scenario;

/// A model's prediction at one load.
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    /// Mean message latency, cycles: generation to tail ejected (as `latency_mean`).
    pub latency: f64,
    /// Mean network latency, cycles (as `network_latency_mean`).
    pub network_latency: f64,
    /// Mean waiting time at the source, cycles (as `source_wait_mean`).
    pub source_wait: f64,
    /// Multiplexing degree V̄, for models that compute it (paper 000 eq. 30).
    pub vbar: Option<f64>,
}

impl Prediction {
    /// Paper 000 eq. 1, Latency = (S̄ + W̄_s)·V̄, split as the simulator's columns: network
    /// latency S̄·V̄ and source wait W̄_s·V̄ (the models of papers 000 and 001).
    pub fn multiplexed(s_bar: f64, w_s: f64, vbar: f64) -> Prediction {
        let network_latency = s_bar * vbar;
        let source_wait = w_s * vbar;
        Prediction {
            latency: network_latency + source_wait,
            network_latency,
            source_wait,
            vbar: Some(vbar),
        }
    }
}

/// What a model says about one load.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Stable(Prediction),
    /// The load is at or past the model's saturation (its fixed point diverges or a
    /// utilisation reaches 1).
    Saturated,
}

/// The largest load (messages/node/cycle) a model predicts as stable, by bisection on
/// `predict` between 0 and `hi`, to a relative precision of 1e-4.
pub fn saturation_load(predict: impl Fn(f64) -> Outcome, hi: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, hi);
    if matches!(predict(hi), Outcome::Stable(_)) {
        return hi;
    }
    while hi - lo > 1e-4 * hi {
        let mid = 0.5 * (lo + hi);
        match predict(mid) {
            Outcome::Stable(_) => lo = mid,
            Outcome::Saturated => hi = mid,
        }
    }
    lo
}

/// The models flitsim has, and which scenarios each covers.
pub fn coverage() -> &'static str {
    "paper 000 (Duato's fully adaptive routing, \"duato\" with random selection, on unidirectional \
     tori and hypercubes) and paper 003 (\"dor\" on the 2D k x k mesh with vcs = 1 and the \
     unidirectional k-ary 2-cube with vcs = 2), each with uniform traffic and one message length; \
     and paper 001 (\"duato-timeout\" on hypercubes, uniform or decreasing-probability locality \
     traffic)"
}

/// A latency model for one scenario.
pub enum Model {
    /// Paper 000's model of Duato's routing.
    DuatoKary(duato_kary::Model),
    /// Paper 003's models of e-cube routing on the 2D mesh and unidirectional torus.
    MeshTorus(mesh_torus::Model),
    /// Paper 001's time-out model, reconstructed.
    Timeout(timeout::Model),
}

impl Model {
    /// The model that covers a scenario, or why none does.
    pub fn for_scenario(s: &Scenario) -> Result<Model, String> {
        if s.routing.algorithm == crate::scenario::Algorithm::DuatoTimeout {
            timeout::applies(s)?;
            return Ok(Model::Timeout(timeout::Model::from_scenario(s)?));
        }
        match (duato_kary::applies(s), mesh_torus::applies(s)) {
            (Ok(()), _) => Ok(Model::DuatoKary(duato_kary::Model::from_scenario(s)?)),
            (_, Ok(())) => Ok(Model::MeshTorus(mesh_torus::Model::from_scenario(s)?)),
            (Err(a), Err(b)) if s.routing.algorithm == crate::scenario::Algorithm::Duato => {
                Err(format!("{a} (and {b})"))
            }
            (Err(a), Err(b)) => Err(format!("{b} (and {a})")),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Model::DuatoKary(_) => "paper 000 (Khonsari, Ould-Khaoua, Ferguson)",
            Model::MeshTorus(_) => "paper 003 (Greenberg, Guan)",
            Model::Timeout(_) => "paper 001 (Khonsari, Sarbazi-Azad, Ould-Khaoua), reconstructed",
        }
    }

    /// What the model says at λ messages/node/cycle.
    pub fn predict(&self, lambda: f64) -> Outcome {
        match self {
            Model::DuatoKary(m) => m.predict(lambda),
            Model::MeshTorus(m) => m.predict(lambda),
            Model::Timeout(m) => m.predict(lambda),
        }
    }

    /// The model's saturation load (messages/node/cycle).
    pub fn saturation(&self, max_rate: f64) -> f64 {
        saturation_load(|l| self.predict(l), max_rate)
    }
}

/// Expected messages per cycle on each network link (the papers' λ_c), where flitsim has an
/// exact or closed form for the scenario's routing: dimension-order routing by enumeration of
/// every source-destination pair (any pattern); p-cube under uniform traffic by paper 002's
/// re-derived eqs. 20-21; Duato's routing under uniform traffic on a unidirectional torus or a
/// hypercube, where every link carries λ d̄ / n (paper 000 eq. 7). None otherwise. `seed`
/// fixes a random permutation pattern as the simulation's.
pub fn link_rates(s: &Scenario, rate: f64, seed: u64) -> Option<Vec<f64>> {
    use crate::scenario::{Algorithm, Pattern};
    use crate::topology::Kind;
    let net = crate::engine::build_network(s);
    let traffic = crate::traffic::Traffic::new(&s.traffic, &net.topo, seed);
    let uniform = s.traffic.pattern == Pattern::Uniform || s.traffic.pattern_fraction == 0.0;
    let t = &net.topo;
    match s.routing.algorithm {
        Algorithm::Dor => Some(enumerate::dor_link_rates(&net, &traffic, rate)),
        Algorithm::PCube if uniform => Some(
            t.links
                .iter()
                .map(|l| {
                    channel_traffic::pcube_link_rate(
                        t.n() as u32,
                        l.src.count_ones(),
                        l.dst > l.src,
                        rate,
                    )
                })
                .collect(),
        ),
        Algorithm::Duato | Algorithm::DuatoTimeout
            if uniform && (t.kind == Kind::Hypercube || (t.wraps() && !t.bidirectional)) =>
        {
            Some(vec![rate * t.mean_distance() / t.n() as f64; t.links.len()])
        }
        _ => None,
    }
}
