//! Network topologies: k-ary n-cubes (torus, mesh, hypercube), k-ary m-way networks, HyperX
//! and the fat tree (k-ary n-tree), each a variant of [`Topology`], which builds the router graph the [`crate::network::Network`] is
//! wired from, answers distances, and gives the network's [`Properties`].
//!
//! Addresses follow the papers: node `a = (a_0, ..., a_{n-1})` has index
//! `Σ a_d · Π_{e<d} k_e`, dimension 0 being the least significant digit. On a hypercube the
//! index is the n-bit address and dimension d is bit d (paper 002 counts dimensions from 1).
//! Coordinates are a capability of the cube topologies ([`Topology::cube`]): only the routings
//! and traffic patterns defined on coordinates ask for them.

mod concentration;
mod dragonfly;
mod fat_tree;
mod hyperx;
mod kary_ncube;
mod mway;
mod properties;

pub use crate::spec::{DragonflyShape, Family, Kind, TopologySpec};
pub use concentration::Concentration;
pub use dragonfly::Dragonfly;
pub use fat_tree::FatTree;
pub use hyperx::HyperX;
pub use kary_ncube::{DorHop, KAryNCube};
pub use mway::{MWay, Placement};
pub use properties::Properties;

/// Direction of a link along its dimension: `Plus` increases the coordinate (mod k on a torus).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Towards the higher coordinate.
    Plus = 0,
    /// Towards the lower coordinate.
    Minus = 1,
}

impl Dir {
    /// `+` or `-`, as printed in channel tables.
    pub fn sign(self) -> &'static str {
        match self {
            Dir::Plus => "+",
            Dir::Minus => "-",
        }
    }
}

/// A unidirectional point-to-point network link from router `src` to router `dst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    /// The router the link leaves.
    pub src: u32,
    /// The router the link enters.
    pub dst: u32,
    /// The dimension the link corrects.
    pub dim: u8,
    /// Whether it raises or lowers the coordinate.
    pub dir: Dir,
    /// True for a torus wrap-around link (k-1 → 0 going Plus, 0 → k-1 going Minus): the
    /// dateline of dimension-order routing.
    pub wrap: bool,
}

/// How processors attach to a topology's routers, for wiring the network.
pub struct Attachment<'a> {
    /// `proc_at[p * attach + j]`: the router of processor p's j-th injection channel; None
    /// when processor p is router p.
    pub proc_at: Option<&'a [u32]>,
    /// Injection (and ejection) channels per processor.
    pub attach: u32,
    /// All links and ejection channels leaving one router share one arbiter (m-way channels).
    pub shared_channels: bool,
    /// Processors inside m-way routers: `shares[p * attach + j]` is the link whose channel
    /// interface processor p's j-th injection channel shares. Empty otherwise.
    pub shares: &'a [u32],
}

/// A built topology: its routers, links and processors.
#[derive(Clone, Debug)]
pub enum Topology {
    /// A k-ary n-cube (torus, mesh, hypercube).
    KAryNCube(KAryNCube),
    /// A k-ary m-way network: the engine's routers are its m-way channels, its links the
    /// m-way routers' buffer sets.
    MWay(MWay),
    /// A HyperX (flattened butterfly).
    HyperX(HyperX),
    /// A dragonfly.
    Dragonfly(Dragonfly),
    /// A fat tree (k-ary n-tree): switches in levels, k processors on each leaf switch.
    FatTree(FatTree),
}

impl From<KAryNCube> for Topology {
    fn from(t: KAryNCube) -> Topology {
        Topology::KAryNCube(t)
    }
}

impl Topology {
    /// Bytes of the router graph on the heap: links, coordinates and link tables.
    pub fn heap_bytes(&self) -> u64 {
        fn bytes<T>(v: &Vec<T>) -> u64 {
            (v.capacity() * std::mem::size_of::<T>()) as u64
        }
        let cube = |t: &KAryNCube| {
            bytes(&t.links)
                + bytes(&t.coords)
                + bytes(&t.out_link)
                + bytes(&t.concentration.proc_at)
        };
        match self {
            Topology::KAryNCube(t) => cube(t),
            Topology::MWay(m) => cube(&m.graph) + bytes(&m.chans) + bytes(&m.shares),
            Topology::HyperX(h) => cube(&h.coords) + h.heap_bytes(),
            Topology::Dragonfly(d) => d.heap_bytes(),
            Topology::FatTree(f) => f.heap_bytes(),
        }
    }

    /// Builds the topology a scenario describes.
    pub fn build(spec: &TopologySpec) -> Topology {
        let (kind, radix, both) = (spec.kind, spec.radix.clone(), spec.bidirectional);
        match spec.family {
            Family::KAryNCube => Topology::KAryNCube(
                KAryNCube::with_rings_together(kind, radix, both).concentrated(spec.concentration),
            ),
            Family::MWay(placement) => {
                Topology::MWay(MWay::new(KAryNCube::new(kind, radix, both), placement))
            }
            Family::HyperX => {
                Topology::HyperX(HyperX::new(spec.radix.clone()).concentrated(spec.concentration))
            }
            Family::Dragonfly(shape) => Topology::Dragonfly(Dragonfly::new(shape)),
            Family::FatTree => {
                Topology::FatTree(FatTree::new(spec.radix[0], spec.radix.len() as u32))
            }
        }
    }

    /// The coordinates and links of a cube-shaped graph: the k-ary n-cube, or an m-way
    /// network's channel graph. None for topologies without that structure.
    #[inline]
    pub fn cube(&self) -> Option<&KAryNCube> {
        match self {
            Topology::KAryNCube(t) => Some(t),
            Topology::MWay(m) => Some(&m.graph),
            Topology::HyperX(_) | Topology::Dragonfly(_) | Topology::FatTree(_) => None,
        }
    }

