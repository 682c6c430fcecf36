//! Destinations by distance: the number of nodes at each distance from a source, and a uniform
//! draw among the nodes at a given distance, by dynamic programming over the dimensions (the
//! distance is a sum of independent per-dimension distances). Used by the locality patterns.

use super::Addresses;
use rand::Rng;
use rand_pcg::Pcg64;

/// Distance tables of one source.
#[derive(Clone, Debug)]
pub struct DistanceTable {
    /// `per_dim[d][δ]`: coordinates in dimension d at distance δ from the source's.
    per_dim: Vec<Vec<u64>>,
    /// `ways[d][r]`: combinations of dimensions d.. whose distances sum to r.
    ways: Vec<Vec<u64>>,
}

impl DistanceTable {
    /// The tables of source processor `src` on `t`: per dimension, coordinates at each distance.
    pub fn new(t: &Addresses, src: u32) -> DistanceTable {
        let n = t.n();
        let per_dim: Vec<Vec<u64>> = (0..n)
            .map(|d| {
                let a = t.coord(src, d);
                let mut c = Vec::new();
                for b in 0..t.radix[d] {
                    let delta = t.dim_route(d, a, b).1 as usize;
                    if delta >= c.len() {
                        c.resize(delta + 1, 0);
                    }
                    c[delta] += 1;
                }
                c
            })
            .collect();
        let max: usize = per_dim.iter().map(|c| c.len() - 1).sum();
        let mut ways = vec![vec![0u64; max + 1]; n + 1];
        ways[n][0] = 1;
        for d in (0..n).rev() {
            for r in 0..=max {
                ways[d][r] = per_dim[d]
                    .iter()
                    .enumerate()
                    .filter(|&(delta, _)| delta <= r)
                    .map(|(delta, &c)| c * ways[d + 1][r - delta])
                    .sum();
            }
        }
        DistanceTable { per_dim, ways }
    }

    /// Nodes at distance r from the source, r = 0..=diameter (r = 0: the source itself).
    pub fn counts(&self) -> &[u64] {
        &self.ways[0]
    }

    /// A node at distance `r` from `src`, uniformly among them.
    pub fn draw_at(&self, t: &Addresses, src: u32, r: usize, rng: &mut Pcg64) -> u32 {
        let mut left = r;
        let mut node = 0u32;
        let mut stride = 1u32;
        for d in 0..t.n() {
            let total = self.ways[d][left];
            let mut x = rng.gen_range(0..total);
            let mut delta = 0;
            for (dl, &c) in self.per_dim[d].iter().enumerate() {
                if dl > left {
                    break;
                }
                let w = c * self.ways[d + 1][left - dl];
                if x < w {
                    delta = dl;
                    break;
                }
                x -= w;
            }
            let a = t.coord(src, d);
            let k = t.radix[d];
            let at_delta = |b: &u32| t.dim_route(d, a, *b).1 as usize == delta;
            let choices = (0..k).filter(at_delta).count();
            let pick = rng.gen_range(0..choices);
            let b = (0..k)
                .filter(at_delta)
                .nth(pick)
                .expect("a coordinate at that distance");
            node += b * stride;
            stride *= k;
            left -= delta;
        }
        node
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Kind;
    use rand::SeedableRng;

    #[test]
    fn counts_match_enumeration_and_draws_hit_the_distance() {
        for t in [
            Addresses::grid(Kind::Mesh, vec![5, 3], true),
            Addresses::grid(Kind::Torus, vec![5, 4], false),
            Addresses::grid(Kind::Torus, vec![6, 5], true),
            Addresses::grid(Kind::Hypercube, vec![2; 5], true),
        ] {
            let mut rng = Pcg64::seed_from_u64(3);
            for src in 0..t.nodes as u32 {
                let table = DistanceTable::new(&t, src);
                let mut want = vec![0u64; table.counts().len()];
                for b in 0..t.nodes as u32 {
                    want[t.distance(src, b) as usize] += 1;
                }
                assert_eq!(table.counts(), &want[..]);
                for (r, &c) in want.iter().enumerate() {
                    if c > 0 {
                        let v = table.draw_at(&t, src, r, &mut rng);
                        assert_eq!(t.distance(src, v) as usize, r);
                    }
                }
            }
        }
    }
}
