//! Destination patterns (papers 001 and 002, and the classic adversarial permutations),
//! each with a sampler and its exact destination distribution (for enumeration).

use super::Addresses;
use super::locality::DistanceTable;
use crate::spec::{Locality, Pattern};
use crate::topology::Kind;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// A destination pattern built for one network.
#[derive(Clone)]
pub enum Destinations {
    /// Every node but the source equally likely.
    Uniform,
    /// A fraction h of messages go to the hot node, the rest uniform (paper 002 eq. 4-6).
    Hotspot {
        /// The hot node.
        node: u32,
        /// h: the fraction of messages sent to the hot node.
        fraction: f64,
    },
    /// A fixed map from source to destination (a permutation for all but neighbor/tornado on
    /// some radices); a node mapped onto itself sends no pattern message.
    Map(Vec<u32>),
    /// Each processor of a group sends to a random processor of the next group: processor
    /// ids are counted group by group, `size` per group, `groups` groups.
    GroupShift {
        /// Processors per group.
        size: u32,
        /// Groups.
        groups: u32,
    },
    /// Locality: a destination at distance r has weight `weights[r]` (r ≥ 1).
    ByDistance {
        /// Weight of each distance in hops, indexed by distance up to the diameter (0 at r = 0).
        weights: Vec<f64>,
        /// The probability of a local (weighted) destination; otherwise uniform.
        local: f64,
        /// Nodes at each distance from a source, to draw among them uniformly.
        tables: Tables,
    },
    /// A traffic matrix: row s's cumulative probabilities (`m[s][d]/rowsum(s)` summed up to d,
    /// the last exactly 1), N per row, rows one after another; a zero row is all zeros.
    Matrix {
        /// N, the processors.
        n: usize,
        /// The rows' cumulative probabilities.
        cdf: Vec<f64>,
        /// The rows' probabilities m\[s\]\[d\]/rowsum(s), laid out as `cdf`.
        probs: Vec<f64>,
    },
}

/// Distance tables: one shared by every source of a vertex-transitive network (torus,
/// hypercube), else one per source, built when first needed.
#[derive(Clone)]
pub enum Tables {
    Shared(DistanceTable),
    PerSource(Vec<Option<DistanceTable>>),
}

impl Destinations {
    /// Pattern `p` built for the processors' grid `t`; `seed` draws a permutation's map.
    pub fn new(p: &Pattern, t: &Addresses, seed: u64) -> Destinations {
        let n = t.nodes as u32;
        let map = |f: &dyn Fn(u32) -> u32| Destinations::Map((0..n).map(f).collect());
        let coords = |node: u32| -> Vec<u32> { (0..t.n()).map(|d| t.coord(node, d)).collect() };
        let index = |c: &[u32]| -> u32 {
            c.iter()
                .zip(&t.radix)
                .rev()
                .fold(0, |acc, (&a, &k)| acc * k + a)
        };
        let bits = n.trailing_zeros();
        match p {
            Pattern::Uniform => Destinations::Uniform,
            Pattern::Hotspot { node, fraction } => Destinations::Hotspot {
                node: *node,
                fraction: *fraction,
            },
            // Paper 002: x1 x2 ... xn → xn ... x2 x1 on the n-bit address.
            Pattern::BitReversal => map(&|x| x.reverse_bits() >> (32 - bits)),
            Pattern::MatrixTranspose if n.is_power_of_two() => {
                // Paper 002: the two halves of the address swap; for an odd number of bits the
                // address rotates by ⌊n/2⌋ (a single cycle of bit positions).
                let r = bits / 2;
                let mask = n - 1;
                map(&|x| ((x << r) | (x >> (bits - r))) & mask)
            }
            Pattern::MatrixTranspose => {
                let r = t.n() / 2;
                map(&|x| {
                    let c = coords(x);
                    let mut d = vec![0; c.len()];
                    for (i, &a) in c.iter().enumerate() {
                        d[(i + r) % c.len()] = a;
                    }
                    index(&d)
                })
            }
            Pattern::BitComplement => map(&|x| {
                let c: Vec<u32> = coords(x)
                    .iter()
                    .zip(&t.radix)
                    .map(|(&a, &k)| k - 1 - a)
                    .collect();
                index(&c)
            }),
            Pattern::Tornado => map(&|x| {
                let c: Vec<u32> = coords(x)
                    .iter()
                    .zip(&t.radix)
                    .map(|(&a, &k)| (a + k.div_ceil(2) - 1) % k)
                    .collect();
                index(&c)
            }),
            Pattern::Neighbor => map(&|x| {
                let c: Vec<u32> = coords(x)
                    .iter()
                    .zip(&t.radix)
                    .map(|(&a, &k)| (a + 1) % k)
                    .collect();
                index(&c)
            }),
            Pattern::Shift { offset } => map(&|x| (x + offset) % n),
            // The group is the processors' last coordinate (a dragonfly's address space).
            Pattern::GroupShift => {
                let groups = *t.radix.last().expect("a grid has dimensions");
                Destinations::GroupShift {
                    size: n / groups,
                    groups,
                }
            }
            Pattern::Permutation => {
                let mut rng = Pcg64::seed_from_u64(super::mix_seed(seed, 0x9E2_3A71));
                let mut perm: Vec<u32> = (0..n).collect();
                for i in (1..n as usize).rev() {
                    let j = rng.gen_range(0..=i);
                    perm.swap(i, j);
                }
                Destinations::Map(perm)
            }
            Pattern::Matrix => unreachable!("a traffic matrix is built by Destinations::matrix"),
            Pattern::Locality(l) => {
                let diameter = t.diameter() as usize;
                let (weights, local) = match *l {
                    // Reed and Fujimoto's decreasing probability: weight φ^(r-1) at distance r.
                    Locality::Decreasing { factor } => (
                        (0..=diameter)
                            .map(|r| {
                                if r == 0 {
                                    0.0
                                } else {
                                    factor.powi(r as i32 - 1)
                                }
                            })
                            .collect(),
                        1.0,
                    ),
                    Locality::Sphere {
                        radius,
                        probability,
                    } => (
                        (0..=diameter)
                            .map(|r| {
                                if r >= 1 && r <= radius as usize {
                                    1.0
                                } else {
                                    0.0
                                }
                            })
                            .collect(),
                        probability,
                    ),
                };
                let tables = if t.kind == Kind::Mesh {
                    Tables::PerSource(vec![None; n as usize])
                } else {
                    Tables::Shared(DistanceTable::new(t, 0))
                };
                Destinations::ByDistance {
                    weights,
                    local,
                    tables,
                }
            }
        }
    }

