//! Network topologies: k-ary n-cubes (torus, mesh) and the hypercube, as a list of
//! point-to-point links between routers; k-ary m-way networks as the dual of one (`mway`).
//!
//! Addresses follow the papers: node `a = (a_0, ..., a_{n-1})` has index
//! `Σ a_d · Π_{e<d} k_e`, dimension 0 being the least significant digit. On a hypercube the
//! index is the n-bit address and dimension d is bit d (paper 002 counts dimensions from 1).

mod kary_ncube;
mod mway;

pub use kary_ncube::KAryNCube;
pub use mway::{MWay, Placement};

/// Direction of a link along its dimension: `Plus` increases the coordinate (mod k on a torus).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    Plus = 0,
    Minus = 1,
}

impl Dir {
    pub fn sign(self) -> &'static str {
        match self {
            Dir::Plus => "+",
            Dir::Minus => "-",
        }
    }
}

/// A unidirectional point-to-point network link from router `src` to router `dst`.
#[derive(Clone, Copy, Debug)]
pub struct Link {
    pub src: u32,
    pub dst: u32,
    pub dim: u8,
    pub dir: Dir,
    /// True for a torus wrap-around link (k-1 → 0 going Plus, 0 → k-1 going Minus): the
    /// dateline of dimension-order routing.
    pub wrap: bool,
}

/// Which family a k-ary n-cube belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Mesh,
    Torus,
    Hypercube,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Mesh => "mesh",
            Kind::Torus => "torus",
            Kind::Hypercube => "hypercube",
        }
    }
}
