//! Analytical models of the papers (000: `duato_kary`; 001: `timeout`; 002: `channel_traffic`;
//! 003: `mesh_torus`), and exact enumeration over source-destination pairs (the
//! reference that the papers' closed forms are checked against).
//!
//! Every latency model answers the same question: for a scenario and an offered load λ
//! (messages/node/cycle), the mean message latency (source wait included, as the simulator's
//! `latency_mean`), or that the load is past the model's saturation.

pub mod bound;
pub mod channel_traffic;
pub mod duato_kary;
pub mod enumerate;
pub mod mesh_torus;
pub mod queueing;
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
    /// Virtual-channel occupancy P_0..=P_V of a network link, for models that compute it
    /// (paper 000 eqs. 28-29; the simulator's `vc_occupancy`).
    pub vc_occupancy: Option<Vec<f64>>,
}

impl Prediction {
    /// Paper 000 eq. 1, Latency = (S̄ + W̄_s)·V̄, split as the simulator's columns: network
    /// latency S̄·V̄ and source wait W̄_s·V̄ (the models of papers 000 and 001), with V̄ from the
    /// occupancy `p_v` (eq. 30).
    pub fn multiplexed(s_bar: f64, w_s: f64, p_v: &[f64]) -> Prediction {
        let vbar = queueing::model_vbar(p_v);
        let network_latency = s_bar * vbar;
        let source_wait = w_s * vbar;
        Prediction {
            latency: network_latency + source_wait,
            network_latency,
            source_wait,
            vbar: Some(vbar),
            vc_occupancy: Some(p_v.to_vec()),
        }
    }
}

/// What a model says about one load.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Below saturation: the model's latency prediction.
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
        if s.traffic.options.reply_length > 0 {
            return Err(
                "the models are of one-way messages, not of requests answered by replies ([traffic] reply_length)"
                    .to_string(),
            );
        }
        if !s.topology.is_kary_ncube() {
            return Err(format!(
                "the models are for k-ary n-cubes' point-to-point channels, not {}",
                s.topology.describe()
            ));
        }
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

    /// The model's paper and authors, as tables and messages cite it.
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

    /// Whether its stable predictions carry the occupancy distribution P_v
    /// ([`Prediction::vc_occupancy`]): papers 000 and 001, not paper 003.
    pub fn gives_vc_occupancy(&self) -> bool {
        matches!(self, Model::DuatoKary(_) | Model::Timeout(_))
    }
}

/// The largest network whose channel rates or mean distance flitsim computes by enumerating
/// every source-destination pair (the work grows as N²).
pub const ENUMERATION_MAX_NODES: usize = 4096;

/// Where flitsim has a scenario's expected messages per cycle on each network link (the
/// papers' λ_c) exactly or in closed form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkRates {
    /// Dimension-order routing, any pattern: enumeration of every source-destination pair
    /// ([`enumerate::dor_link_rates`]), on networks of at most [`ENUMERATION_MAX_NODES`]
    /// processors.
    DorEnumeration,
    /// p-cube under uniform traffic: paper 002's eqs. 20-21 as re-derived
    /// ([`channel_traffic::pcube_link_rate`]).
    PCube,
    /// Duato's routing under uniform traffic on a unidirectional torus of one radix or a
    /// hypercube: every link carries λ d̄ / n (paper 000 eq. 7).
    Even,
    /// A dragonfly's minimal routing, any pattern: enumeration of every pair of processors
    /// ([`enumerate::minimal_link_rates`]), on at most [`ENUMERATION_MAX_NODES`] processors.
    DragonflyMinimal,
}

impl LinkRates {
    /// The channel-rate model of a scenario (one traffic variant), or None. Never for k-ary
    /// m-way networks (their processors are not the nodes of the channel graph); on a
    /// concentrated k-ary n-cube, enumeration only; never for requests answered by replies
    /// (their replies follow the reverse pattern).
    pub fn for_scenario(s: &Scenario) -> Option<LinkRates> {
        use crate::scenario::{Algorithm, Pattern};
        use crate::topology::Kind;
        let t = &s.topology;
        if s.traffic.options.reply_length > 0 {
            return None;
        }
        if matches!(t.family, crate::topology::Family::Dragonfly(_)) {
            let small = t.processors() as usize <= ENUMERATION_MAX_NODES;
            return (s.routing.algorithm == Algorithm::Min && small)
                .then_some(LinkRates::DragonflyMinimal);
        }
        if t.family != crate::topology::Family::KAryNCube {
            return None;
        }
        if !t.is_kary_ncube() {
            // Concentrated: the closed forms count one processor per router.
            let small = t.processors() as usize <= ENUMERATION_MAX_NODES;
            return (s.routing.algorithm == Algorithm::Dor && small)
                .then_some(LinkRates::DorEnumeration);
        }
        let uniform = s.traffic.pattern == Pattern::Uniform || s.traffic.pattern_fraction == 0.0;
        // Paper 000's k-ary n-cube: with radices that differ, the dimensions' links carry
        // different loads.
        let k_ary = t.radix.iter().all(|&k| k == t.radix[0]);
        let uni_torus = t.kind == Kind::Torus && !t.bidirectional && k_ary;
        match s.routing.algorithm {
            Algorithm::Dor if s.nodes() <= ENUMERATION_MAX_NODES => Some(LinkRates::DorEnumeration),
            Algorithm::PCube if uniform => Some(LinkRates::PCube),
            Algorithm::Duato | Algorithm::DuatoTimeout
                if uniform && (t.kind == Kind::Hypercube || uni_torus) =>
            {
                Some(LinkRates::Even)
            }
            _ => None,
        }
    }

