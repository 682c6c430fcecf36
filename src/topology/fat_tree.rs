//! The fat tree as the k-ary n-tree (Petrini and Vanneschi, 1997): k^n processors and n levels
//! of k^(n-1) switches; every switch has k down ports and k up ports, the top level only down
//! ports.
//!
//! Numbering. Processor p has n base-k digits p_0 … p_{n-1} (p_0 least significant). Switch
//! (l, w), level l in 0..n (0 the leaves), label w of n − 1 base-k digits w_0 … w_{n-2}, is
//! router `l · k^(n-1) + w`. Leaf (0, w) attaches the k processors p with p / k = w (down port
//! p_0). Wiring, the k-ary n-tree's butterfly rule: switch (l, w), l < n − 1, links up port j
//! to switch (l + 1, w') with w' = w but digit l set to j, and (l + 1, w') links down port
//! w_l back to it. So a switch at level l has below it the k^(l+1) processors p with
//! p_{i+1} = w_i for every i ≥ l, and the k^l switches of level l that share its digits
//! l … n − 2 have the same processors below them.
//!
//! Links: `dim` is the level of the lower switch, `dir` is `Plus` going up and `Minus` going
//! down, `wrap` is false. Each switch's up link j and the matching down link are numbered
//! together, level by level, switch by switch.

use super::{Dir, Link, Properties};

/// A k-ary n-tree of switches, with k processors on each leaf switch.
#[derive(Clone, Debug)]
pub struct FatTree {
    /// Ports each way (k).
    pub k: u32,
    /// Levels of switches (n).
    pub n: u32,
    /// Every unidirectional link: per level, switch and up port, the up link then its reverse.
    pub links: Vec<Link>,
    /// `out[r * 2k + j]`: switch r's link out of down port j; `out[r * 2k + k + j]`: out of up
    /// port j (`u32::MAX` where the port is a processor's or absent).
    out: Vec<u32>,
    /// `pow[i]` = k^i, i in 0..=n.
    pow: Vec<u32>,
    /// The leaf switch of each processor (p / k).
    pub leaf: Vec<u32>,
}

impl FatTree {
    /// Builds the k-ary n-tree (k ≥ 2, n ≥ 1).
    pub fn new(k: u32, n: u32) -> FatTree {
        let pow: Vec<u32> = (0..=n).map(|i| k.pow(i)).collect();
        let per_level = pow[n as usize - 1];
        let routers = (n * per_level) as usize;
        let ku = k as usize;
        let mut out = vec![u32::MAX; routers * 2 * ku];
        let mut links = Vec::with_capacity(2 * (n as usize - 1) * pow[n as usize] as usize);
        for l in 0..n.saturating_sub(1) {
            let stride = pow[l as usize];
            for w in 0..per_level {
                let lower = l * per_level + w;
                let base = w - (w / stride % k) * stride;
                for j in 0..k {
                    // Up port j of (l, w) reaches (l + 1, w with digit l = j), whose down port
                    // w_l comes back (Petrini and Vanneschi's k-ary n-tree).
                    let upper = (l + 1) * per_level + base + j * stride;
                    let down_port = w / stride % k;
                    out[lower as usize * 2 * ku + ku + j as usize] = links.len() as u32;
                    links.push(Link {
                        src: lower,
                        dst: upper,
                        dim: l as u8,
                        dir: Dir::Plus,
                        wrap: false,
                    });
                    out[upper as usize * 2 * ku + down_port as usize] = links.len() as u32;
                    links.push(Link {
                        src: upper,
                        dst: lower,
                        dim: l as u8,
                        dir: Dir::Minus,
                        wrap: false,
                    });
                }
            }
        }
        let leaf = (0..pow[n as usize]).map(|p| p / k).collect();
        FatTree {
            k,
            n,
            links,
            out,
            pow,
            leaf,
        }
    }

    /// Bytes of its links and link tables.
    pub fn heap_bytes(&self) -> u64 {
        (self.links.capacity() * std::mem::size_of::<Link>()
            + (self.out.capacity() + self.pow.capacity() + self.leaf.capacity()) * 4) as u64
    }

    /// Switches: n · k^(n-1).
    pub fn routers(&self) -> usize {
        (self.n * self.per_level()) as usize
    }

