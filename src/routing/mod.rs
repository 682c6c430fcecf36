//! Routing: maps (current router, destination, message state) to candidate
//! (output channel, buffer class) pairs. The engine's selection then picks a free buffer among
//! them (ARCHITECTURE.md). Enum dispatch keeps the per-flit path free of dynamic calls.

mod adaptive;
mod classes;
pub mod conventions;
mod dor;
mod dragonfly;
mod duato;
mod hyperx_ugal;
mod nca;
mod pcube;
mod ring;

pub use crate::spec::Algorithm;
pub use adaptive::Adaptive;
pub use classes::check as check_classes;
pub use conventions::{Dateline, Tie};
pub use dor::Dor;
pub use dragonfly::DragonflyRouting;
pub use duato::Duato;
pub use hyperx_ugal::HyperXUgal;
pub use nca::Nca;
pub use pcube::PCube;
pub use ring::{AdaptiveRing, DorRing};

use crate::network::Network;
use crate::spec::Scenario;
use crate::topology::{Family, Kind, TopologySpec};

/// Most candidates any routing yields for one header: one per output port.
pub const MAX_CANDIDATES: usize = 48;

/// An output channel and the range of its virtual channels (a buffer class) the header may
/// take. Selection only looks at a higher `tier` when no candidate of a lower one has a free
/// buffer (Duato: class a is tier 0, the escape class b tier 1). Candidates come in tier order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Candidate {
    /// Channel id of the output: a network link, or the ejection channel at the destination.
    pub chan: u32,
    /// First virtual channel of the buffer class on `chan` (inclusive).
    pub vc_lo: u8,
    /// End of the buffer class (exclusive): the header may take virtual channels `vc_lo..vc_hi`.
    pub vc_hi: u8,
    /// Selection priority: 0 first (Duato's class a), 1 only when no tier-0 buffer is free.
    pub tier: u8,
}

/// One side of UGAL's comparison (Kim et al. 2008): a path's hop count H and the channel
/// whose queue q weighs it; selection takes the path with the smaller q·H.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Weighed {
    /// H: the links the path crosses from here.
    pub hops: u32,
    /// The channel whose occupancy (flits in its virtual channels' buffers) is q.
    pub queue: u32,
    /// q counts only the flits in the path's own candidate's virtual channels (UGAL-L_VCH,
    /// where both paths leave by one channel), not the whole channel's.
    pub own_vcs: bool,
}

/// A fixed-capacity list of candidates, reused across calls (no allocation per flit).
#[derive(Clone)]
pub struct Candidates {
    items: [Candidate; MAX_CANDIDATES],
    len: usize,
    /// UGAL's comparison of the first candidate (the minimal path) with the second (the
    /// non-minimal one), when the routing asks selection to choose between them so.
    pub compare: Option<[Weighed; 2]>,
}

impl Default for Candidates {
    fn default() -> Self {
        Candidates {
            items: [Candidate::default(); MAX_CANDIDATES],
            len: 0,
            compare: None,
        }
    }
}

impl Candidates {
    /// Empties the list for the next header.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
        self.compare = None;
    }
    /// Appends a candidate; a routing pushes at most [`MAX_CANDIDATES`] per header.
    #[inline]
    pub fn push(&mut self, c: Candidate) {
        self.items[self.len] = c;
        self.len += 1;
    }
    /// The candidates pushed since the last `clear`, in tier order.
    #[inline]
    pub fn as_slice(&self) -> &[Candidate] {
        &self.items[..self.len]
    }
}

/// What a routing's requirements are checked against: the scenario's network and router.
#[derive(Clone, Copy)]
pub struct Setting<'a> {
    /// The validated topology.
    pub topology: &'a TopologySpec,
    /// Virtual channels (buffers) per channel.
    pub vcs: u32,
    /// `[router] early_free`.
    pub early_free: bool,
    /// `[routing] deadlock_check`: refuse combinations known to deadlock.
    pub deadlock_check: bool,
    /// `[routing] dateline` (as resolved for the topology).
    pub dateline: Dateline,
}