    /// Traffic matrix `m`'s destinations: from s to d with probability m\[s\]\[d\]/rowsum(s).
    pub fn matrix(m: &crate::spec::TrafficMatrix) -> Destinations {
        let mut cdf = Vec::with_capacity(m.cells.len());
        let mut probs = Vec::with_capacity(m.cells.len());
        for s in 0..m.n {
            let row = m.row(s);
            let sum: f64 = row.iter().sum();
            let mut acc = 0.0;
            for (d, &x) in row.iter().enumerate() {
                acc += x;
                probs.push(if sum > 0.0 { x / sum } else { 0.0 });
                // The last positive cell's cumulative is exactly 1, whatever the rounding.
                let last = row[d + 1..].iter().all(|&y| y == 0.0);
                cdf.push(match sum > 0.0 {
                    false => 0.0,
                    true if last => 1.0,
                    true => acc / sum,
                });
            }
        }
        Destinations::Matrix { n: m.n, cdf, probs }
    }

    /// The destination of a pattern message from `src`, or None when the pattern sends
    /// nothing from there (a node mapped onto itself, the hot node's own hotspot share).
    #[inline]
    pub fn sample(&mut self, t: &Addresses, src: u32, rng: &mut Pcg64) -> Option<u32> {
        match self {
            Destinations::Uniform => Some(uniform(t.nodes as u32, src, rng)),
            Destinations::Hotspot { node, fraction } => {
                if rng.gen_bool(*fraction) {
                    (src != *node).then_some(*node)
                } else {
                    Some(uniform(t.nodes as u32, src, rng))
                }
            }
            Destinations::Map(m) => {
                let d = m[src as usize];
                (d != src).then_some(d)
            }
            Destinations::GroupShift { size, groups } => {
                let d = (src / *size + 1) % *groups * *size + rng.gen_range(0..*size);
                (d != src).then_some(d)
            }
            Destinations::ByDistance {
                weights,
                local,
                tables,
            } => {
                if *local < 1.0 && !rng.gen_bool(*local) {
                    return Some(uniform(t.nodes as u32, src, rng));
                }
                let origin = match tables {
                    Tables::Shared(_) => 0,
                    Tables::PerSource(_) => src,
                };
                let table = table_of(tables, t, src);
                let counts = table.counts();
                let total: f64 = (1..counts.len())
                    .map(|r| counts[r] as f64 * weights[r])
                    .sum();
                let mut x = rng.gen_range(0.0..total);
                let mut r = counts.len() - 1;
                for (rr, &c) in counts.iter().enumerate().skip(1) {
                    let w = c as f64 * weights[rr];
                    if x < w {
                        r = rr;
                        break;
                    }
                    x -= w;
                }
                while weights[r] == 0.0 || counts[r] == 0 {
                    r -= 1;
                }
                let v = table.draw_at(t, origin, r, rng);
                Some(translate(t, v, origin, src))
            }
            Destinations::Matrix { n, cdf, .. } => {
                let row = &cdf[src as usize * *n..(src as usize + 1) * *n];
                let u: f64 = rng.r#gen();
                // The first cell whose cumulative exceeds u: never a zero cell.
                let d = row.partition_point(|&c| c <= u);
                (d < *n).then_some(d as u32)
            }
        }
    }

