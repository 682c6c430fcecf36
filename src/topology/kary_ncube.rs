//! k-ary n-cubes: torus (uni- or bidirectional), mesh, and the hypercube (the 2-ary n-cube
//! with one bidirectional link per dimension, built as a 2-ary mesh).

use super::{Concentration, Dir, Kind, Link, Properties};

/// The `out_link` entry of a direction without a link (a mesh's edge, a unidirectional torus).
pub const NO_LINK: u32 = u32::MAX;

/// A k-ary n-cube's graph: routers numbered by their coordinates, and the links between them.
#[derive(Clone, Debug)]
pub struct KAryNCube {
    /// Wrap-around: torus, mesh or hypercube.
    pub kind: Kind,
    /// Radix of each dimension.
    pub radix: Vec<u32>,
    /// Whether each dimension has links in both directions.
    pub bidirectional: bool,
    /// Number of routers, ∏ k_d.
    pub nodes: usize,
    /// `coords[node * n + d]` is the node's coordinate in dimension d.
    pub coords: Vec<u16>,
    /// The unidirectional links, by dimension, then router, then direction (Plus first); in
    /// [`KAryNCube::with_rings_together`] each dimension's block goes ring by ring, one way
    /// round each ring and then the other, so that the links a message crosses in a row have
    /// neighbouring ids.
    pub links: Vec<Link>,
    /// `out_link[(node * n + d) * 2 + dir]`: the link leaving `node` in dimension d, or NO_LINK.
    pub out_link: Vec<u32>,
    /// The processors on each router (one unless concentrated).
    pub concentration: Concentration,
}

/// One hop of dimension-order routing: the link, as its record would give it, and the two
/// routers' coordinates in its dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DorHop {
    /// The link taken.
    pub link: u32,
    /// Its dimension.
    pub dim: u8,
    /// Its direction.
    pub dir: Dir,
    /// It is its ring's wrap-around link.
    pub wrap: bool,
    /// The current router's coordinate in `dim`.
    pub from: u32,
    /// The destination's coordinate in `dim`.
    pub to: u32,
}

impl KAryNCube {
    /// Builds the network. `kind` decides wrap-around; `bidirectional` only matters for a torus
    /// (meshes and hypercubes always have links both ways).
    pub fn new(kind: Kind, radix: Vec<u32>, bidirectional: bool) -> Self {
        Self::build(kind, radix, bidirectional, false)
    }

    /// The same network with each dimension's links numbered along its rings: within the
    /// dimension's block, ring by ring, the Minus wrap-around link, the Plus links in ring
    /// order, the other Minus links, then the Plus wrap-around link. The engine's state is
    /// indexed by link (a buffer is `link * V + vc`), so a message's next buffer and channel are
    /// the next records along, in every dimension and either direction. Each router's input
    /// links keep their order, so the simulation is the same; [`KAryNCube::links_in_order`]
    /// gives the conventional order.
    pub fn with_rings_together(kind: Kind, radix: Vec<u32>, bidirectional: bool) -> Self {
        Self::build(kind, radix, bidirectional, true)
    }