impl Setting<'_> {
    /// True on a torus (k-ary n-cube or m-way).
    pub fn torus(&self) -> bool {
        self.topology.kind == Kind::Torus
    }
}

/// A refused combination of routing and scenario: the key to change, what is wrong, the fix.
#[derive(Debug)]
pub struct Refusal {
    /// The key the message names, e.g. `[router] vcs`.
    pub key: &'static str,
    /// What is wrong.
    pub problem: String,
    /// How to fix it.
    pub fix: String,
}

impl Refusal {
    pub(crate) fn new(
        key: &'static str,
        problem: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Refusal {
            key,
            problem: problem.into(),
            fix: fix.into(),
        }
    }
}

/// Early free is deadlock-free only with dimension-order routing on meshes and hypercubes
/// (paper 004 section 3.5): the refusal for every other routing and network.
fn early_free(a: Algorithm, s: &Setting) -> Result<(), Refusal> {
    let cube_without_wrap = s.topology.cube_coordinates() && !s.torus();
    if s.early_free && (a != Algorithm::Dor || !cube_without_wrap) {
        return Err(Refusal::new(
            "[router] early_free",
            format!(
                "early free is deadlock-free with dimension-order routing on meshes and hypercubes (paper 004 section 3.5), not with {} on a {}",
                a.name(),
                s.topology.name()
            ),
            "remove early_free, or use algorithm = \"dor\" on a mesh or hypercube",
        ));
    }
    Ok(())
}

impl Algorithm {
    /// True for the dragonfly's routings.
    pub fn dragonfly(self) -> bool {
        matches!(
            self,
            Algorithm::Min
                | Algorithm::Valiant
                | Algorithm::UgalL
                | Algorithm::UgalLVch
                | Algorithm::UgalG
        )
    }

    /// Checks that the routing can run, deadlock-free, on the scenario's network and router;
    /// each routing file holds its own rules.
    pub fn check(self, s: &Setting) -> Result<(), Refusal> {
        if matches!(s.topology.family, Family::Dragonfly(_)) && !self.dragonfly() {
            return Err(Refusal::new(
                "[routing] algorithm",
                format!("{} does not route on a dragonfly", self.name()),
                "use algorithm = \"min\", \"valiant\", \"ugal-l\", \"ugal-l-vch\" or \"ugal-g\"",
            ));
        }
        if s.topology.family == Family::FatTree && self != Algorithm::Nca {
            return Err(Refusal::new(
                "[routing] algorithm",
                format!(
                    "{} corrects dimensions, and a fat tree's switches have none: a route climbs to a nearest common ancestor, then descends",
                    self.name()
                ),
                "use algorithm = \"nca\"",
            ));
        }
        // nca and the dragonfly's routings say themselves where they run; Duato's routing
        // and ugal-l also run on a HyperX.
        let on_hyperx = s.topology.family == Family::HyperX
            && matches!(
                self,
                Algorithm::Duato | Algorithm::DuatoTimeout | Algorithm::UgalL
            );
        let anywhere =
            matches!(self, Algorithm::Dor | Algorithm::Nca) || self.dragonfly() || on_hyperx;
        if !anywhere && !s.topology.cube_coordinates() {
            return Err(Refusal::new(
                "[routing] algorithm",
                format!(
                    "{} routes on the coordinates of k-ary n-cubes and m-way networks (duato also on a HyperX), not on a {}",
                    self.name(),
                    s.topology.name()
                ),
                "use algorithm = \"dor\"",
            ));
        }
        match self {
            Algorithm::Dor => dor::check(s),
            Algorithm::PCube => pcube::check(s),
            Algorithm::Duato | Algorithm::DuatoTimeout => duato::check(self, s),
            Algorithm::DorRing | Algorithm::AdaptiveRing => ring::check(self, s),
            Algorithm::Adaptive => adaptive::check(s),
            Algorithm::UgalL if s.topology.family == Family::HyperX => hyperx_ugal::check(s),
            Algorithm::Min
            | Algorithm::Valiant
            | Algorithm::UgalL
            | Algorithm::UgalLVch
            | Algorithm::UgalG => dragonfly::check(self, s),
            Algorithm::Nca => nca::check(s),
        }
    }
}

