//! The dragonfly (Kim, Dally, Scott and Abts, ISCA 2008): `g` groups of `a` routers, the
//! routers of a group fully connected by local channels, each router with `p` processors and
//! `h` global channels to other groups.
//!
//! Router `r` is router `r mod a` of group `r / a`; processor `q` is on router `q / p`.
//! Global channels are arranged by group offset: a group's global ports are numbered
//! `k = x·h + y` (port y of its router x), and port k of group G, for k < m(g − 1) with
//! m = ⌊a·h / (g − 1)⌋, leads to group `G + (k mod (g − 1)) + 1 (mod g)`, where it enters port
//! `k' = (k div (g − 1))·(g − 1) + (g − 2 − k mod (g − 1))`: the channel back from that group
//! on the same copy. So every ordered pair of groups is joined by exactly m global channels
//! (one when g = a·h + 1, the largest dragonfly of its routers, where this is the "palm tree"
//! arrangement), and the a·h − m(g − 1) ports left over stay unconnected. The arrangement is
//! the same seen from every group, so distances depend on group offsets only.

use super::{Dir, Link, Properties};
use crate::spec::DragonflyShape;

/// A dragonfly network.
#[derive(Clone, Debug)]
pub struct Dragonfly {
    /// Its parameters.
    pub shape: DragonflyShape,
    /// Every unidirectional link: the local ones (router by router, then the other router's
    /// index), then the global ones (group by group, port by port).
    pub links: Vec<Link>,
    /// `proc_at[q]`: the router of processor q.
    pub proc_at: Vec<u32>,
    /// `local[r * a + j]`: the link from router r to router j of its group (NONE for itself).
    local: Vec<u32>,
    /// `global[G * m(g − 1) + k]`: the link leaving group G's global port k.
    global: Vec<u32>,
}

/// No link.
const NONE: u32 = u32::MAX;

impl Dragonfly {
    /// Link `dim` of a local channel.
    pub const LOCAL: u8 = 0;
    /// Link `dim` of a global channel.
    pub const GLOBAL: u8 = 1;

    /// Builds the dragonfly of `shape`.
    pub fn new(shape: DragonflyShape) -> Dragonfly {
        let DragonflyShape { p, a, h, groups: g } = shape;
        let routers = a * g;
        let mut links = Vec::with_capacity(shape.links() as usize);
        let mut local = vec![NONE; (routers * a) as usize];
        for r in 0..routers {
            let (base, i) = (r - r % a, r % a);
            for j in (0..a).filter(|&j| j != i) {
                local[(r * a + j) as usize] = links.len() as u32;
                let dir = if j > i { Dir::Plus } else { Dir::Minus };
                links.push(link(r, base + j, Self::LOCAL, dir));
            }
        }
        let ports = shape.copies() * g.saturating_sub(1);
        let mut global = Vec::with_capacity((g * ports) as usize);
        for group in 0..g {
            for k in 0..ports {
                let (to, k_in) = Self::far_end(shape, group, k);
                global.push(links.len() as u32);
                links.push(link(
                    group * a + k / h,
                    to * a + k_in / h,
                    Self::GLOBAL,
                    Dir::Plus,
                ));
            }
        }
        Dragonfly {
            shape,
            links,
            proc_at: (0..routers * p).map(|q| q / p).collect(),
            local,
            global,
        }
    }

    /// Where group `group`'s global port k leads: the group and the port it enters.
    fn far_end(shape: DragonflyShape, group: u32, k: u32) -> (u32, u32) {
        let g = shape.groups;
        let (copy, j) = (k / (g - 1), k % (g - 1));
        ((group + j + 1) % g, copy * (g - 1) + (g - 2 - j))
    }

    /// Bytes of its links and link tables.
    pub fn heap_bytes(&self) -> u64 {
        (self.links.capacity() * std::mem::size_of::<Link>()
            + (self.proc_at.capacity() + self.local.capacity() + self.global.capacity()) * 4)
            as u64
    }

    /// Routers.
    pub fn routers(&self) -> usize {
        (self.shape.a * self.shape.groups) as usize
    }

    /// The group of router `r`.
    #[inline(always)]
    pub fn group(&self, r: u32) -> u32 {
        r / self.shape.a
    }

