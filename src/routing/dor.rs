//! Dimension-order routing (e-cube, paper 002 Fig. 1a): correct the lowest dimension first.
//! On a torus each ring is split at its wrap-around link (the dateline) into two buffer
//! classes (Dally and Seitz): a message enters a dimension in class 0 and moves to class 1 when
//! it crosses the wrap-around link, which breaks the ring's cycle of channel dependencies.

use super::{Algorithm, Refusal, Setting};
use super::{Candidate, Candidates};
use crate::network::Network;

/// Dimension-order (e-cube) routing, with two dateline buffer classes per ring on a torus.
#[derive(Clone)]
pub struct Dor {
    /// Dateline classes are in use (a torus with at least two virtual channels; with one, the
    /// deadlock check refuses DOR unless it is turned off to study deadlock).
    dateline: bool,
    /// Class 0 is vcs `0..split`, class 1 is `split..V`.
    split: u8,
    vcs: u8,
}

impl Dor {
    /// Dimension-order routing on `net`, with dateline classes on a torus.
    pub fn new(net: &Network) -> Dor {
        let vcs = net.vcs as u8;
        let wraps = net.topology.cube().is_some_and(|t| t.wraps());
        Dor {
            dateline: wraps && vcs >= 2,
            split: vcs.div_ceil(2).min(vcs.saturating_sub(1)).max(1),
            vcs,
        }
    }

    /// The next link of the dimension-order path from `at` to `dst`, if any.
    #[inline(always)]
    pub fn next_link(net: &Network, at: u32, dst: u32) -> Option<u32> {
        net.topology.dimension_order_link(at, dst)
    }

    /// The header's one candidate: the next dimension-order link, in its dateline class.
    #[inline(always)]
    pub fn route(&self, net: &Network, at: u32, dst: u32, in_buf: u32, out: &mut Candidates) {
        let link = Self::next_link(net, at, dst).expect("routing is not called at the destination");
        if !self.dateline {
            out.push(Candidate {
                chan: link,
                vc_lo: 0,
                vc_hi: self.vcs,
                tier: 0,
            });
            return;
        }
        let l = net.link(link);
        let in_chan = net.buf_channel(in_buf);
        let same_ring = in_chan < net.links && {
            let i = net.link(in_chan);
            i.dim == l.dim && i.dir == l.dir
        };
        let high = l.wrap || (same_ring && net.buf_vc(in_buf) as u8 >= self.split);
        let (vc_lo, vc_hi) = if high {
            (self.split, self.vcs)
        } else {
            (0, self.split)
        };
        out.push(Candidate {
            chan: link,
            vc_lo,
            vc_hi,
            tier: 0,
        });
    }
}

/// Dimension-order routing's requirements: early free only off tori; a torus needs the
/// dateline's two buffer classes.
pub(super) fn check(s: &Setting) -> Result<(), Refusal> {
    super::early_free(Algorithm::Dor, s)?;
    if s.deadlock_check && s.torus() && s.vcs < 2 {
        return Err(Refusal::new(
            "[router] vcs",
            "dimension-order routing on a torus with 1 virtual channel deadlocks (each ring is a cycle of channel dependencies)",
            "set vcs = 2 or more: the dateline splits each ring into two buffer classes",
        ));
    }
    Ok(())
}
