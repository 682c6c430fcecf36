//! Routing: maps (current router, destination, message state) to candidate
//! (output channel, buffer class) pairs. The engine's selection then picks a free buffer among
//! them (ARCHITECTURE.md). Enum dispatch keeps the per-flit path free of dynamic calls.

mod adaptive;
mod dor;
mod duato;
mod pcube;
mod ring;

pub use adaptive::Adaptive;
pub use dor::Dor;
pub use duato::Duato;
pub use pcube::PCube;
pub use ring::{AdaptiveRing, DorRing};

use crate::network::Network;
use crate::scenario::{Algorithm, Scenario};

/// Most candidates any routing yields for one header: one per output port.
pub const MAX_CANDIDATES: usize = 48;

/// An output channel and the range of its virtual channels (a buffer class) the header may
/// take. Selection only looks at a higher `tier` when no candidate of a lower one has a free
/// buffer (Duato: class a is tier 0, the escape class b tier 1). Candidates come in tier order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Candidate {
    pub chan: u32,
    pub vc_lo: u8,
    pub vc_hi: u8,
    pub tier: u8,
}

/// A fixed-capacity list of candidates, reused across calls (no allocation per flit).
#[derive(Clone)]
pub struct Candidates {
    items: [Candidate; MAX_CANDIDATES],
    len: usize,
}

impl Default for Candidates {
    fn default() -> Self {
        Candidates {
            items: [Candidate::default(); MAX_CANDIDATES],
            len: 0,
        }
    }
}

impl Candidates {
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
    #[inline]
    pub fn push(&mut self, c: Candidate) {
        self.items[self.len] = c;
        self.len += 1;
    }
    #[inline]
    pub fn as_slice(&self) -> &[Candidate] {
        &self.items[..self.len]
    }
}

/// The routing algorithms flitsim simulates.
#[derive(Clone)]
pub enum Routing {
    Dor(Dor),
    PCube(PCube),
    Duato(Duato),
    DorRing(DorRing),
    Adaptive(Adaptive),
    AdaptiveRing(AdaptiveRing),
}

impl Routing {
    pub fn new(s: &Scenario, net: &Network) -> Routing {
        match s.routing.algorithm {
            Algorithm::Dor => Routing::Dor(Dor::new(net)),
            Algorithm::PCube => Routing::PCube(PCube::new(net)),
            Algorithm::Duato => Routing::Duato(Duato::new(net, None)),
            Algorithm::DuatoTimeout => Routing::Duato(Duato::new(net, Some(s.routing.timeout))),
            Algorithm::DorRing => Routing::DorRing(DorRing::new(net)),
            Algorithm::Adaptive => Routing::Adaptive(Adaptive::new(net)),
            Algorithm::AdaptiveRing => Routing::AdaptiveRing(AdaptiveRing::new(net)),
        }
    }

    /// True when a blocked header's candidates cannot change while it waits (a single
    /// deterministic channel), so the engine may let it sleep until a buffer there frees.
    pub fn candidates_fixed(&self) -> bool {
        matches!(self, Routing::Dor(_))
    }

    /// The longest a routing decision can depend on how long a header has waited (a
    /// time-out), in cycles; 0 for routings without timers.
    pub fn timer_cycles(&self) -> u64 {
        match self {
            Routing::Duato(d) => d.timeout.unwrap_or(0),
            _ => 0,
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
    /// that has waited `waited` cycles at this router. At the destination's router the only
    /// candidate is its ejection channel.
    #[inline(always)]
    pub fn route(
        &self,
        net: &Network,
        at: u32,
        dst: u32,
        in_buf: u32,
        waited: u64,
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
            Routing::Dor(r) => r.route(net, at, tgt, in_buf, out),
            Routing::PCube(r) => r.route(net, at, tgt, out),
            Routing::Duato(r) => r.route(net, at, tgt, waited, out),
            Routing::DorRing(r) => r.route(net, at, tgt, out),
            Routing::Adaptive(r) => r.route(net, at, tgt, out),
            Routing::AdaptiveRing(r) => r.route(net, at, tgt, out),
        }
    }
}