    /// Processors: k^n.
    pub fn processors(&self) -> usize {
        self.pow[self.n as usize] as usize
    }

    /// Switches per level: k^(n-1).
    #[inline]
    fn per_level(&self) -> u32 {
        self.pow[self.n as usize - 1]
    }

    /// Switch r's level and label.
    #[inline]
    pub fn level_label(&self, r: u32) -> (u32, u32) {
        let s = self.per_level();
        (r / s, r % s)
    }

    /// True when processor p is below switch r: p's leaf label agrees with r's label in
    /// digits l … n − 2, l the switch's level.
    #[inline]
    pub fn below(&self, r: u32, p: u32) -> bool {
        let (l, w) = self.level_label(r);
        let stride = self.pow[l as usize];
        p / self.k / stride == w / stride
    }

    /// Digit i of processor p (p_i).
    #[inline]
    pub fn digit(&self, p: u32, i: u32) -> u32 {
        p / self.pow[i as usize] % self.k
    }

    /// The link out of switch r's down port j (r above level 0).
    #[inline]
    pub fn down_link(&self, r: u32, j: u32) -> u32 {
        self.out[(r * 2 * self.k + j) as usize]
    }

    /// The link out of switch r's up port j (r below the top level).
    #[inline]
    pub fn up_link(&self, r: u32, j: u32) -> u32 {
        self.out[(r * 2 * self.k + self.k + j) as usize]
    }

    /// The level of the nearest common ancestors of processors a and b: the highest digit in
    /// which they differ (0 when they share a leaf switch).
    pub fn nca_level(&self, a: u32, b: u32) -> u32 {
        (0..self.n)
            .rev()
            .find(|&i| self.digit(a, i) != self.digit(b, i))
            .unwrap_or(0)
    }

    /// Minimal number of links between switches a and b. Crossing levels i and i + 1 is the
    /// only way to change label digit i, so a shortest walk covers the levels from
    /// m = min(l_a, l_b, lowest differing digit) to L = max(l_a, l_b, highest differing digit
    /// + 1), going down then up then down, or up then down then up.
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        let ((la, wa), (lb, wb)) = (self.level_label(a), self.level_label(b));
        let differ =
            |i: &u32| wa / self.pow[*i as usize] % self.k != wb / self.pow[*i as usize] % self.k;
        let digits = 0..self.n - 1;
        let lo = digits
            .clone()
            .find(differ)
            .map_or(la.min(lb), |i| i.min(la).min(lb));
        let hi = digits
            .rev()
            .find(differ)
            .map_or(la.max(lb), |i| (i + 1).max(la).max(lb));
        let down_first = (la - lo) + (hi - lo) + (hi - lb);
        let up_first = (hi - la) + (hi - lo) + (lb - lo);
        down_first.min(up_first)
    }

    /// The largest number of links between the leaf switches of two processors: 2(n − 1).
    pub fn diameter(&self) -> u32 {
        2 * (self.n - 1)
    }

    /// Processors k^n, switches n·k^(n-1), channels (network links) 2(n − 1)k^n, degree (the
    /// most network links a switch drives: 2k, k when n = 2, 0 when n = 1), diameter 2(n − 1)
    /// links between leaf switches, and the mean over ordered pairs of distinct processors of
    /// the links crossed, 2L for nearest common ancestors at level L:
    /// Σ_{L=1}^{n-1} 2L (k − 1) k^L / (k^n − 1).
    pub fn properties(&self) -> Properties {
        let (k, n) = (self.k as f64, self.n);
        let big_n = self.processors() as f64;
        let sum: f64 = (1..n)
            .map(|l| 2.0 * l as f64 * (k - 1.0) * k.powi(l as i32))
            .sum();
        Properties {
            topology: "fat-tree".to_string(),
            radix: Vec::new(),
            shape: vec![
                ("radix", self.k.to_string()),
                ("levels", self.n.to_string()),
            ],
            links: None,
            processors_on: None,
            m: None,
            processors: self.processors() as u64,
            routers: self.routers() as u64,
            channels: self.links.len() as u64,
            channels_by_kind: Vec::new(),
            degree: match n {
                1 => 0,
                2 => self.k,
                _ => 2 * self.k,
            },
            diameter: self.diameter(),
            mean_distance: sum / (big_n - 1.0),
            mean_hops: None,
        }
    }
}
