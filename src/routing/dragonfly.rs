//! Dragonfly routings (Kim, Dally, Scott and Abts, ISCA 2008): `min` (local, global, local)
//! and `valiant` (minimally to a random intermediate group, then minimally to the
//! destination).
//!
//! Deadlock freedom by buffer classes that rise with each global hop: a hop, local or global,
//! takes class c = the global channels the message has crossed before it. A route's classes
//! never fall, and within a class the hops go local, then global (a class's global hop leads
//! into the next class), so the channel dependency graph is acyclic. `min` crosses at most one
//! global channel, so it needs 2 classes (V ≥ 2); `valiant` at most two, 3 classes (V ≥ 3).
//! The V virtual channels split into the classes as evenly as they go: class c holds
//! `c·V/C .. (c + 1)·V/C`.

use super::{Algorithm, Candidate, Candidates, Refusal, Setting};
use crate::network::Network;
use crate::topology::{Dragonfly, Topology};

/// A dragonfly routing: minimal, or Valiant's through a random intermediate group.
#[derive(Clone)]
pub struct DragonflyRouting {
    /// Valiant's: messages whose source and destination groups differ go through an
    /// intermediate group drawn from their route word.
    valiant: bool,
    /// Buffer classes (one more than the most global hops of a route).
    classes: u8,
    /// Virtual channels per channel.
    vcs: u8,
}

impl DragonflyRouting {
    /// The routing `algorithm` names (`min` or `valiant`) on `net`'s virtual channels.
    pub fn new(net: &Network, algorithm: Algorithm) -> DragonflyRouting {
        let valiant = algorithm == Algorithm::Valiant;
        DragonflyRouting {
            valiant,
            classes: classes(algorithm),
            vcs: net.vcs as u8,
        }
    }

    /// Class c's virtual channels: `c·V/C .. (c + 1)·V/C`.
    #[inline(always)]
    fn class_vcs(&self, c: u8) -> (u8, u8) {
        let (v, n) = (self.vcs as u32, self.classes as u32);
        ((c as u32 * v / n) as u8, ((c as u32 + 1) * v / n) as u8)
    }

    /// The global channels crossed by the message whose header is in buffer `in_buf`: the
    /// class of its buffer, plus one if that buffer is a global channel's.
    #[inline(always)]
    fn crossed(&self, net: &Network, in_buf: u32) -> u8 {
        let chan = net.buf_channel(in_buf);
        if chan >= net.links {
            return 0;
        }
        let vc = net.buf_vc(in_buf) as u8;
        let class = (0..self.classes)
            .rev()
            .find(|&c| self.class_vcs(c).0 <= vc)
            .unwrap_or(0);
        class + (net.link(chan).dim == Dragonfly::GLOBAL) as u8
    }

    /// The header's one candidate at router `at`, bound for router `tgt`, in buffer `in_buf`,
    /// with route word `word` (Valiant's intermediate group is drawn from it).
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
        let Topology::Dragonfly(d) = &net.topology else {
            unreachable!("a dragonfly routing on another network")
        };
        let crossed = self.crossed(net, in_buf);
        let toward = if self.valiant && crossed == 0 {
            intermediate(d, at, tgt, word)
        } else {
            tgt
        };
        let link = d
            .minimal_link(at, toward)
            .expect("routing is not called at the destination");
        let (vc_lo, vc_hi) = self.class_vcs(crossed);
        out.push(Candidate {
            chan: link,
            vc_lo,
            vc_hi,
            tier: 0,
        });
    }
}

/// Where a Valiant message still in its source group (router `at`) heads for: a router of its
/// intermediate group, the `word mod (g − 2)`-th group other than its source's and its
/// destination's, reached through the minimal route's global channel (so that the first leg
/// is minimal); the destination itself when both are in one group or there is no third group.
#[inline(always)]
fn intermediate(d: &Dragonfly, at: u32, tgt: u32, word: u32) -> u32 {
    let (from, to, g) = (d.group(at), d.group(tgt), d.shape.groups);
    if from == to || g < 3 {
        return tgt;
    }
    let mut inter = word % (g - 2);
    for skip in if from < to { [from, to] } else { [to, from] } {
        if inter >= skip {
            inter += 1;
        }
    }
    // The router of group `inter` with the same index as the target: any router of the
    // intermediate group gives the same first leg, whose last local hop is never taken.
    inter * d.shape.a + tgt % d.shape.a
}

/// Buffer classes a routing needs: one more than the most global channels a route crosses.
fn classes(a: Algorithm) -> u8 {
    match a {
        Algorithm::Valiant => 3,
        _ => 2,
    }
}

/// A dragonfly routing's requirements: a dragonfly, and a buffer class per global hop and one.
pub(super) fn check(a: Algorithm, s: &Setting) -> Result<(), Refusal> {
    if !matches!(s.topology.family, crate::spec::Family::Dragonfly(_)) {
        return Err(Refusal::new(
            "[routing] algorithm",
            format!(
                "{} routes on a dragonfly's groups, not on a {}",
                a.name(),
                s.topology.name()
            ),
            "use kind = \"dragonfly\", or a routing of this network (e.g. \"dor\")",
        ));
    }
    // Refused even without the deadlock check: the class of a header's buffer is how the
    // routing knows the global channels its message has crossed.
    let need = classes(a) as u32;
    if s.vcs < need {
        return Err(Refusal::new(
            "[router] vcs",
            format!(
                "{} crosses up to {} global channels, and its buffer classes rise with each (one class per global hop and one more; they also tell the routing where a message is on its route), so it needs {need} virtual channels, not {}",
                a.name(),
                need - 1,
                s.vcs
            ),
            format!("set vcs = {need} or more"),
        ));
    }
    Ok(())
}