    /// The local link from router `r` to router `to` of its group.
    #[inline(always)]
    pub fn local_link(&self, r: u32, to: u32) -> u32 {
        self.local[(r * self.shape.a + to % self.shape.a) as usize]
    }

    /// The global channel a minimal route from router `at` to router `t` in another group
    /// takes: of the m copies joining their groups, one leaving `at` itself if there is one,
    /// then one entering `t` if there is one (the lowest copy on a tie), so that the route
    /// takes the fewest local hops, and a route that only needs to reach `t`'s group (Valiant's
    /// first leg) the fewest before its global channel. Returns the link and the local hops
    /// the route then takes in all (0 to 2).
    #[inline(always)]
    pub fn global_channel(&self, at: u32, t: u32) -> (u32, u32) {
        let DragonflyShape { a, groups: g, .. } = self.shape;
        let (from, to) = (at / a, t / a);
        let j = (to + g - from - 1) % g;
        let ports = self.shape.copies() * (g - 1);
        let mut best = (NONE, u32::MAX, u32::MAX);
        for k in (j..ports).step_by((g - 1) as usize) {
            let l = self.global[(from * ports + k) as usize];
            let link = &self.links[l as usize];
            let (near, far) = ((link.src != at) as u32, (link.dst != t) as u32);
            if 2 * near + far < best.2 {
                best = (l, near + far, 2 * near + far);
            }
        }
        (best.0, best.1)
    }

    /// The next link of the minimal route from router `at` to router `t` (none when equal):
    /// local, global, local (Kim et al. 2008, section 4.1).
    #[inline(always)]
    pub fn minimal_link(&self, at: u32, t: u32) -> Option<u32> {
        if at == t {
            return None;
        }
        if self.group(at) == self.group(t) {
            return Some(self.local_link(at, t));
        }
        let (l, _) = self.global_channel(at, t);
        let src = self.links[l as usize].src;
        Some(if src == at {
            l
        } else {
            self.local_link(at, src)
        })
    }

    /// Minimal number of links from router `a` to router `b`.
    #[inline]
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        if a == b {
            0
        } else if self.group(a) == self.group(b) {
            1
        } else {
            1 + self.global_channel(a, b).1
        }
    }

    /// Processors, routers, channels (local and global), the router's degree in network
    /// channels, the diameter and the exact mean distance over ordered pairs of distinct
    /// processors, counted from group 0's routers (every group sees the same distances).
    pub fn properties(&self) -> Properties {
        let DragonflyShape { p, a, h, groups } = self.shape;
        let routers = self.routers() as u32;
        let (mut diameter, mut sum) = (0, 0u64);
        for r in 0..a {
            for t in 0..routers {
                let d = self.distance(r, t);
                diameter = diameter.max(d);
                sum += d as u64;
            }
        }
        let n = routers as f64 * p as f64;
        let pairs_sum = sum as f64 * groups as f64 * (p as f64 * p as f64);
        let local = (groups * a * (a - 1)) as u64;
        let mut degree = vec![0u32; routers as usize];
        for l in &self.links {
            degree[l.src as usize] += 1;
        }
        Properties {
            topology: "dragonfly".to_string(),
            radix: Vec::new(),
            shape: vec![
                ("p", p.to_string()),
                ("a", a.to_string()),
                ("h", h.to_string()),
                ("groups", groups.to_string()),
                ("router_radix", (p + a - 1 + h).to_string()),
            ],
            links: None,
            processors_on: None,
            m: None,
            processors: n as u64,
            routers: routers as u64,
            channels: self.links.len() as u64,
            channels_by_kind: vec![
                ("local_channels", local),
                ("global_channels", self.links.len() as u64 - local),
            ],
            degree: degree.into_iter().max().unwrap_or(0),
            diameter,
            mean_distance: if n > 1.0 {
                pairs_sum / (n * (n - 1.0))
            } else {
                0.0
            },
            mean_hops: None,
        }
    }
}

/// A link of the dragonfly.
fn link(src: u32, dst: u32, dim: u8, dir: Dir) -> Link {
    Link {
        src,
        dst,
        dim,
        dir,
        wrap: false,
    }
}
