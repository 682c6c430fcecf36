//! Dimension-order routing (e-cube, paper 002 Fig. 1a): correct the lowest dimension first.
//! On a torus each ring's buffers split into two dateline classes (Dally and Seitz), which
//! break the ring's cycle of channel dependencies; `[routing] dateline` says when a message
//! takes the upper class and `[routing] tie` which way it goes half-way round
//! ([`super::conventions`]).

use super::{Algorithm, Dateline, Refusal, Setting};
use super::{Candidate, Candidates};
use crate::network::Network;
use crate::topology::Dir;

/// Dimension-order (e-cube) routing, with two dateline buffer classes per ring on a torus.
#[derive(Clone)]
pub struct Dor {
    /// Dateline classes are in use (a torus with at least two virtual channels; with one, the
    /// deadlock check refuses DOR unless it is turned off to study deadlock).
    dateline: bool,
    /// Class 0 is vcs `0..split`, class 1 is `split..V`.
    split: u8,
    vcs: u8,
    /// The upper class is chosen on entering a dimension (else at the wrap-around link).
    on_entry: bool,
}

impl Dor {
    /// Dimension-order routing on `net`, with `dateline` classes on a torus.
    pub fn new(net: &Network, dateline: Dateline) -> Dor {
        let vcs = net.vcs as u8;
        let wraps = net.topology.cube().is_some_and(|t| t.wraps());
        Dor {
            dateline: wraps && vcs >= 2,
            split: vcs.div_ceil(2).min(vcs.saturating_sub(1)).max(1),
            vcs,
            on_entry: dateline == Dateline::OnEntry,
        }
    }

    /// The next link of the dimension-order path from `at` to `dst`, if any; `tie` bit d set
    /// sends a tie in dimension d `−`.
    #[inline(always)]
    pub fn next_link(net: &Network, at: u32, dst: u32, tie: u32) -> Option<u32> {
        net.topology.dimension_order_link(at, dst, tie)
    }

    /// The header's one candidate: the next dimension-order link, in its dateline class.
    #[inline(always)]
    pub fn route(
        &self,
        net: &Network,
        at: u32,
        dst: u32,
        in_buf: u32,
        tie: u32,
        out: &mut Candidates,
    ) {
        if !self.dateline {
            let link = Self::next_link(net, at, dst, tie)
                .expect("routing is not called at the destination");
            out.push(Candidate {
                chan: link,
                vc_lo: 0,
                vc_hi: self.vcs,
                tier: 0,
            });
            return;
        }
        // Dateline classes: a torus, whose coordinates give the link's dimension, direction
        // and wrap-around without its record.
        let hop = net
            .cube()
            .dimension_order_hop(at, dst, tie)
            .expect("routing is not called at the destination");
        let link = hop.link;
        debug_assert!({
            let l = net.link(link);
            (l.dim, l.dir, l.wrap) == (hop.dim, hop.dir, hop.wrap)
        });
        let in_chan = net.buf_channel(in_buf);
        let same_ring = in_chan < net.links && {
            let i = net.link(in_chan);
            i.dim == hop.dim && i.dir == hop.dir
        };
        let high = if same_ring {
            // Within a dimension the class only rises, on the wrap-around link.
            hop.wrap || net.buf_vc(in_buf) as u8 >= self.split
        } else if self.on_entry {
            // On entry: upper for the whole dimension if the route there crosses the wrap.
            match hop.dir {
                Dir::Plus => hop.to < hop.from,
                Dir::Minus => hop.to > hop.from,
            }
        } else {
            hop.wrap
        };
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
/// dateline's two buffer classes, and `on-entry` a bidirectional torus.
pub(super) fn check(s: &Setting) -> Result<(), Refusal> {
    super::early_free(Algorithm::Dor, s)?;
    if s.deadlock_check && s.torus() && !s.topology.bidirectional && s.dateline == Dateline::OnEntry
    {
        return Err(Refusal::new(
            "[routing] dateline",
            "dateline = \"on-entry\" on a unidirectional torus deadlocks (routes of up to k - 1 links put every pair of consecutive links on some wrap-crossing route)",
            "use dateline = \"at-wrap\" on unidirectional tori",
        ));
    }
    if s.deadlock_check && s.torus() && s.vcs < 2 {
        return Err(Refusal::new(
            "[router] vcs",
            "dimension-order routing on a torus with 1 virtual channel deadlocks (each ring is a cycle of channel dependencies)",
            "set vcs = 2 or more: the dateline splits each ring into two buffer classes",
        ));
    }
    Ok(())
}
