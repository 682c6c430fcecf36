//! Duato's fully adaptive minimal routing (paper 000 section 2; Duato 1993), with the optional
//! time-out selection of paper 001 (Duato 1994).
//!
//! Virtual channels split into class a, `0..A` (adaptive: any profitable direction of any
//! dimension still to correct) and class b, `A..V` (escape: dimension-order routing). On a
//! torus class b is two virtual channels chosen by the dateline: `V-2` while the rest of the
//! route in the current dimension still crosses the wrap-around link, `V-1` once it does not.
//! The choice depends only on position and destination, as Duato's escape function must (a
//! class carried over from the input buffer would let adaptive hops join the two classes into a
//! cycle), so `[routing] dateline` does not change it; `[routing] tie` picks class b's way
//! half-way round ([`super::conventions`]). A = V - 2 on a torus, V - 1 on a mesh or hypercube.
//!
//! Without time-out a header takes a free class-a channel if there is one, else the class-b
//! channel if free, else tries both again next cycle. With time-out τ, a header that finds no
//! free class-a channel on arrival waits for one for τ cycles only; from then on it waits only
//! for its class-b channel (the lowest dimension still to cross). τ = 0 tries class b at once.
//!
//! On a HyperX class a offers, for every dimension still to correct, the link straight to the
//! destination's coordinate, and class b is its dimension-order routing, whose channel
//! dependencies are acyclic without a dateline: A = V - 1.

use super::{Algorithm, Refusal, Setting};
use super::{Candidate, Candidates, Dor};
use crate::network::Network;
use crate::topology::Dir;

/// Duato's routing: adaptive class a `0..A`, dimension-order escape class b `A..V`, and the
/// optional time-out τ of paper 001.
#[derive(Clone)]
pub struct Duato {
    /// Number of class-a virtual channels.
    pub adaptive: u8,
    vcs: u8,
    /// Class b has two dateline virtual channels (a torus with at least 3 virtual channels).
    dateline: bool,
    /// The time-out τ in cycles (duato-timeout); `None` for Duato without time-out.
    pub timeout: Option<u64>,
}

impl Duato {
    /// Duato's routing with `net`'s V virtual channels and time-out τ = `timeout` cycles.
    pub fn new(net: &Network, timeout: Option<u64>) -> Duato {
        let vcs = net.vcs as u8;
        let dateline = net.topology.cube().is_some_and(|t| t.wraps()) && vcs >= 3;
        Duato {
            adaptive: if dateline { vcs - 2 } else { vcs - 1 },
            vcs,
            dateline,
            timeout,
        }
    }

    /// Pushes the header's class-a candidates (every profitable direction) and its class-b
    /// escape channel, as far as the time-out allows after `waited` cycles at router `at`.
    #[inline]
    pub fn route(
        &self,
        net: &Network,
        at: u32,
        dst: u32,
        waited: u64,
        tie: u32,
        out: &mut Candidates,
    ) {
        let (class_a, class_b) = match self.timeout {
            None => (true, true),
            Some(tau) => (waited < tau || waited == 0, waited >= tau),
        };
        let Some(t) = net.topology.cube() else {
            return self.route_hyperx(net, at, dst, (class_a, class_b), out);
        };
        if class_a {
            for d in 0..t.n() {
                let (a, b) = (t.coord(at, d), t.coord(dst, d));
                if a == b {
                    continue;
                }
                let (dir, dist) = t.dim_route(d, a, b);
                let mut push = |dir| {
                    out.push(Candidate {
                        chan: t.out_link(at, d, dir),
                        vc_lo: 0,
                        vc_hi: self.adaptive,
                        tier: 0,
                    })
                };
                push(dir);
                if t.wraps() && t.bidirectional && 2 * dist == t.radix[d] {
                    // Exactly half-way round: both directions are minimal.
                    push(Dir::Minus);
                }
            }
        }
        if class_b {
            let link = Dor::next_link(net, at, dst, tie).expect("not at the destination");
            let (vc_lo, vc_hi) = if self.dateline {
                let l = &t.links[link as usize];
                let (a, b) = (t.coord(at, l.dim as usize), t.coord(dst, l.dim as usize));
                let crosses = match l.dir {
                    Dir::Plus => b < a,
                    Dir::Minus => b > a,
                };
                let vc = if crosses { self.vcs - 2 } else { self.vcs - 1 };
                (vc, vc + 1)
            } else {
                (self.adaptive, self.vcs)
            };
            out.push(Candidate {
                chan: link,
                vc_lo,
                vc_hi,
                tier: class_a as u8,
            });
        }
    }
}

impl Duato {
    /// The candidates on a HyperX: class a, the link to the destination's coordinate in each
    /// dimension still to correct; class b, the dimension-order link (the lowest of them).
    #[inline(never)]
    fn route_hyperx(
        &self,
        net: &Network,
        at: u32,
        dst: u32,
        (class_a, class_b): (bool, bool),
        out: &mut Candidates,
    ) {
        let crate::topology::Topology::HyperX(h) = &net.topology else {
            unreachable!("Duato's routing runs on cube graphs and HyperX")
        };
        let c = &h.coords;
        let differ = (0..c.n()).filter(|&d| c.coord(at, d) != c.coord(dst, d));
        let mut lowest = None;
        for d in differ {
            let link = h.link_to(at, d, c.coord(dst, d));
            lowest = lowest.or(Some(link));
            if class_a {
                out.push(Candidate {
                    chan: link,
                    vc_lo: 0,
                    vc_hi: self.adaptive,
                    tier: 0,
                });
            }
        }
        if class_b {
            out.push(Candidate {
                chan: lowest.expect("not at the destination"),
                vc_lo: self.adaptive,
                vc_hi: self.vcs,
                tier: class_a as u8,
            });
        }
    }
}

/// Duato's requirements (with or without time-out): an adaptive class a and an escape class
/// b, which on a torus needs two virtual channels for its dateline.
pub(super) fn check(a: Algorithm, s: &Setting) -> Result<(), Refusal> {
    if s.vcs < 2 {
        return Err(Refusal::new(
            "[router] vcs",
            format!(
                "{} needs an adaptive class a and an escape class b: at least 2 virtual channels",
                a.name()
            ),
            format!("set vcs = {} or more", if s.torus() { 3 } else { 2 }),
        ));
    }
    if s.deadlock_check && s.torus() && s.vcs < 3 {
        return Err(Refusal::new(
            "[router] vcs",
            format!(
                "{} on a torus with {} virtual channels deadlocks: the escape class b needs two virtual channels (dateline) besides class a",
                a.name(),
                s.vcs
            ),
            "set vcs = 3 or more (class a = vcs - 2, class b = 2)",
        ));
    }
    super::early_free(a, s)
}
