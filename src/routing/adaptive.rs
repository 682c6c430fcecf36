//! ADAPTIVE (paper 004 section 3.5): fully adaptive minimal routing on meshes and hypercubes
//! with two buffer classes, adaptive `0..B-1` and deterministic `B-1`. The way dimension order
//! would take (the lowest dimension left) may use any class; every other minimal way only the
//! adaptive class. The deterministic class alone is dimension-order routing, which is acyclic.

use super::{Algorithm, Refusal, Setting};
use super::{Candidate, Candidates};
use crate::network::Network;

/// ADAPTIVE (paper 004 section 3.5): adaptive class `0..B-1`, dimension-order class `B-1`.
#[derive(Clone)]
pub struct Adaptive {
    pub(super) vcs: u8,
}

impl Adaptive {
    /// ADAPTIVE with `net`'s B buffers per set.
    pub fn new(net: &Network) -> Adaptive {
        Adaptive { vcs: net.vcs as u8 }
    }

    /// Pushes one candidate per dimension left to correct from router `at` to router `dst`: the
    /// lowest (dimension order's way) with every class, the others with the adaptive class.
    #[inline]
    pub fn route(&self, net: &Network, at: u32, dst: u32, out: &mut Candidates) {
        let t = net.cube();
        let mut first = true;
        for d in 0..t.n() {
            let (a, b) = (t.coord(at, d), t.coord(dst, d));
            if a == b {
                continue;
            }
            let (dir, _) = t.dim_route(d, a, b);
            out.push(Candidate {
                chan: t.out_link(at, d, dir),
                vc_lo: 0,
                vc_hi: if first { self.vcs } else { self.vcs - 1 },
                tier: 0,
            });
            first = false;
        }
    }
}

/// ADAPTIVE's requirements: no torus (its deterministic class is dimension-order routing,
/// whose rings are cycles) and two buffer classes.
pub(super) fn check(s: &Setting) -> Result<(), Refusal> {
    if s.torus() {
        return Err(Refusal::new(
            "[routing] algorithm",
            "adaptive deadlocks on a torus: its deterministic class is dimension-order routing, whose rings are cycles",
            "use algorithm = \"adaptive-ring\" on tori",
        ));
    }
    if s.vcs < 2 {
        return Err(Refusal::new(
            "[router] vcs",
            format!(
                "{} needs two buffer classes: at least 2 buffers per set",
                Algorithm::Adaptive.name()
            ),
            "set vcs = 2 or more",
        ));
    }
    super::early_free(Algorithm::Adaptive, s)
}