    /// Calls `f` on every link that leaves or enters router `r` (a link may come twice) and
    /// returns true, when the topology can list a router's links without a pass over all of
    /// them; false otherwise, `f` not called.
    pub fn each_link_at(&self, r: u32, f: impl FnMut(u32)) -> bool {
        match self.cube() {
            Some(c) => {
                c.each_link_at(r, f);
                true
            }
            None => false,
        }
    }

    /// The k-ary m-way network, when this is one.
    pub fn mway(&self) -> Option<&MWay> {
        match self {
            Topology::MWay(m) => Some(m),
            _ => None,
        }
    }

    /// The fat tree, when this is one.
    pub fn fat_tree(&self) -> Option<&FatTree> {
        match self {
            Topology::FatTree(f) => Some(f),
            _ => None,
        }
    }

    /// The router graph's links.
    #[inline(always)]
    pub fn links(&self) -> &[Link] {
        match self {
            Topology::KAryNCube(t) => &t.links,
            Topology::MWay(m) => &m.graph.links,
            Topology::HyperX(h) => &h.links,
            Topology::Dragonfly(d) => &d.links,
            Topology::FatTree(f) => &f.links,
        }
    }

    /// Every link's id in the order the tables list links (for a k-ary n-cube, by dimension,
    /// then router, then direction, whatever its numbering): the i-th is the one results and
    /// models give at index i.
    pub fn links_in_order(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        match self {
            Topology::KAryNCube(t) => Box::new(t.links_in_order()),
            _ => Box::new(0..self.links().len() as u32),
        }
    }

    /// The links in the order of [`Topology::links_in_order`].
    pub fn listed_links(&self) -> impl Iterator<Item = &Link> + '_ {
        self.links_in_order().map(|l| &self.links()[l as usize])
    }

    /// Per-link values `v` (indexed by link id) in the order of [`Topology::links_in_order`].
    pub fn in_link_order<T: Copy>(&self, v: &[T]) -> Vec<T> {
        self.links_in_order().map(|l| v[l as usize]).collect()
    }

    /// Routers of the engine: k-ary n-cube routers, or m-way channels.
    pub fn routers(&self) -> usize {
        match self {
            Topology::KAryNCube(t) => t.nodes,
            Topology::MWay(m) => m.graph.nodes,
            Topology::HyperX(h) => h.nodes(),
            Topology::Dragonfly(d) => d.routers(),
            Topology::FatTree(f) => f.routers(),
        }
    }

    /// How processors attach to routers.
    pub fn attachment(&self) -> Attachment<'_> {
        match self {
            Topology::KAryNCube(t) => t.concentration.attachment(),
            Topology::HyperX(h) => h.coords.concentration.attachment(),
            Topology::MWay(m) => Attachment {
                proc_at: Some(&m.chans),
                attach: m.attach,
                shared_channels: true,
                shares: &m.shares,
            },
            Topology::Dragonfly(d) => Attachment {
                proc_at: Some(&d.proc_at),
                attach: 1,
                shared_channels: false,
                shares: &[],
            },
            Topology::FatTree(f) => Attachment {
                proc_at: Some(&f.leaf),
                attach: 1,
                shared_channels: false,
                shares: &[],
            },
        }
    }

    /// The next link of the dimension-order path from router `at` to router `dst` (lowest
    /// dimension first), if they differ; bit d of `tie` sends a tie in dimension d `−`. None on
    /// a fat tree, which has no dimension order (its routing is `nca`).
    #[inline(always)]
    pub fn dimension_order_link(&self, at: u32, dst: u32, tie: u32) -> Option<u32> {
        // One inlined copy for the cube graphs; the other topologies are called out of line,
        // which keeps the cube routings' loop as tight as it is without them.
        match self.cube() {
            Some(t) => t.dimension_order_link(at, dst, tie),
            None => self.other_dimension_order_link(at, dst),
        }
    }

    /// `dimension_order_link` on topologies without a cube graph.
    #[inline(never)]
    fn other_dimension_order_link(&self, at: u32, dst: u32) -> Option<u32> {
        match self {
            Topology::HyperX(h) => h.dimension_order_link(at, dst),
            Topology::Dragonfly(d) => d.minimal_link(at, dst),
            _ => self.cube().and_then(|t| t.dimension_order_link(at, dst, 0)),
        }
    }

    /// Minimal number of links from router `a` to router `b`.
    #[inline]
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        match self {
            Topology::KAryNCube(t) => t.distance(a, b),
            Topology::MWay(m) => m.graph.distance(a, b),
            Topology::HyperX(h) => h.distance(a, b),
            Topology::Dragonfly(d) => d.distance(a, b),
            Topology::FatTree(f) => f.distance(a, b),
        }
    }

    /// The largest router distance.
    pub fn diameter(&self) -> u32 {
        match self {
            Topology::KAryNCube(t) => t.diameter(),
            Topology::MWay(m) => m.graph.diameter(),
            Topology::HyperX(h) => h.properties().diameter,
            Topology::Dragonfly(d) => d.properties().diameter,
            Topology::FatTree(f) => f.diameter(),
        }
    }

    /// The network's properties (paper 004 Fig. 3's terms).
    pub fn properties(&self) -> Properties {
        match self {
            Topology::KAryNCube(t) => t.properties(),
            Topology::MWay(m) => m.properties(),
            Topology::HyperX(h) => h.properties(),
            Topology::Dragonfly(d) => d.properties(),
            Topology::FatTree(f) => f.properties(),
        }
    }
}
