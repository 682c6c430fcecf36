//! Dragonfly routings (Kim, Dally, Scott and Abts, ISCA 2008): `min` (local, global, local),
//! `valiant` (minimally to a random intermediate group, then minimally to the destination),
//! and UGAL, which chooses at the source router between the minimal path and Valiant's by
//! comparing each path's hops times a queue: the source router's output channel (`ugal-l`;
//! `ugal-l-vch` counts each path's own virtual channels where both take one channel) or the
//! global channel the path would take (`ugal-g`).
//!
//! Deadlock freedom by buffer classes that rise with each global hop: a hop takes class c =
//! the global channels its message crossed before it, counted among its channel's kind. A
//! route crossing up to G global channels has G + 1 classes of local channels and G of global
//! ones; its classes never fall, and within a class it goes local, then global, which leads
//! into the next class, so the channel dependency graph is acyclic. `min` (G = 1) needs 2
//! local classes and 1 global (V ≥ 2), `valiant` (G = 2) 3 and 2 (V ≥ 3). A channel's V
//! virtual channels split into its kind's classes as evenly as they go: class c of C holds
//! `c·V/C .. (c + 1)·V/C`. UGAL has Valiant's classes, and a message it sends minimally starts
//! in class 1, as if it had crossed a global channel already: its route then climbs the
//! classes as a minimal one does, and every later router, reading its class, routes it
//! minimally (each class still goes local, then global, then up). The class of a header's
//! buffer is how the routing knows where its message is.

use super::{Algorithm, Candidate, Candidates, Refusal, Setting, Weighed};
use crate::network::Network;
use crate::topology::{Dragonfly, Topology};

/// Which queue UGAL weighs each path's hops with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ugal {
    /// Not UGAL.
    Off,
    /// The source router's output channel of each path (UGAL-L).
    Local,
    /// As `Local`, but each path's own virtual channels where both take one channel
    /// (UGAL-L_VCH).
    LocalHybrid,
    /// The global channel each path takes out of the source group (UGAL-G).
    Global,
}

/// A dragonfly routing: minimal, Valiant's through a random intermediate group, or UGAL's
/// choice between the two.
#[derive(Clone)]
pub struct DragonflyRouting {
    /// Valiant's or UGAL's: messages whose source and destination groups differ may go
    /// through an intermediate group drawn from their route word.
    valiant: bool,
    /// UGAL's choice at the source router, and the queue it weighs.
    ugal: Ugal,
    /// The most global channels a route crosses (G): local channels have G + 1 buffer
    /// classes, global channels G.
    globals: u8,
    /// Virtual channels per channel.
    vcs: u8,
}

impl DragonflyRouting {
    /// The routing `algorithm` names (`min`, `valiant`, `ugal-l`, `ugal-l-vch` or `ugal-g`) on `net`'s
    /// virtual channels.
    pub fn new(net: &Network, algorithm: Algorithm) -> DragonflyRouting {
        let ugal = match algorithm {
            Algorithm::UgalL => Ugal::Local,
            Algorithm::UgalLVch => Ugal::LocalHybrid,
            Algorithm::UgalG => Ugal::Global,
            _ => Ugal::Off,
        };
        DragonflyRouting {
            valiant: algorithm == Algorithm::Valiant || ugal != Ugal::Off,
            ugal,
            globals: globals(algorithm),
            vcs: net.vcs as u8,
        }
    }

    /// True when messages may take a non-minimal route (Valiant's and UGAL's).
    pub fn non_minimal(&self) -> bool {
        self.valiant
    }

    /// The buffers a message enters only on a non-minimal route: the first class of the
    /// global channels (each such route enters it once), as the first global link (they are
    /// numbered last) and the virtual channels `0..vcs` of each.
    pub fn detour(&self, net: &Network) -> (u32, u32) {
        let Topology::Dragonfly(d) = &net.topology else {
            unreachable!("a dragonfly routing on another network")
        };
        let locals = d.shape.groups * d.shape.a * (d.shape.a - 1);
        (locals, self.class_vcs(0, true).1 as u32)
    }

    /// True when a blocked header's one candidate cannot change while it waits: not so for
    /// UGAL, whose choice at the source router follows the queues.
    pub fn candidates_fixed(&self) -> bool {
        self.ugal == Ugal::Off
    }