/// The routing algorithms flitsim simulates.
#[derive(Clone)]
pub enum Routing {
    /// Dimension-order (e-cube) routing, with dateline classes on a torus.
    Dor(Dor),
    /// P-cube routing on the hypercube (paper 002 Fig. 1b).
    PCube(PCube),
    /// Duato's fully adaptive routing (paper 000), with or without the time-out of paper 001.
    Duato(Duato),
    /// DOR_RING: dimension order with the ring algorithm's low/high classes (paper 004).
    DorRing(DorRing),
    /// ADAPTIVE: fully adaptive on meshes and hypercubes, deterministic escape (paper 004).
    Adaptive(Adaptive),
    /// ADAPTIVE_RING: fully adaptive on bidirectional tori, low/high/adaptive (paper 004).
    AdaptiveRing(AdaptiveRing),
    /// A dragonfly's minimal, Valiant or UGAL routing.
    Dragonfly(DragonflyRouting),
    /// UGAL-L on a HyperX: dimension order, or Valiant's two legs, chosen at the source.
    HyperXUgal(HyperXUgal),
    /// Nearest common ancestor on a fat tree: up (by the destination's digit, or adaptive),
    /// then the unique way down.
    Nca(Nca),
}

impl Routing {
    /// The routing `[routing] algorithm` names, set up for `net`'s virtual channels (and
    /// `[routing] timeout` for duato-timeout).
    fn for_vcs(s: &Scenario, net: &Network) -> Routing {
        match s.routing.algorithm {
            Algorithm::Dor => Routing::Dor(Dor::new(net, s.routing.dateline)),
            Algorithm::PCube => Routing::PCube(PCube::new(net)),
            Algorithm::Duato => Routing::Duato(Duato::new(net, None)),
            Algorithm::DuatoTimeout => Routing::Duato(Duato::new(net, Some(s.routing.timeout))),
            Algorithm::DorRing => Routing::DorRing(DorRing::new(net)),
            Algorithm::Adaptive => Routing::Adaptive(Adaptive::new(net)),
            Algorithm::AdaptiveRing => Routing::AdaptiveRing(AdaptiveRing::new(net)),
            Algorithm::UgalL if s.topology.family == Family::HyperX => {
                Routing::HyperXUgal(HyperXUgal::new(net))
            }
            Algorithm::Min
            | Algorithm::Valiant
            | Algorithm::UgalL
            | Algorithm::UgalLVch
            | Algorithm::UgalG => {
                Routing::Dragonfly(DragonflyRouting::new(net, s.routing.algorithm))
            }
            Algorithm::Nca => Routing::Nca(Nca::new(net, s.routing.up)),
        }
    }

    /// True when headers need their message's route word: its tie bits (`[routing] tie =
    /// "random"` with a routing that follows it, on a network with ties), or the draw of
    /// Valiant's intermediate group.
    pub fn random_tie(s: &Scenario, net: &Network) -> bool {
        if s.routing.algorithm.dragonfly() && s.routing.algorithm != Algorithm::Min {
            return true;
        }
        s.routing.tie == Tie::Random
            && matches!(
                s.routing.algorithm,
                Algorithm::Dor | Algorithm::Duato | Algorithm::DuatoTimeout
            )
            && net.topology.cube().is_some_and(|t| t.has_ties())
    }

