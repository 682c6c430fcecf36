//! UGAL-L on a HyperX (the rule of Kim et al. 2008 on a HyperX's routers): at the
//! source router a message goes by dimension order to its destination, or by Valiant's two
//! dimension-order legs through a random intermediate router, whichever has the smaller hops
//! times the source router's output queue (q_min·H_min against q_nm·H_nm, a tie minimal).
//!
//! Two buffer classes keep it deadlock-free: the first leg in class 0, the second leg (and a
//! minimal route, from its first hop) in class 1. Dimension order within a class has acyclic
//! channel dependencies on a HyperX, and a route only climbs from class 0 to class 1. The class
//! of a header's buffer tells the routing which leg its message is on, so V ≥ 2 is required
//! even without the deadlock check. Class 0's buffers are the detour buffers: only a message
//! sent through an intermediate router enters them.

use super::{Candidate, Candidates, Refusal, Setting, Weighed};
use crate::network::Network;
use crate::topology::{HyperX, Topology};

/// UGAL-L on a HyperX.
#[derive(Clone)]
pub struct HyperXUgal {
    /// Virtual channels per channel; class 0 is `0..split`, class 1 `split..vcs`.
    vcs: u8,
    split: u8,
}

impl HyperXUgal {
    /// UGAL-L with `net`'s virtual channels split into its two classes.
    pub fn new(net: &Network) -> HyperXUgal {
        let vcs = net.vcs as u8;
        HyperXUgal {
            vcs,
            split: vcs / 2,
        }
    }

    /// The detour buffers: virtual channels `0..split` of every link (from link 0 on).
    pub fn detour(&self) -> (u32, u32) {
        (0, self.split as u32)
    }

    /// The header's candidates at router `at`, bound for router `tgt`, in buffer `in_buf`, with
    /// route word `word` (its intermediate router is drawn from it).
    #[inline(always)]
    pub fn route(
        &self,
        net: &Network,
        at: u32,
        tgt: u32,
        in_buf: u32,
        word: u32,
        out: &mut Candidates,
    ) {
        let Topology::HyperX(h) = &net.topology else {
            unreachable!("HyperX UGAL on another network")
        };
        let inter = word % h.nodes() as u32;
        let chan = net.buf_channel(in_buf);
        let second_leg = (net.buf_vc(in_buf) as u8) >= self.split;
        if chan >= net.links {
            if inter == at || inter == tgt {
                return out.push(self.hop(h, at, tgt, 1));
            }
            return self.choose(h, at, tgt, inter, out);
        }
        let toward = if second_leg || at == inter {
            tgt
        } else {
            inter
        };
        let class = (toward == tgt) as u8;
        out.push(self.hop(h, at, toward, class));
    }

    /// The dimension-order link from `at` toward router `to`, in class `class`.
    #[inline(always)]
    fn hop(&self, h: &HyperX, at: u32, to: u32, class: u8) -> Candidate {
        let (vc_lo, vc_hi) = match class {
            0 => (0, self.split),
            _ => (self.split, self.vcs),
        };
        Candidate {
            chan: h.dimension_order_link(at, to).expect("not at the router"),
            vc_lo,
            vc_hi,
            tier: 0,
        }
    }

    /// UGAL's two paths at the source router, for selection to compare.
    #[inline(never)]
    fn choose(&self, h: &HyperX, at: u32, tgt: u32, inter: u32, out: &mut Candidates) {
        let min = self.hop(h, at, tgt, 1);
        let nm = self.hop(h, at, inter, 0);
        out.push(min);
        out.push(nm);
        out.compare = Some([
            Weighed {
                hops: h.distance(at, tgt),
                queue: min.chan,
                own_vcs: false,
            },
            Weighed {
                hops: h.distance(at, inter) + h.distance(inter, tgt),
                queue: nm.chan,
                own_vcs: false,
            },
        ]);
    }
}

/// UGAL-L's requirement on a HyperX: its two classes (refused even without the deadlock check,
/// since the class tells the leg).
pub(super) fn check(s: &Setting) -> Result<(), Refusal> {
    if s.vcs < 2 {
        return Err(Refusal::new(
            "[router] vcs",
            format!(
                "ugal-l on a HyperX routes its two legs in two buffer classes (which also tell the routing which leg a message is on), so it needs 2 virtual channels, not {}",
                s.vcs
            ),
            "set vcs = 2 or more",
        ));
    }
    Ok(())
}