    /// Class c's virtual channels on a local (`global` false) or global channel:
    /// `c·V/C .. (c + 1)·V/C` with C = G + 1 or G classes.
    #[inline(always)]
    fn class_vcs(&self, c: u8, global: bool) -> (u8, u8) {
        let v = self.vcs as u32;
        let n = self.globals as u32 + !global as u32;
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
        let global = net.link(chan).dim == Dragonfly::GLOBAL;
        let vc = net.buf_vc(in_buf) as u8;
        let class = (0..self.globals + !global as u8)
            .rev()
            .find(|&c| self.class_vcs(c, global).0 <= vc)
            .unwrap_or(0);
        class + global as u8
    }

    /// Link `link`'s candidate in class `class` of its kind.
    #[inline(always)]
    fn candidate(&self, d: &Dragonfly, link: u32, class: u8) -> Candidate {
        let global = d.links[link as usize].dim == Dragonfly::GLOBAL;
        let (vc_lo, vc_hi) = self.class_vcs(class, global);
        Candidate {
            chan: link,
            vc_lo,
            vc_hi,
            tier: 0,
        }
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
        if self.ugal != Ugal::Off && net.buf_channel(in_buf) >= net.links {
            let inter = intermediate(d, at, tgt, word);
            if inter != tgt {
                return self.ugal(d, at, tgt, inter, out);
            }
        }
        let toward = if self.valiant && crossed == 0 {
            intermediate(d, at, tgt, word)
        } else {
            tgt
        };
        let link = d
            .minimal_link(at, toward)
            .expect("routing is not called at the destination");
        out.push(self.candidate(d, link, crossed));
    }
}

impl DragonflyRouting {
    /// UGAL at the source router `at`: the minimal path's first link in class 1 and the
    /// Valiant path's (toward router `inter` of the intermediate group) in class 0, each with
    /// its hops from here and the queue that weighs them; selection compares q·H.
    #[inline(never)]
    fn ugal(&self, d: &Dragonfly, at: u32, tgt: u32, inter: u32, out: &mut Candidates) {
        let path = |toward: u32, class: u8| {
            let (global, _) = d.global_channel(at, toward);
            let link = d.minimal_link(at, toward).expect("another group");
            let cand = self.candidate(d, link, class);
            let queue = match self.ugal {
                Ugal::Global => global,
                _ => link,
            };
            (cand, global, queue)
        };
        let (min, _, min_queue) = path(tgt, 1);
        let (nm, global, nm_queue) = path(inter, 0);
        // UGAL-L_VCH: on one channel the channel's queue cannot tell the paths apart (the
        // minimal path, shorter, would always win); their classes' virtual channels can.
        let own_vcs = self.ugal == Ugal::LocalHybrid && min_queue == nm_queue;
        // Valiant's hops: to the router its global channel enters, then minimally on.
        let landing = d.links[global as usize].dst;
        let nm_hops = d.distance(at, landing) + d.distance(landing, tgt);
        out.push(min);
        out.push(nm);
        out.compare = Some([
            Weighed {
                hops: d.distance(at, tgt),
                queue: min_queue,
                own_vcs,
            },
            Weighed {
                hops: nm_hops,
                queue: nm_queue,
                own_vcs,
            },
        ]);
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

/// The most global channels a route of routing `a` crosses.
fn globals(a: Algorithm) -> u8 {
    match a {
        Algorithm::Min => 1,
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
            "use kind = \"dragonfly\" (or \"hyperx\" for ugal-l), or a routing of this network (e.g. \"dor\")",
        ));
    }
    // Refused even without the deadlock check: the class of a header's buffer is how the
    // routing knows the global channels its message has crossed.
    let need = globals(a) as u32 + 1;
    if s.vcs < need {
        return Err(Refusal::new(
            "[router] vcs",
            format!(
                "{} crosses up to {} global channels, and its buffer classes rise with each (its local channels have one class per global hop and one more; the classes also tell the routing where a message is on its route), so it needs {need} virtual channels, not {}",
                a.name(),
                need - 1,
                s.vcs
            ),
            format!("set vcs = {need} or more"),
        ));
    }
    Ok(())
}
