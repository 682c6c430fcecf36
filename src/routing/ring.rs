//! The ring algorithm of paper 004 section 3.5 (after Duato and López) on bidirectional tori,
//! and the two routings built on it: DOR_RING (partially adaptive) and ADAPTIVE_RING (fully
//! adaptive).
//!
//! Each ring's k channels form two groups, coordinates `0..⌈k/2⌉` and `⌈k/2⌉..k`; a buffer
//! belongs to the group of the channel it drives. The next buffer may be of any class when it
//! and the destination are in the same group, else only of class low. Minimal paths are at most
//! ⌊k/2⌋ long, so no low-class dependency crosses a group boundary and no high-class one leaves
//! a group: both classes are acyclic. Buffer classes within a set, as contiguous ranges so that
//! "any" prefers the classes fewest headers are confined to: DOR_RING `[high | low]`,
//! high = ⌊B/2⌋; ADAPTIVE_RING `[adaptive | low | high]`, low and high one buffer each.

use super::{Algorithm, Refusal, Setting};
use super::{Candidate, Candidates};
use crate::network::Network;
use crate::topology::{Dir, KAryNCube};

/// The ring group of coordinate `x` on a ring of `k`.
#[inline]
fn group(x: u32, k: u32) -> bool {
    x >= k.div_ceil(2)
}

/// Calls `f(dir)` for each minimal direction from coordinate `a` to `b != a` in dimension d:
/// one, or both when the destination is exactly half-way round (the ring's adaptive choice).
#[inline]
pub(super) fn minimal_dirs(t: &KAryNCube, d: usize, a: u32, b: u32, mut f: impl FnMut(Dir)) {
    let (dir, dist) = t.dim_route(d, a, b);
    f(dir);
    if t.wraps() && t.bidirectional && 2 * dist == t.radix[d] {
        f(Dir::Minus);
    }
}

/// The ring rule for the link leaving `at` in dimension d towards `dst`: true when the next
/// buffer (it drives the link's far end) and the destination are in the same group.
#[inline]
fn same_group(t: &KAryNCube, link: u32, d: usize, dst: u32) -> bool {
    let k = t.radix[d];
    let next = t.links[link as usize].dst;
    group(t.coord(next, d), k) == group(t.coord(dst, d), k)
}

/// DOR_RING: dimension order, the ring rule in each dimension.
#[derive(Clone)]
pub struct DorRing {
    high: u8,
    vcs: u8,
}

impl DorRing {
    /// DOR_RING with `net`'s B buffers per set: `0..⌊B/2⌋` class high, the rest class low.
    pub fn new(net: &Network) -> DorRing {
        let vcs = net.vcs as u8;
        DorRing { high: vcs / 2, vcs }
    }

    /// Pushes the lowest dimension's minimal way (both when half-way round) from `at` to
    /// `dst`: any class in the destination's ring group, else class low only.
    #[inline]
    pub fn route(&self, net: &Network, at: u32, dst: u32, out: &mut Candidates) {
        let t = net.cube();
        let Some(d) = (0..t.n()).find(|&d| t.coord(at, d) != t.coord(dst, d)) else {
            return;
        };
        minimal_dirs(t, d, t.coord(at, d), t.coord(dst, d), |dir| {
            let link = t.out_link(at, d, dir);
            // Any class when in the destination's group, else low only.
            let vc_lo = if same_group(t, link, d, dst) {
                0
            } else {
                self.high
            };
            out.push(Candidate {
                chan: link,
                vc_lo,
                vc_hi: self.vcs,
                tier: 0,
            });
        });
    }
}

/// ADAPTIVE_RING: any minimal way; the way dimension order would take (lowest dimension
/// left) may use every class the ring rule allows plus the adaptive one, the others only the
/// adaptive class.
#[derive(Clone)]
pub struct AdaptiveRing {
    pub(super) vcs: u8,
}

impl AdaptiveRing {
    /// ADAPTIVE_RING with `net`'s B buffers per set: adaptive `0..B-2`, low `B-2`, high `B-1`.
    pub fn new(net: &Network) -> AdaptiveRing {
        AdaptiveRing { vcs: net.vcs as u8 }
    }

    /// Pushes every minimal way from `at` to `dst`: dimension order's way with the classes the
    /// ring rule allows plus adaptive, every other way with the adaptive class only.
    #[inline]
    pub fn route(&self, net: &Network, at: u32, dst: u32, out: &mut Candidates) {
        let t = net.cube();
        let mut first = true;
        for d in 0..t.n() {
            let (a, b) = (t.coord(at, d), t.coord(dst, d));
            if a == b {
                continue;
            }
            minimal_dirs(t, d, a, b, |dir| {
                let link = t.out_link(at, d, dir);
                let (vc_lo, vc_hi) = match (first, first && same_group(t, link, d, dst)) {
                    // DOR's way, same group: any class.
                    (true, true) => (0, self.vcs),
                    // DOR's way, other group: adaptive or low.
                    (true, false) => (0, self.vcs - 1),
                    // Any other way: adaptive only.
                    _ => (0, self.vcs - 2),
                };
                out.push(Candidate {
                    chan: link,
                    vc_lo,
                    vc_hi,
                    tier: 0,
                });
            });
            first = false;
        }
    }
}

/// DOR_RING's and ADAPTIVE_RING's requirements: a bidirectional torus (ring groups need
/// minimal paths of at most k/2 hops) and two (DOR_RING) or three (ADAPTIVE_RING) buffer
/// classes.
pub(super) fn check(a: Algorithm, s: &Setting) -> Result<(), Refusal> {
    let torus = s.torus();
    if !torus || !s.topology.bidirectional {
        return Err(Refusal::new(
            "[routing] algorithm",
            format!(
                "{} routes on bidirectional tori (its ring groups need minimal paths of at most k/2 hops), not on a {}{}",
                a.name(),
                if torus { "unidirectional " } else { "" },
                s.topology.name()
            ),
            if torus {
                "use links = \"bidirectional\", or algorithm = \"dor\""
            } else {
                "use algorithm = \"dor\" or \"adaptive\" on meshes and hypercubes"
            },
        ));
    }
    if a == Algorithm::DorRing && s.vcs < 2 {
        return Err(Refusal::new(
            "[router] vcs",
            format!(
                "{} needs two buffer classes: at least 2 buffers per set",
                a.name()
            ),
            "set vcs = 2 or more",
        ));
    }
    if a == Algorithm::AdaptiveRing && s.vcs < 3 {
        return Err(Refusal::new(
            "[router] vcs",
            "adaptive-ring needs three buffer classes (adaptive, low, high): at least 3 buffers per set",
            "set vcs = 3 or more",
        ));
    }
    super::early_free(a, s)
}