    /// True when a blocked header's candidates cannot change while it waits (a single
    /// deterministic channel), so the engine may let it sleep until a buffer there frees.
    pub fn candidates_fixed(&self) -> bool {
        match self {
            Routing::Dor(_) => true,
            Routing::Dragonfly(r) => r.candidates_fixed(),
            Routing::Nca(r) => !r.adaptive,
            _ => false,
        }
    }

    /// The most links a route crosses: the network's diameter for minimal routings, and at
    /// most two minimal legs for Valiant's and UGAL's (on a dragonfly local, global, local,
    /// global, local; on a HyperX two dimension-order legs).
    pub fn max_hops(&self, net: &Network) -> u32 {
        match self {
            Routing::Dragonfly(r) if r.non_minimal() => 5,
            Routing::HyperXUgal(_) => 2 * net.topology.diameter(),
            _ => net.topology.diameter(),
        }
    }

    /// The longest a routing decision can depend on how long a header has waited (a
    /// time-out), in cycles; 0 for routings without timers.
    pub fn timer_cycles(&self) -> u64 {
        match self {
            Routing::Duato(d) => d.timeout.unwrap_or(0),
            _ => 0,
        }
    }

    /// The routing's buffer classes: virtual channels `0..adaptive_vcs()` form its adaptive
    /// class a, the others its escape (or deterministic) class.
    pub fn buffer_classes(&self, net: &Network) -> crate::stats::BufferClasses {
        let classes = crate::stats::BufferClasses::new(self.adaptive_vcs());
        match self {
            Routing::Dragonfly(r) if r.non_minimal() => {
                let (first, vcs) = r.detour(net);
                classes.with_detour(first, vcs)
            }
            Routing::HyperXUgal(r) => {
                let (first, vcs) = r.detour();
                classes.with_detour(first, vcs)
            }
            _ => classes,
        }
    }

    /// Virtual channels `0..adaptive_vcs()` form the adaptive class a (0: no such class).
    pub fn adaptive_vcs(&self) -> u32 {
        match self {
            Routing::Duato(d) => d.adaptive as u32,
            Routing::Adaptive(r) => r.vcs as u32 - 1,
            Routing::AdaptiveRing(r) => r.vcs as u32 - 2,
            _ => 0,
        }
    }

    /// True when escape hops are time-outs (duato-timeout).
    pub fn counts_timeouts(&self) -> bool {
        matches!(self, Routing::Duato(d) if d.timeout.is_some())
    }

    /// Candidates for the header in buffer `in_buf` at router `at`, bound for processor `dst`,
    /// that has waited `waited` cycles at this router; bit d of `tie` sends a tie in dimension
    /// d `−` (0 under `tie = "plus"`). At the destination's router the only candidate is its
    /// ejection channel.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn route(
        &self,
        net: &Network,
        at: u32,
        dst: u32,
        in_buf: u32,
        waited: u64,
        tie: u32,
        out: &mut Candidates,
    ) {
        out.clear();
        let tgt = net.target(at, dst);
        if at == tgt {
            out.push(Candidate {
                chan: net.ejection_link(at, dst),
                vc_lo: 0,
                vc_hi: 1,
                tier: 0,
            });
            return;
        }
        match self {
            Routing::Dor(r) => r.route(net, at, tgt, in_buf, tie, out),
            Routing::PCube(r) => r.route(net, at, tgt, out),
            Routing::Duato(r) => r.route(net, at, tgt, waited, tie, out),
            Routing::DorRing(r) => r.route(net, at, tgt, out),
            Routing::Adaptive(r) => r.route(net, at, tgt, out),
            Routing::AdaptiveRing(r) => r.route(net, at, tgt, out),
            Routing::Dragonfly(r) => r.route(net, at, tgt, in_buf, tie, out),
            Routing::HyperXUgal(r) => r.route(net, at, tgt, in_buf, tie, out),
            // NCA reads the destination processor's digits, not only its leaf switch.
            Routing::Nca(r) => r.route(net, at, dst, out),
        }
    }
}