    /// Where the rates come from (enumeration or the paper's equation), for output.
    pub fn name(self) -> &'static str {
        match self {
            LinkRates::DorEnumeration => "exact enumeration of the dimension-order routes",
            LinkRates::PCube => "paper 002 eqs. 20-21 (p-cube, re-derived)",
            LinkRates::Even => "paper 000 eq. 7 (λ d̄ / n on every link)",
            LinkRates::DragonflyMinimal => "exact enumeration of the minimal routes",
        }
    }

    /// The rate of every network link at λ = `rate` messages/node/cycle, for a scenario
    /// [`LinkRates::for_scenario`] gave this model; `seed` fixes a random permutation pattern
    /// as the simulation's.
    pub fn rates(self, s: &Scenario, rate: f64, seed: u64) -> Vec<f64> {
        let net = crate::network::Network::for_scenario(s);
        if self == LinkRates::DragonflyMinimal {
            let addr = crate::traffic::Addresses::of_processors(&net.topology);
            let traffic = crate::traffic::Traffic::new(&s.traffic, addr, seed);
            return enumerate::minimal_link_rates(&net, &traffic, rate);
        }
        let t = net.cube();
        let by_id = match self {
            LinkRates::DorEnumeration => {
                let traffic = crate::traffic::Traffic::new(
                    &s.traffic,
                    crate::traffic::Addresses::of_processors(&net.topology),
                    seed,
                );
                enumerate::dor_link_rates(&net, &traffic, rate, s.routing.tie)
            }
            LinkRates::PCube => t
                .links
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
            LinkRates::Even => vec![rate * t.mean_distance() / t.n() as f64; t.links.len()],
            LinkRates::DragonflyMinimal => unreachable!("returned above"),
        };
        net.topology.in_link_order(&by_id)
    }
}

/// Expected messages per cycle on each network link (the papers' λ_c), where flitsim has an
/// exact or closed form for the scenario's routing ([`LinkRates`]); None otherwise. `seed`
/// fixes a random permutation pattern as the simulation's.
pub fn link_rates(s: &Scenario, rate: f64, seed: u64) -> Option<Vec<f64>> {
    LinkRates::for_scenario(s).map(|m| m.rates(s, rate, seed))
}

/// The mean distance (hops) of a sent message under a scenario's traffic (one variant), for
/// minimal routing: on a hypercube under uniform, hotspot, bit-reversal or matrix-transpose
/// traffic (mixed with uniform by `pattern_fraction`), paper 002's closed forms (eqs. 2, 4,
/// 10-11 and 16-17, with the corrections of [`channel_traffic`], which are tested equal to
/// enumeration); otherwise the exact enumeration of every source-destination pair
/// ([`enumerate::mean_distance`]) on networks of at most [`ENUMERATION_MAX_NODES`]
/// processors. None beyond that and for other families than the k-ary n-cube. `seed` fixes a random permutation pattern.
pub fn mean_distance(s: &Scenario, seed: u64) -> Option<f64> {
    use crate::scenario::Pattern;
    use channel_traffic::Permutation;
    let t = &s.topology;
    if t.family != crate::topology::Family::KAryNCube {
        return None;
    }
    if t.kind == crate::topology::Kind::Hypercube && t.concentration == 1 {
        let n = t.radix.len() as u32;
        let x = s.traffic.pattern_fraction;
        match s.traffic.pattern {
            Pattern::Uniform | Pattern::Hotspot { .. } => {
                return Some(channel_traffic::uniform_mean_distance(n));
            }
            Pattern::BitReversal => {
                return Some(channel_traffic::mixture_mean_distance(
                    n,
                    Permutation::BitReversal,
                    x,
                ));
            }
            Pattern::MatrixTranspose => {
                return Some(channel_traffic::mixture_mean_distance(
                    n,
                    Permutation::MatrixTranspose,
                    x,
                ));
            }
            _ => {}
        }
    }
    if t.processors() > ENUMERATION_MAX_NODES as u64 {
        return None;
    }
    let topo = crate::topology::Topology::from(
        crate::topology::KAryNCube::new(t.kind, t.radix.clone(), t.bidirectional)
            .concentrated(t.concentration),
    );
    let addresses = crate::traffic::Addresses::of_processors(&topo);
    let traffic = crate::traffic::Traffic::new(&s.traffic, addresses, seed);
    Some(enumerate::mean_distance(topo.cube()?, &traffic))
}
