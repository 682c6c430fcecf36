//! k-ary m-way networks (paper 004): m-way channels joined by m-way routers of degree 2.
//!
//! flitsim builds one as the dual of a k-ary n-cube (paper 004 section 2): the k^n m-way
//! channels are the vertices of a bidirectional torus or mesh of channel addresses
//! `a_{n-1} … a_0` (section 2.1), and each m-way router between adjacent channels c_i and c_j is
//! the pair of opposite "links" of that graph: its buffer set (c_i, c_j) carries flits from c_i
//! to c_j and its buffer set (c_j, c_i) back (Definition 1). The m-way hypercube is the 2-ary
//! m-way mesh: each channel has one router per dimension. Processors are linked to channels,
//! `p` per channel (m = 2n + p), or sit inside routers (m = 2n) and then inject into and eject
//! from both of their router's channels.

use super::{Dir, KAryNCube, Kind, Properties};
pub use crate::spec::Placement;

/// A k-ary m-way network: its channel graph, its processors and the channels each one is
/// linked to.
#[derive(Clone, Debug)]
pub struct MWay {
    /// The channel graph: vertices are m-way channels, links are buffer sets.
    pub graph: KAryNCube,
    /// Where processors are linked.
    pub placement: Placement,
    /// Message sources and sinks.
    pub processors: u32,
    /// Channels per processor: 1 on channels, 2 inside routers.
    pub attach: u32,
    /// `chans[p * attach + j]`: the j-th channel processor p is linked to.
    pub chans: Vec<u32>,
    /// Processors inside routers: `shares[p * 2 + j]` is the link (buffer set) of p's router
    /// that drives channel `chans[p * 2 + j]`; p's injection buffer there uses the same channel
    /// interface. Empty for processors on channels.
    pub shares: Vec<u32>,
}