    fn build(kind: Kind, radix: Vec<u32>, bidirectional: bool, rings: bool) -> Self {
        let n = radix.len();
        let wrap = kind == Kind::Torus;
        let bidirectional = bidirectional || kind != Kind::Torus;
        let nodes: usize = radix.iter().map(|&k| k as usize).product();
        let mut coords = crate::huge_pages::filled(nodes * n, 0u16);
        // Router ids count in the mixed radix of the k_d, dimension 0 fastest: each router's
        // coordinates are the last one's with one carried (no division per coordinate).
        let mut digits = vec![0u16; n];
        for row in coords.chunks_exact_mut(n.max(1)) {
            row.copy_from_slice(&digits);
            for (digit, &k) in digits.iter_mut().zip(&radix) {
                if u32::from(*digit) + 1 < k {
                    *digit += 1;
                    break;
                }
                *digit = 0;
            }
        }
        let mut links = crate::huge_pages::with_capacity(nodes * n * 2);
        let mut out_link = crate::huge_pages::filled(nodes * n * 2, NO_LINK);
        let mut stride = 1usize;
        for d in 0..n {
            let k = radix[d] as usize;
            // Router `a` of the ring based at `base` adds its link in direction `dir`, if any.
            let mut add = |base: usize, a: usize, dir: Dir| {
                let node = base + a * stride;
                let (to, is_wrap) = match dir {
                    Dir::Plus if a + 1 < k => (a + 1, false),
                    Dir::Plus if wrap => (0, true),
                    Dir::Minus if bidirectional && a > 0 => (a - 1, false),
                    Dir::Minus if bidirectional && wrap => (k - 1, true),
                    _ => return,
                };
                out_link[(node * n + d) * 2 + dir as usize] = links.len() as u32;
                links.push(Link {
                    src: node as u32,
                    dst: (base + to * stride) as u32,
                    dim: d as u8,
                    dir,
                    wrap: is_wrap,
                });
            };
            let base_of = |ring: usize| ring % stride + ring / stride * stride * k;
            if !rings {
                for node in 0..nodes {
                    let a = coords[node * n + d] as usize;
                    add(node - a * stride, a, Dir::Plus);
                    add(node - a * stride, a, Dir::Minus);
                }
            } else if k < 3 {
                // Rings of one or two routers: each router's links together.
                for ring in 0..nodes / k {
                    for a in 0..k {
                        add(base_of(ring), a, Dir::Plus);
                        add(base_of(ring), a, Dir::Minus);
                    }
                }
            } else {
                // One way round each ring, then the other: a message's next link is the next
                // id (or the one before). The Minus wrap-around link goes first and the Plus
                // one last, so that every router's two input links keep their conventional
                // order (the input from the upper neighbour first at routers 0 and k - 1).
                for ring in 0..nodes / k {
                    let base = base_of(ring);
                    add(base, 0, Dir::Minus);
                    for a in 0..k - 1 {
                        add(base, a, Dir::Plus);
                    }
                    for a in 1..k {
                        add(base, a, Dir::Minus);
                    }
                    add(base, k - 1, Dir::Plus);
                }
            }
            stride *= k;
        }
        KAryNCube {
            kind,
            radix,
            bidirectional,
            nodes,
            coords,
            links,
            out_link,
            concentration: Concentration::one(),
        }
    }

    /// The same network with `c` processors on each router.
    pub fn concentrated(mut self, c: u32) -> Self {
        self.concentration = Concentration::new(c, self.nodes);
        self
    }

    /// Number of dimensions n.
    pub fn n(&self) -> usize {
        self.radix.len()
    }

    /// True on a torus: every dimension's ring has wrap-around links (the dateline's links).
    pub fn wraps(&self) -> bool {
        self.kind == Kind::Torus
    }

    /// Router `node`'s coordinate in dimension d, in `0..k_d`.
    #[inline]
    pub fn coord(&self, node: u32, d: usize) -> u32 {
        self.coords[node as usize * self.radix.len() + d] as u32
    }

