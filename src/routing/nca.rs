//! Nearest-common-ancestor routing on the fat tree (k-ary n-tree, Petrini and Vanneschi 1997):
//! a message climbs until its destination is below the switch it is at, a nearest common
//! ancestor of the two processors, then takes the one way down, the destination's digit p_l at
//! a switch of level l. Going up, `[routing] up` chooses the port: p_l as well (d-mod-k, which
//! spreads destinations over the ports), or any of the k, offered as candidates of one tier so
//! that the selection takes a free one. Every route climbs then descends, so no channel waits
//! on a channel it could precede on a route: one virtual channel is deadlock-free (up*/down*).

use super::{Algorithm, Candidate, Candidates, Refusal, Setting};
use crate::network::Network;
use crate::spec::{Family, UpPorts};
use crate::topology::FatTree;

/// NCA routing: the unique way down, up ports by the destination's digit or adaptive.
#[derive(Clone)]
pub struct Nca {
    /// All k up ports are candidates (else only the destination's digit).
    pub(super) adaptive: bool,
    /// Virtual channels per channel: every candidate may take any of them.
    vcs: u8,
}

impl Nca {
    /// NCA routing on `net`'s fat tree, its up ports chosen by `up`.
    pub fn new(net: &Network, up: Option<UpPorts>) -> Nca {
        Nca {
            adaptive: up != Some(UpPorts::Deterministic),
            vcs: net.vcs as u8,
        }
    }

    /// The fat tree the routing's requirements guarantee.
    #[inline(always)]
    fn tree(net: &Network) -> &FatTree {
        match net.topology.fat_tree() {
            Some(f) => f,
            None => unreachable!("nca on a network that is not a fat tree"),
        }
    }

    /// Candidates at switch `at` for processor `dst` (not on `at`'s leaf ports): down port
    /// p_l when `dst` is below `at`, else up port p_l, or every up port when adaptive.
    #[inline]
    pub fn route(&self, net: &Network, at: u32, dst: u32, out: &mut Candidates) {
        let f = Self::tree(net);
        let (level, _) = f.level_label(at);
        let j = f.digit(dst, level);
        let one = |chan| Candidate {
            chan,
            vc_lo: 0,
            vc_hi: self.vcs,
            tier: 0,
        };
        if f.below(at, dst) {
            out.push(one(f.down_link(at, j)));
        } else if self.adaptive {
            for p in 0..f.k {
                out.push(one(f.up_link(at, p)));
            }
        } else {
            // d-mod-k (Zahavi et al. 2010): up from level l by the destination's digit l.
            out.push(one(f.up_link(at, j)));
        }
    }
}

/// NCA's requirements: a fat tree, and no early free; any number of virtual channels.
pub(super) fn check(s: &Setting) -> Result<(), Refusal> {
    if s.topology.family != Family::FatTree {
        return Err(Refusal::new(
            "[routing] algorithm",
            format!(
                "nca routes up and down the levels of a fat tree, not on a {}",
                s.topology.name()
            ),
            "use kind = \"fat-tree\", or another algorithm (e.g. algorithm = \"dor\")",
        ));
    }
    super::early_free(Algorithm::Nca, s)
}
