//! ADAPTIVE (paper 004 section 3.5): fully adaptive minimal routing on meshes and hypercubes
//! with two buffer classes, adaptive `0..B-1` and deterministic `B-1`. The way dimension order
//! would take (the lowest dimension left) may use any class; every other minimal way only the
//! adaptive class. The deterministic class alone is dimension-order routing, which is acyclic.

use super::{Candidate, Candidates};
use crate::network::Network;

#[derive(Clone)]
pub struct Adaptive {
    pub(super) vcs: u8,
}

impl Adaptive {
    pub fn new(net: &Network) -> Adaptive {
        Adaptive { vcs: net.vcs as u8 }
    }

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