    /// The probability that a pattern message from `src` is sent at all.
    pub fn sent_probability(&self, src: u32) -> f64 {
        match self {
            Destinations::Hotspot { node, fraction } if *node == src => 1.0 - fraction,
            Destinations::Map(m) if m[src as usize] == src => 0.0,
            Destinations::GroupShift { size, groups: 1 } => 1.0 - 1.0 / *size as f64,
            _ => 1.0,
        }
    }

    /// Exact probabilities of each destination of a pattern message from `src`; they sum to
    /// the probability that a pattern message is sent at all.
    pub fn distribution(&self, t: &Addresses, src: u32) -> Vec<(u32, f64)> {
        let n = t.nodes as u32;
        let uniform_all = |scale: f64| -> Vec<(u32, f64)> {
            (0..n)
                .filter(|&d| d != src)
                .map(|d| (d, scale / (n - 1) as f64))
                .collect()
        };
        match self {
            Destinations::Uniform => uniform_all(1.0),
            Destinations::Hotspot { node, fraction } => {
                let mut v = uniform_all(1.0 - fraction);
                if src != *node {
                    v.iter_mut()
                        .filter(|(d, _)| d == node)
                        .for_each(|(_, p)| *p += fraction);
                }
                v
            }
            Destinations::Map(m) => {
                let d = m[src as usize];
                if d == src { vec![] } else { vec![(d, 1.0)] }
            }
            Destinations::GroupShift { size, groups } => {
                let first = (src / size + 1) % groups * size;
                (first..first + size)
                    .filter(|&d| d != src)
                    .map(|d| (d, 1.0 / *size as f64))
                    .collect()
            }
            Destinations::ByDistance { weights, local, .. } => {
                let table = DistanceTable::new(t, src);
                let counts = table.counts();
                let total: f64 = (1..counts.len())
                    .map(|r| counts[r] as f64 * weights[r])
                    .sum();
                let mut v = uniform_all(1.0 - local);
                for (d, p) in v.iter_mut() {
                    *p += local * weights[t.distance(src, *d) as usize] / total;
                }
                v
            }
            Destinations::Matrix { n, probs, .. } => probs[src as usize * *n..]
                .iter()
                .take(*n)
                .enumerate()
                .filter(|&(_, &p)| p > 0.0)
                .map(|(d, &p)| (d as u32, p))
                .collect(),
        }
    }
}

/// Uniform over the other nodes.
#[inline]
pub fn uniform(nodes: u32, src: u32, rng: &mut Pcg64) -> u32 {
    let d = rng.gen_range(0..nodes - 1);
    if d >= src { d + 1 } else { d }
}

fn table_of<'a>(tables: &'a mut Tables, t: &Addresses, src: u32) -> &'a DistanceTable {
    match tables {
        Tables::Shared(table) => table,
        Tables::PerSource(v) => v[src as usize].get_or_insert_with(|| DistanceTable::new(t, src)),
    }
}

/// Moves `v`, drawn relative to `origin`, to the same offsets from `src` (vertex-transitive
/// networks: torus and hypercube, where the offsets of a node from another are a group).
fn translate(t: &Addresses, v: u32, origin: u32, src: u32) -> u32 {
    if origin == src {
        return v;
    }
    let mut node = 0;
    let mut stride = 1;
    for d in 0..t.n() {
        let k = t.radix[d];
        let off = (t.coord(v, d) + k - t.coord(origin, d)) % k;
        let c = if t.kind == Kind::Hypercube {
            t.coord(src, d) ^ off
        } else {
            (t.coord(src, d) + off) % k
        };
        node += c * stride;
        stride *= k;
    }
    node
}
