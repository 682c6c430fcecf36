//! The address space traffic patterns draw processors from: processor ids counted in the mixed
//! radix of a grid's dimensions (dimension 0 fastest), with each dimension's distance measured
//! along a line, around a ring or across a hypercube's dimension: a topology's routers'
//! coordinates when processors are its routers one to one, else a line of the processors
//! ([`Addresses::of_processors`]). No link graph is built for it.

use crate::topology::{Dir, KAryNCube, Kind, Topology};

/// The processors' grid: coordinates and distances, computed from ids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Addresses {
    /// How each dimension's distance is measured: along a line (mesh), around a ring
    /// (torus), or across a hypercube's dimension (radix 2).
    pub kind: Kind,
    /// Radix of each dimension.
    pub radix: Vec<u32>,
    /// Whether a ring may be walked both ways (always on lines and hypercubes).
    pub bidirectional: bool,
    /// Processors, ∏ k_d.
    pub nodes: usize,
    /// Each dimension's stride in ids, ∏ of the lower dimensions' radices.
    stride: Vec<u32>,
}

impl Addresses {
    /// A grid of radices `radix` whose distances are measured as `kind` says.
    pub fn grid(kind: Kind, radix: Vec<u32>, bidirectional: bool) -> Addresses {
        let mut stride = Vec::with_capacity(radix.len());
        let mut s = 1u32;
        for &k in &radix {
            stride.push(s);
            s = s.saturating_mul(k);
        }
        Addresses {
            kind,
            nodes: radix.iter().map(|&k| k as usize).product(),
            bidirectional: bidirectional || kind != Kind::Torus,
            radix,
            stride,
        }
    }

    /// A line of `nodes` processors (a topology whose processors have no grid of their own).
    pub fn line(nodes: usize) -> Addresses {
        Addresses::grid(Kind::Mesh, vec![nodes as u32], true)
    }

    /// The grid of the k-ary n-cube `t`'s routers.
    pub fn of(t: &KAryNCube) -> Addresses {
        Addresses::grid(t.kind, t.radix.clone(), t.bidirectional)
    }

    /// The processors of `topology`: its routers' grid when they are its routers one to one
    /// (a k-ary n-cube, HyperX's coordinates, an m-way network with a processor on each
    /// channel), a dragonfly's processors by group (the group the last dimension), else a
    /// line of the processors (a fat tree's and a concentrated network's among them).
    pub fn of_processors(topology: &Topology) -> Addresses {
        let concentrated = |t: &KAryNCube| {
            let c = t.concentration.per_router as usize;
            (c > 1).then(|| Addresses::line(t.nodes * c))
        };
        match topology {
            Topology::KAryNCube(t) => concentrated(t).unwrap_or_else(|| Addresses::of(t)),
            Topology::MWay(m) if m.processors as usize != m.graph.nodes => {
                Addresses::line(m.processors as usize)
            }
            Topology::MWay(m) => Addresses::of(&m.graph),
            Topology::HyperX(h) => {
                concentrated(&h.coords).unwrap_or_else(|| Addresses::of(&h.coords))
            }
            // A processor's group is its coordinate in the last dimension.
            Topology::Dragonfly(d) => {
                let per_group = d.shape.p * d.shape.a;
                Addresses::grid(Kind::Mesh, vec![per_group, d.shape.groups], true)
            }
            Topology::FatTree(f) => Addresses::line(f.processors()),
        }
    }

    /// Dimensions.
    pub fn n(&self) -> usize {
        self.radix.len()
    }

    /// True when each dimension is a ring with wrap-around (a torus).
    pub fn wraps(&self) -> bool {
        self.kind == Kind::Torus
    }

    /// Processor `node`'s coordinate in dimension d, in `0..k_d`.
    #[inline]
    pub fn coord(&self, node: u32, d: usize) -> u32 {
        node / self.stride[d] % self.radix[d]
    }

    /// The way and the hops from coordinate a to b in dimension d, minimal (on a
    /// bidirectional ring the `+` way at half-way round): `KAryNCube::dim_route`'s rule, kept
    /// apart so that the routings' header step keeps its code (one function shared by both
    /// counted 1.5% more instructions on the callgrind gate's workload d).
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

    /// The distance from processor a to b: the sum of the dimensions' distances.
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        (0..self.n())
            .map(|d| self.dim_route(d, self.coord(a, d), self.coord(b, d)).1)
            .sum()
    }

    /// The largest distance.
    pub fn diameter(&self) -> u32 {
        let each = |&k: &u32| match self.wraps() && self.bidirectional {
            true => k / 2,
            false => k - 1,
        };
        self.radix.iter().map(each).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Coordinates, distances and diameters agree with the k-ary n-cube's graph, whose
    /// coordinates are a table and whose distances are its routes.
    #[test]
    fn the_grid_agrees_with_the_cube_graphs() {
        for t in [
            KAryNCube::new(Kind::Mesh, vec![5, 3], true),
            KAryNCube::new(Kind::Torus, vec![5, 4], false),
            KAryNCube::new(Kind::Torus, vec![6, 5, 3], true),
            KAryNCube::new(Kind::Hypercube, vec![2; 5], true),
        ] {
            let a = Addresses::of(&t);
            assert_eq!(a.nodes, t.nodes);
            assert_eq!(a.diameter(), t.diameter());
            for x in 0..t.nodes as u32 {
                for d in 0..t.n() {
                    assert_eq!(a.coord(x, d), t.coord(x, d));
                }
                for y in 0..t.nodes as u32 {
                    assert_eq!(a.distance(x, y), t.distance(x, y));
                }
            }
        }
        let line = Addresses::line(7);
        assert_eq!((line.distance(1, 6), line.diameter()), (5, 6));
    }
}
