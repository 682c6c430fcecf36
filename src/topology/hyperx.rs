//! HyperX (the k-ary n-dimensional flattened butterfly): each router is linked to every router
//! whose coordinates differ from its own in exactly one dimension, so a dimension is corrected
//! in one hop. The hypercube is the HyperX with k = 2.

use super::{Dir, KAryNCube, Kind, Link, Properties};

/// A HyperX, its processors on its routers as `coords.concentration` says.
#[derive(Clone, Debug)]
pub struct HyperX {
    /// The routers' coordinates, as a mesh of the same radices, and the processors on them;
    /// with one processor per router also the processors' address space for traffic
    /// patterns (its links are not the HyperX's).
    pub coords: KAryNCube,
    /// Every unidirectional link: for each dimension d, router and other coordinate b in d.
    pub links: Vec<Link>,
    /// `out[(router * n + d) * kmax + b]`: the link from router to coordinate b in dimension d.
    out: Vec<u32>,
    /// The largest radix.
    kmax: usize,
}

impl HyperX {
    /// Bytes of its links and link table (its coordinates are counted with `coords`).
    pub fn heap_bytes(&self) -> u64 {
        (self.links.capacity() * std::mem::size_of::<Link>() + self.out.capacity() * 4) as u64
    }

    /// Builds the HyperX with radix `radix[d]` in dimension d.
    pub fn new(radix: Vec<u32>) -> HyperX {
        let coords = KAryNCube::new(Kind::Mesh, radix.clone(), true);
        let (n, nodes) = (radix.len(), coords.nodes);
        let kmax = radix.iter().copied().max().unwrap_or(1) as usize;
        let mut out = vec![u32::MAX; nodes * n * kmax];
        let mut links = Vec::new();
        let mut stride = 1usize;
        for (d, &k) in radix.iter().enumerate() {
            for node in 0..nodes {
                let a = coords.coord(node as u32, d) as usize;
                let base = node - a * stride;
                for b in (0..k as usize).filter(|&b| b != a) {
                    out[(node * n + d) * kmax + b] = links.len() as u32;
                    links.push(Link {
                        src: node as u32,
                        dst: (base + b * stride) as u32,
                        dim: d as u8,
                        dir: if b > a { Dir::Plus } else { Dir::Minus },
                        wrap: false,
                    });
                }
            }
            stride *= k as usize;
        }
        HyperX {
            coords,
            links,
            out,
            kmax,
        }
    }

    /// The same HyperX with `c` processors on each router.
    pub fn concentrated(mut self, c: u32) -> HyperX {
        self.coords = self.coords.concentrated(c);
        self
    }

    /// Routers.
    pub fn nodes(&self) -> usize {
        self.coords.nodes
    }

    /// The next link of the dimension-order path from `at` to `dst`: to `dst`'s coordinate in
    /// the lowest dimension where they differ.
    #[inline(always)]
    pub fn dimension_order_link(&self, at: u32, dst: u32) -> Option<u32> {
        let t = &self.coords;
        let n = t.n();
        (0..n).find_map(|d| {
            let b = t.coord(dst, d);
            (t.coord(at, d) != b).then(|| self.out[(at as usize * n + d) * self.kmax + b as usize])
        })
    }

    /// The link from router `at` to the router that differs from it only in dimension `d`,
    /// where its coordinate is `b` (not `at`'s own).
    #[inline(always)]
    pub fn link_to(&self, at: u32, d: usize, b: u32) -> u32 {
        self.out[(at as usize * self.coords.n() + d) * self.kmax + b as usize]
    }

    /// The number of coordinates in which `a` and `b` differ: their minimal hop distance.
    #[inline]
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        let t = &self.coords;
        (0..t.n())
            .filter(|&d| t.coord(a, d) != t.coord(b, d))
            .count() as u32
    }

    /// Processors, routers, channels, degree Σ(k_d − 1), diameter n and the mean distance
    /// N Σ_d (1 − 1/k_d) / (N − 1) over ordered pairs of distinct routers (of processors
    /// when concentrated: [`super::Concentration::apply`]).
    pub fn properties(&self) -> Properties {
        let radix = &self.coords.radix;
        let n = self.nodes() as f64;
        let differ: f64 = radix.iter().map(|&k| 1.0 - 1.0 / k as f64).sum();
        self.coords.concentration.apply(Properties {
            topology: "hyperx".to_string(),
            radix: radix.clone(),
            shape: Vec::new(),
            links: None,
            processors_on: None,
            m: None,
            processors: self.nodes() as u64,
            routers: self.nodes() as u64,
            channels: self.links.len() as u64,
            channels_by_kind: Vec::new(),
            degree: radix.iter().map(|&k| k - 1).sum(),
            diameter: radix.len() as u32,
            mean_distance: n * differ / (n - 1.0),
            mean_hops: None,
        })
    }
}
