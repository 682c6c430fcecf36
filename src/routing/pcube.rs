//! P-cube routing on the hypercube, exactly as paper 002 Fig. 1b: S = C ∧ ¬D (dimensions whose
//! bit goes 1 → 0) first; once S is empty, S = ¬C ∧ D (bits 0 → 1); any dimension of S, chosen
//! by the selection function among the free ones. Paper 002's text states the phases the other
//! way round; the algorithm box is followed here. Deadlock-free with one virtual channel:
//! every route is a run of 1 → 0 hops followed by a run of 0 → 1 hops.

use super::{Algorithm, Refusal, Setting};
use super::{Candidate, Candidates};
use crate::network::Network;
use crate::topology::Dir;

/// P-cube routing on the hypercube (paper 002 Fig. 1b), over all V virtual channels.
#[derive(Clone)]
pub struct PCube {
    vcs: u8,
}

impl PCube {
    /// p-cube on the hypercube `net`.
    pub fn new(net: &Network) -> PCube {
        PCube { vcs: net.vcs as u8 }
    }

    /// Pushes one candidate per dimension of the current phase from `at` to `dst`: the bits
    /// going 1 → 0 while there are any, then the bits going 0 → 1.
    #[inline]
    pub fn route(&self, net: &Network, at: u32, dst: u32, out: &mut Candidates) {
        let mut s = at & !dst;
        let dir = if s != 0 {
            Dir::Minus
        } else {
            s = !at & dst;
            Dir::Plus
        };
        while s != 0 {
            let d = s.trailing_zeros() as usize;
            s &= s - 1;
            out.push(Candidate {
                chan: net.cube().out_link(at, d, dir),
                vc_lo: 0,
                vc_hi: self.vcs,
                tier: 0,
            });
        }
    }
}

/// p-cube's requirements: a hypercube.
pub(super) fn check(s: &Setting) -> Result<(), Refusal> {
    if s.topology.kind != crate::topology::Kind::Hypercube {
        return Err(Refusal::new(
            "[routing] algorithm",
            format!(
                "p-cube routes on hypercubes only, not on a {}",
                s.topology.name()
            ),
            "use kind = \"hypercube\", or algorithm = \"duato\" for adaptive routing here",
        ));
    }
    super::early_free(Algorithm::PCube, s)
}