    /// Every link's id in the conventional order, by dimension, then router, then direction
    /// (Plus first): the order the tables list links in, whatever the numbering.
    pub fn links_in_order(&self) -> impl Iterator<Item = u32> + '_ {
        let n = self.n();
        (0..n).flat_map(move |d| {
            (0..self.nodes).flat_map(move |node| {
                let at = (node * n + d) * 2;
                self.out_link[at..at + 2]
                    .iter()
                    .copied()
                    .filter(|&l| l != NO_LINK)
            })
        })
    }

    /// The link leaving router `node` in dimension d in direction `dir`, or `NO_LINK`.
    #[inline]
    pub fn out_link(&self, node: u32, d: usize, dir: Dir) -> u32 {
        self.out_link[(node as usize * self.radix.len() + d) * 2 + dir as usize]
    }

    /// Calls `f` on every link that leaves or enters router `node` (a link may come twice):
    /// its own from the out-link table, and its neighbours' towards it, the neighbours found
    /// from its coordinates (ids count in the mixed radix, dimension 0 fastest).
    pub fn each_link_at(&self, node: u32, mut f: impl FnMut(u32)) {
        let mut stride = 1;
        for (d, &k) in self.radix.iter().enumerate() {
            let a = self.coord(node, d);
            for dir in [Dir::Plus, Dir::Minus] {
                let l = self.out_link(node, d, dir);
                if l != NO_LINK {
                    f(l);
                }
            }
            // Entering: from the neighbour below going Plus, from the one above going Minus.
            for (b, dir) in [((a + k - 1) % k, Dir::Plus), ((a + 1) % k, Dir::Minus)] {
                let l = self.out_link(node - a * stride + b * stride, d, dir);
                if l != NO_LINK && self.links[l as usize].dst == node {
                    f(l);
                }
            }
            stride *= k;
        }
    }

    /// The direction and hop count that minimal routing takes in dimension d from coordinate
    /// `a` to `b`. On a bidirectional torus a tie (distance exactly k/2) goes Plus.
    #[inline]
    pub fn dim_route(&self, d: usize, a: u32, b: u32) -> (Dir, u32) {
        let k = self.radix[d];
        if self.wraps() {
            let up = (b + k - a) % k;
            if !self.bidirectional || up <= k - up {
                (Dir::Plus, up)
            } else {
                (Dir::Minus, k - up)
            }
        } else if b >= a {
            (Dir::Plus, b - a)
        } else {
            (Dir::Minus, a - b)
        }
    }

    /// Minimal hop distance from `a` to `b` (the length of every minimal path).
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        (0..self.n())
            .map(|d| self.dim_route(d, self.coord(a, d), self.coord(b, d)).1)
            .sum()
    }

    /// Network diameter: the largest minimal distance.
    pub fn diameter(&self) -> u32 {
        (0..self.n())
            .map(|d| {
                let k = self.radix[d];
                if self.wraps() && self.bidirectional {
                    k / 2
                } else {
                    k - 1
                }
            })
            .sum()
    }

    /// The most network links leaving one router.
    pub fn degree(&self) -> u32 {
        (0..self.nodes as u32)
            .map(|v| {
                (0..self.n())
                    .flat_map(|d| [Dir::Plus, Dir::Minus].map(|dir| self.out_link(v, d, dir)))
                    .filter(|&l| l != NO_LINK)
                    .count() as u32
            })
            .max()
            .unwrap_or(0)
    }

    /// The network's properties in the terms of paper 004's Fig. 3: processors, routers,
    /// channels (unidirectional network links), router degree (largest number of network links
    /// leaving a router), diameter, mean distance under uniform traffic.
    pub fn properties(&self) -> Properties {
        let links = if self.kind == Kind::Torus && !self.bidirectional {
            "unidirectional"
        } else {
            "bidirectional"
        };
        let props = Properties {
            topology: self.kind.name().to_string(),
            radix: self.radix.clone(),
            shape: Vec::new(),
            links: Some(links),
            processors_on: None,
            m: None,
            processors: self.nodes as u64,
            routers: self.nodes as u64,
            channels: self.links.len() as u64,
            channels_by_kind: Vec::new(),
            degree: self.degree(),
            diameter: self.diameter(),
            mean_distance: self.mean_distance(),
            mean_hops: None,
        };
        self.concentration.apply(props)
    }

    /// True on a bidirectional torus with an even radix: some messages are exactly half-way
    /// round a ring, where both directions are minimal.
    pub fn has_ties(&self) -> bool {
        self.wraps() && self.bidirectional && self.radix.iter().any(|k| k % 2 == 0)
    }

    /// The next link of the dimension-order path from `at` to `dst` (lowest dimension first),
    /// if they differ. On a bidirectional torus a tie of k/2 hops in dimension d goes Plus,
    /// or Minus when bit d of `tie` is set.
    #[inline(always)]
    pub fn dimension_order_link(&self, at: u32, dst: u32, tie: u32) -> Option<u32> {
        self.dimension_order_hop(at, dst, tie).map(|h| h.link)
    }

    /// [`KAryNCube::dimension_order_link`] with what a routing asks of that link, found from
    /// the two routers' coordinates rather than from the link's record (one cache line less a
    /// header's hop on a network larger than a cache).
    #[inline(always)]
    pub fn dimension_order_hop(&self, at: u32, dst: u32, tie: u32) -> Option<DorHop> {
        for d in 0..self.n() {
            let (a, b) = (self.coord(at, d), self.coord(dst, d));
            if a != b {
                let k = self.radix[d];
                let (mut dir, dist) = self.dim_route(d, a, b);
                if tie.wrapping_shr(d as u32) & 1 == 1
                    && 2 * dist == k
                    && self.wraps()
                    && self.bidirectional
                {
                    dir = Dir::Minus;
                }
                // A ring's wrap-around link leaves its last router Plus and its first Minus.
                let wrap = self.wraps()
                    && match dir {
                        Dir::Plus => a == k - 1,
                        Dir::Minus => a == 0,
                    };
                return Some(DorHop {
                    link: self.out_link(at, d, dir),
                    dim: d as u8,
                    dir,
                    wrap,
                    from: a,
                    to: b,
                });
            }
        }
        None
    }

    /// Mean distance over ordered pairs of distinct nodes (uniform traffic), by enumeration of
    /// each dimension's offsets (dimensions are independent).
    pub fn mean_distance(&self) -> f64 {
        let n = self.nodes as f64;
        // Σ over all ordered pairs (including self-pairs, distance 0) = Σ_d (N/k_d)^2 · S_d where
        // S_d sums the 1-D distance over the k_d^2 coordinate pairs.
        let mut total = 0.0;
        for d in 0..self.n() {
            let k = self.radix[d];
            let mut s = 0u64;
            for a in 0..k {
                for b in 0..k {
                    s += self.dim_route(d, a, b).1 as u64;
                }
            }
            let others = n / k as f64;
            total += s as f64 * others * others;
        }
        total / (n * (n - 1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A router's coordinates are the digits of its id in the mixed radix of the k_d, the
    /// lowest dimension first.
    #[test]
    fn coordinates_are_the_digits_of_the_id() {
        for radix in [
            vec![3, 5, 7],
            vec![4, 4, 4],
            vec![2; 10],
            vec![16, 1, 9],
            vec![1],
        ] {
            let t = KAryNCube::new(Kind::Torus, radix.clone(), true);
            for node in 0..t.nodes as u32 {
                let mut rest = node;
                for (d, &k) in radix.iter().enumerate() {
                    let c = t.coord(node, d);
                    assert_eq!(c, rest % k, "router {node} of {radix:?}, dimension {d}");
                    rest /= k;
                }
            }
        }
    }

    /// Every hop of every pair, on tori (both ways round, k = 2 to 5, either numbering), meshes
    /// and a hypercube: the hop found from coordinates is its link's record.
    #[test]
    fn a_dimension_order_hop_is_its_links_record() {
        let mut nets = Vec::new();
        for rings in [false, true] {
            for k in 2..=5 {
                for bi in [false, true] {
                    nets.push(KAryNCube::build(Kind::Torus, vec![k, 3], bi, rings));
                }
                nets.push(KAryNCube::build(Kind::Mesh, vec![3, k], true, rings));
            }
            nets.push(KAryNCube::build(Kind::Hypercube, vec![2; 3], true, rings));
        }
        let mut wraps = 0;
        for t in &nets {
            for at in 0..t.nodes as u32 {
                for dst in 0..t.nodes as u32 {
                    for tie in [0, u32::MAX] {
                        let Some(h) = t.dimension_order_hop(at, dst, tie) else {
                            assert_eq!(at, dst);
                            continue;
                        };
                        let l = &t.links[h.link as usize];
                        assert_eq!((l.src, l.dim, l.dir, l.wrap), (at, h.dim, h.dir, h.wrap));
                        let d = h.dim as usize;
                        assert_eq!((h.from, h.to), (t.coord(at, d), t.coord(dst, d)));
                        assert_eq!(t.dimension_order_link(at, dst, tie), Some(h.link));
                        wraps += h.wrap as u32;
                    }
                }
            }
        }
        assert!(wraps > 0, "some hops take a wrap-around link");
    }

    #[test]
    fn link_counts() {
        let m = KAryNCube::new(Kind::Mesh, vec![4, 4], true);
        assert_eq!(m.links.len(), 2 * 2 * 4 * 3);
        let t = KAryNCube::new(Kind::Torus, vec![4, 4], false);
        assert_eq!(t.links.len(), 2 * 16);
        let tb = KAryNCube::new(Kind::Torus, vec![4, 4, 4], true);
        assert_eq!(tb.links.len(), 6 * 64);
        let h = KAryNCube::new(Kind::Hypercube, vec![2; 5], true);
        assert_eq!(h.links.len(), 5 * 32);
        for l in &h.links {
            assert_eq!(l.src ^ l.dst, 1 << l.dim);
        }
    }

    #[test]
    fn properties_count_the_network() {
        // Unidirectional 5-ary 2-cube: 25 routers, n·N = 50 channels, degree n = 2, diameter
        // n(k-1) = 8; bidirectional: 2nN = 100 channels, degree 4, diameter n⌊k/2⌋ = 4; 4x4 mesh:
        // 2n(k-1)k^(n-1) = 48 channels, degree 4, diameter 6; 5-cube: n·2^n = 160 channels
        // (each edge is two unidirectional channels), degree 5.
        let get = |t: &KAryNCube, key: &str| {
            t.properties()
                .rows()
                .into_iter()
                .find(|(k, _)| *k == key)
                .unwrap()
                .1
        };
        for (t, channels, degree, diameter) in [
            (
                KAryNCube::new(Kind::Torus, vec![5, 5], false),
                "50",
                "2",
                "8",
            ),
            (
                KAryNCube::new(Kind::Torus, vec![5, 5], true),
                "100",
                "4",
                "4",
            ),
            (KAryNCube::new(Kind::Mesh, vec![4, 4], true), "48", "4", "6"),
            (
                KAryNCube::new(Kind::Hypercube, vec![2; 5], true),
                "160",
                "5",
                "5",
            ),
        ] {
            assert_eq!(get(&t, "channels"), channels);
            assert_eq!(get(&t, "degree"), degree);
            assert_eq!(get(&t, "diameter"), diameter);
            let brute = (0..t.nodes as u32)
                .flat_map(|a| (0..t.nodes as u32).map(move |b| (a, b)))
                .map(|(a, b)| t.distance(a, b))
                .max()
                .unwrap();
            assert_eq!(get(&t, "diameter"), brute.to_string());
        }
    }

    #[test]
    fn mean_distance_matches_pairs() {
        for t in [
            KAryNCube::new(Kind::Mesh, vec![3, 5], true),
            KAryNCube::new(Kind::Torus, vec![5, 4], false),
            KAryNCube::new(Kind::Torus, vec![4, 5], true),
            KAryNCube::new(Kind::Hypercube, vec![2; 4], true),
        ] {
            let mut s = 0u64;
            for a in 0..t.nodes as u32 {
                for b in 0..t.nodes as u32 {
                    s += t.distance(a, b) as u64;
                }
            }
            let want = s as f64 / (t.nodes * (t.nodes - 1)) as f64;
            assert!((t.mean_distance() - want).abs() < 1e-12);
        }
    }

    /// Numbered along rings, the network has the same links (listed in the conventional order
    /// by `links_in_order`), each router's incoming links keep their order, and a ring's next
    /// link in one direction is the neighbouring id.
    #[test]
    fn links_numbered_along_rings_are_the_same_links() {
        let nets = [
            (Kind::Torus, vec![4, 3, 5], true),
            (Kind::Torus, vec![2, 3], true),
            (Kind::Torus, vec![5, 4], false),
            (Kind::Mesh, vec![3, 6], true),
            (Kind::Hypercube, vec![2; 4], true),
        ];
        for (kind, radix, bi) in nets {
            let by_router = KAryNCube::new(kind, radix.clone(), bi);
            let rings = KAryNCube::with_rings_together(kind, radix.clone(), bi);
            let listed: Vec<Link> = rings
                .links_in_order()
                .map(|l| rings.links[l as usize])
                .collect();
            assert_eq!(listed, by_router.links, "{kind:?} {radix:?}");
            let order: Vec<u32> = by_router.links_in_order().collect();
            assert_eq!(order, (0..by_router.links.len() as u32).collect::<Vec<_>>());
            for r in 0..rings.nodes as u32 {
                let ins = |t: &KAryNCube| {
                    let mut ids: Vec<u32> = (0..t.links.len() as u32)
                        .filter(|&l| t.links[l as usize].dst == r)
                        .collect();
                    ids.sort_unstable();
                    ids.into_iter()
                        .map(|l| t.links[l as usize])
                        .collect::<Vec<_>>()
                };
                assert_eq!(ins(&rings), ins(&by_router), "router {r}'s input links");
            }
            // Along a ring, the next router's link in the same direction is the next id (Plus)
            // or the one before (Minus); a wrap-around link is within its ring's 2k ids.
            for d in 0..radix.len() {
                for r in 0..rings.nodes as u32 {
                    for dir in [Dir::Plus, Dir::Minus] {
                        let l = rings.out_link(r, d, dir);
                        let Some(link) = rings.links.get(l as usize) else {
                            continue;
                        };
                        let after = rings.out_link(link.dst, d, dir);
                        let Some(next) = rings.links.get(after as usize) else {
                            continue;
                        };
                        let ctx = format!("{kind:?} {radix:?} dim {d} {dir:?}: {l} then {after}");
                        if link.wrap || next.wrap {
                            assert!(l.abs_diff(after) < 2 * radix[d], "{ctx}");
                        } else {
                            let step = if dir == Dir::Plus { 1 } else { -1 };
                            assert_eq!(after as i64 - l as i64, step, "{ctx}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn each_link_at_a_router_is_every_link_leaving_or_entering_it() {
        let cases = [
            (Kind::Mesh, vec![4, 3], true),
            (Kind::Mesh, vec![1, 5], true),
            (Kind::Torus, vec![5, 3], false),
            (Kind::Torus, vec![4, 4], true),
            (Kind::Torus, vec![2, 3, 2], true),
            (Kind::Torus, vec![2, 3], false),
            (Kind::Hypercube, vec![2, 2, 2], true),
        ];
        for (kind, radix, bi) in cases {
            for t in [
                KAryNCube::new(kind, radix.clone(), bi),
                KAryNCube::with_rings_together(kind, radix.clone(), bi),
            ] {
                for r in 0..t.nodes as u32 {
                    let mut found = Vec::new();
                    t.each_link_at(r, |l| found.push(l));
                    found.sort_unstable();
                    found.dedup();
                    let all: Vec<u32> = (0..t.links.len() as u32)
                        .filter(|&l| t.links[l as usize].src == r || t.links[l as usize].dst == r)
                        .collect();
                    assert_eq!(
                        found, all,
                        "{kind:?} {radix:?} bidirectional {bi}: router {r}"
                    );
                }
            }
        }
    }
}