impl MWay {
    /// Links processors to the channels of `graph`, the channel graph.
    pub fn new(graph: KAryNCube, placement: Placement) -> MWay {
        let topo = &graph;
        let (processors, attach, chans, shares) = match placement {
            Placement::Channels(p) => (
                topo.nodes as u32 * p,
                1,
                (0..topo.nodes as u32 * p).map(|x| x / p).collect(),
                Vec::new(),
            ),
            Placement::Routers => {
                // Router i is the i-th Plus link of the channel graph, between its two ends; its
                // buffer set driving the first end is the opposite link.
                let plus = topo
                    .links
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| l.dir == Dir::Plus);
                let (mut chans, mut shares) = (Vec::new(), Vec::new());
                for (i, l) in plus {
                    chans.extend([l.src, l.dst]);
                    shares.extend([topo.out_link(l.dst, l.dim as usize, Dir::Minus), i as u32]);
                }
                (chans.len() as u32 / 2, 2, chans, shares)
            }
        };
        MWay {
            graph,
            placement,
            processors,
            attach,
            chans,
            shares,
        }
    }

    /// m-way routers: one per pair of opposite links of the channel graph.
    pub fn routers(&self) -> usize {
        self.graph.links.len() / 2
    }

    /// Channels processor p is linked to.
    #[inline]
    pub fn channels_of(&self, p: u32) -> &[u32] {
        let a = self.attach as usize;
        &self.chans[p as usize * a..p as usize * a + a]
    }

    /// Routers a message from processor s to processor t passes at least (the channel
    /// distance between their nearest channels); its zero-load latency is M plus this.
    pub fn routers_passed(&self, s: u32, t: u32) -> u32 {
        let topo = &self.graph;
        let mut best = u32::MAX;
        for &a in self.channels_of(s) {
            for &b in self.channels_of(t) {
                best = best.min(topo.distance(a, b));
            }
        }
        best
    }

    /// Each channel's ways: the routers and the processors linked to it (a processor inside a
    /// router uses its router's interface).
    pub fn ways(&self) -> Vec<u32> {
        let topo = &self.graph;
        let mut ways = vec![0u32; topo.nodes];
        for l in &topo.links {
            ways[l.src as usize] += 1;
        }
        if self.shares.is_empty() {
            for &c in &self.chans {
                ways[c as usize] += 1;
            }
        }
        ways
    }

    /// The sharing factor m: the most ways of one channel.
    pub fn sharing_factor(&self) -> u32 {
        self.ways().into_iter().max().unwrap_or(0)
    }

    /// Paper 004 Fig. 3's properties of the built network. Distances count channel crossings
    /// (the paper's measure: routers passed + 1), over ordered pairs of distinct processors.
    pub fn properties(&self) -> Properties {
        let topo = &self.graph;
        let (diameter, mean_passed) = self.distances();
        let wrap = match topo.kind {
            Kind::Torus => "torus",
            Kind::Mesh => "mesh",
            Kind::Hypercube => "hypercube",
        };
        let placement = match self.placement {
            Placement::Channels(p) => format!("channels (p = {p})"),
            Placement::Routers => "routers".to_string(),
        };
        Properties {
            topology: format!("k-ary m-way {wrap}"),
            radix: topo.radix.clone(),
            levels: None,
            links: None,
            processors_on: Some(placement),
            m: Some(self.sharing_factor()),
            processors: self.processors as u64,
            routers: self.routers() as u64,
            channels: topo.nodes as u64,
            degree: 2,
            diameter: diameter + 1,
            mean_distance: mean_passed + 1.0,
            mean_hops: Some(mean_passed),
        }
    }

    /// The largest and the mean number of routers passed between distinct processors.
    fn distances(&self) -> (u32, f64) {
        let topo = &self.graph;
        let procs = self.processors as f64;
        if procs < 2.0 {
            return (0, 0.0);
        }
        match self.placement {
            Placement::Channels(p) => {
                // p² ordered processor pairs per ordered channel pair; same-channel pairs pass 0.
                let c = topo.nodes as f64;
                let sum = topo.mean_distance() * c * (c - 1.0) * (p * p) as f64;
                let diameter = if topo.nodes > 1 { topo.diameter() } else { 0 };
                (diameter, sum / (procs * (procs - 1.0)))
            }
            Placement::Routers => self.router_distances(),
        }
    }

    /// Routers inside routers: the two channels of a router differ in its own dimension only,
    /// so the nearest-channel distance is a sum over dimensions of 1-D minima, and for each pair
    /// of router dimensions the dimensions are independent (exact, no enumeration of pairs).
    fn router_distances(&self) -> (u32, f64) {
        let topo = &self.graph;
        let n = topo.n();
        let wraps = topo.wraps();
        let dist = |d: usize, a: u32, b: u32| topo.dim_route(d, a, b).1;
        // Per dimension: (count, sum, max) of the 1-D minimum for single/pair coordinate sets.
        let stats = |d: usize, s_pair: bool, t_pair: bool| -> (f64, f64, u32) {
            let k = topo.radix[d];
            let pos = |pair: bool| -> Vec<Vec<u32>> {
                if pair {
                    let r = if wraps { k } else { k - 1 };
                    (0..r).map(|x| vec![x, (x + 1) % k]).collect()
                } else {
                    (0..k).map(|x| vec![x]).collect()
                }
            };
            let (ss, ts) = (pos(s_pair), pos(t_pair));
            let (mut sum, mut max) = (0u64, 0u32);
            for a in &ss {
                for b in &ts {
                    let m = a
                        .iter()
                        .flat_map(|&x| b.iter().map(move |&y| (x, y)))
                        .map(|(x, y)| dist(d, x, y))
                        .min()
                        .unwrap();
                    sum += m as u64;
                    max = max.max(m);
                }
            }
            ((ss.len() * ts.len()) as f64, sum as f64, max)
        };
        let mut total = 0.0;
        let mut diameter = 0;
        for ds in 0..n {
            for dt in 0..n {
                let per: Vec<_> = (0..n).map(|e| stats(e, e == ds, e == dt)).collect();
                let pairs: f64 = per.iter().map(|p| p.0).product();
                total += per.iter().map(|p| p.1 * pairs / p.0).sum::<f64>();
                diameter = diameter.max(per.iter().map(|p| p.2).sum());
            }
        }
        let procs = self.processors as f64;
        (diameter, total / (procs * (procs - 1.0)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(mw: &MWay) -> (u32, f64) {
        let (mut max, mut sum) = (0, 0u64);
        for s in 0..mw.processors {
            for t in 0..mw.processors {
                if s != t {
                    let d = mw.routers_passed(s, t);
                    max = max.max(d);
                    sum += d as u64;
                }
            }
        }
        let p = mw.processors as f64;
        (max, sum as f64 / (p * (p - 1.0)))
    }

    #[test]
    fn distances_match_enumeration() {
        for (kind, radix) in [
            (Kind::Torus, vec![5, 5]),
            (Kind::Torus, vec![4, 3, 4]),
            (Kind::Mesh, vec![4, 4]),
            (Kind::Mesh, vec![3, 5]),
            (Kind::Hypercube, vec![2; 4]),
        ] {
            let topo = KAryNCube::new(kind, radix, true);
            for placement in [
                Placement::Routers,
                Placement::Channels(1),
                Placement::Channels(3),
            ] {
                let mw = MWay::new(topo.clone(), placement);
                let (d, mean) = mw.distances();
                let (bd, bmean) = brute(&mw);
                assert_eq!(d, bd, "{kind:?} {placement:?}");
                assert!((mean - bmean).abs() < 1e-9, "{kind:?} {placement:?}");
            }
        }
    }
}
