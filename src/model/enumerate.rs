//! Exact enumeration over every source-destination pair of a traffic pattern: hop
//! distributions and dimension-order channel rates. Where a paper's closed form is garbled
//! (paper 002 eqs. 8-9, 12-15, 20-21) or only a class average (paper 002 eq. 5), these are the
//! reference.

use crate::network::Network;
use crate::routing::{Dor, Tie};
use crate::topology::KAryNCube;
use crate::traffic::Traffic;

/// Probability that a sent message makes h hops, h = 0..=diameter, over all sources (each
/// source weighted by how often it sends), processor i on router ⌊i / c⌋.
pub fn hop_distribution(topo: &KAryNCube, traffic: &Traffic) -> Vec<f64> {
    let mut p = vec![0.0; topo.diameter() as usize + 1];
    let mut total = 0.0;
    let c = topo.concentration.per_router;
    for s in 0..topo.nodes as u32 * c {
        for (d, q) in traffic.distribution(s) {
            p[topo.distance(s / c, d / c) as usize] += q;
            total += q;
        }
    }
    p.iter_mut().for_each(|x| *x /= total);
    p
}

/// Mean distance of a sent message.
pub fn mean_distance(topo: &KAryNCube, traffic: &Traffic) -> f64 {
    hop_distribution(topo, traffic)
        .iter()
        .enumerate()
        .map(|(h, p)| h as f64 * p)
        .sum()
}

/// Expected messages per cycle crossing each network link under dimension-order routing when
/// every processor generates λ messages per cycle: Σ over sources s and destinations d of
/// λ · P(s sends to d) · [the link is on the route from s's router to d's]. Under `Tie::Random` a pair
/// half-way round j rings takes each of its 2^j routes with probability 2^−j.
pub fn dor_link_rates(net: &Network, traffic: &Traffic, lambda: f64, tie: Tie) -> Vec<f64> {
    let t = net.cube();
    let mut rate = vec![0.0; net.links as usize];
    for src in 0..net.nodes {
        let s = net.proc_at[src as usize];
        for (dst, q) in traffic.distribution(src) {
            let d = net.target(s, dst);
            // The dimensions where s and d are exactly half-way round.
            let ties: u32 = match tie {
                Tie::Plus => 0,
                Tie::Random if t.has_ties() => (0..t.n())
                    .filter(|&i| 2 * t.dim_route(i, t.coord(s, i), t.coord(d, i)).1 == t.radix[i])
                    .fold(0, |m, i| m | 1 << i),
                Tie::Random => 0,
            };
            let share = lambda * q / (1u64 << ties.count_ones()) as f64;
            // Every subset of the tie dimensions, each one route (submask enumeration).
            let mut sub = ties;
            loop {
                let mut at = s;
                while let Some(link) = Dor::next_link(net, at, d, sub) {
                    rate[link as usize] += share;
                    at = net.link(link).dst;
                }
                if sub == 0 {
                    break;
                }
                sub = (sub - 1) & ties;
            }
        }
    }
    rate
}

/// Expected messages per cycle on each network link (by link id) under a topology's minimal
/// routing (its `dimension_order_link`: a dragonfly's local, global, local), at λ = `lambda`
/// messages/node/cycle, from every processor's exact destination distribution.
pub fn minimal_link_rates(net: &Network, traffic: &Traffic, lambda: f64) -> Vec<f64> {
    let mut rate = vec![0.0; net.links as usize];
    for s in 0..net.nodes {
        let from = net.proc_at[(s * net.attach) as usize];
        for (d, q) in traffic.distribution(s) {
            let (mut at, to) = (from, net.target(from, d));
            while let Some(link) = net.topology.dimension_order_link(at, to, 0) {
                rate[link as usize] += lambda * q;
                at = net.link(link).dst;
            }
        }
    }
    rate
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Pattern, TrafficSpec};
    use crate::topology::Kind;

    fn traffic(topo: &KAryNCube, pattern: Pattern) -> Traffic {
        let spec = TrafficSpec {
            pattern,
            lengths: vec![8],
            rates: vec![0.01],
            ..Default::default()
        };
        Traffic::new(&spec, crate::traffic::Addresses::of(topo), 1)
    }

    #[test]
    fn uniform_hypercube_channels_carry_lambda_dbar_over_n() {
        let topo = KAryNCube::new(Kind::Hypercube, vec![2; 5], true);
        let t = traffic(&topo, Pattern::Uniform);
        let net = Network::new(topo.clone(), 1, 4);
        let dbar = 5.0 / 2.0 * 32.0 / 31.0;
        assert!((mean_distance(&topo, &t) - dbar).abs() < 1e-12);
        for r in dor_link_rates(&net, &t, 0.01, Tie::Plus) {
            assert!((r - 0.01 * dbar / 5.0).abs() < 1e-12);
        }
    }

    #[test]
    fn bit_reversal_on_a_4_cube() {
        // 16 sources: 4 palindromes map onto themselves; of the other 12, 8 are 2 hops away
        // from their reversal and 4 are 4 hops away (paper 002 eq. 7, over N - n0 sources).
        let topo = KAryNCube::new(Kind::Hypercube, vec![2; 4], true);
        let t = traffic(&topo, Pattern::BitReversal);
        let p = hop_distribution(&topo, &t);
        assert_eq!(p.len(), 5);
        assert!((p[2] - 8.0 / 12.0).abs() < 1e-12 && (p[4] - 4.0 / 12.0).abs() < 1e-12);
        assert!((t.offered_fraction() - 12.0 / 16.0).abs() < 1e-12);
    }
}
