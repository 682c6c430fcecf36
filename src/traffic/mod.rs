//! Traffic: message generation (each node generates messages independently at λ
//! messages/cycle, by a Poisson process, the papers' assumption a, or a Bernoulli process),
//! destination patterns and message lengths.

mod addresses;
mod locality;
mod pattern;

pub use addresses::Addresses;
pub use locality::DistanceTable;
pub use pattern::Destinations;

use crate::spec::{Process, TrafficSpec};
use rand::Rng;
use rand_distr::{Distribution, Exp, Geometric};
use rand_pcg::Pcg64;

/// Derives independent seeds: splitmix64 of the scenario seed and a salt.
pub fn mix_seed(seed: u64, salt: u64) -> u64 {
    let mut z = seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The arrival process of every source, at λ messages/node/cycle.
#[derive(Clone, Copy, Debug)]
pub enum Arrivals {
    /// Exponential inter-arrival times of mean 1/λ in continuous time; an arrival joins its
    /// queue in the cycle it falls in, so several may join in one cycle.
    Poisson(Exp<f64>),
    /// One trial per cycle succeeding with probability λ: the first arrival in cycle
    /// Geometric(λ) (failures before the first success), each next one 1 + Geometric(λ)
    /// cycles after the previous, so at most one per cycle.
    Bernoulli(Geometric),
}

impl Arrivals {
    /// `process` at `rate` messages/node/cycle, or None when the rate is 0 (no sources).
    /// Panics on a negative rate, or a Bernoulli rate above 1 (validation refuses both).
    pub fn new(process: Process, rate: f64) -> Option<Arrivals> {
        (rate > 0.0).then(|| match process {
            Process::Poisson => Arrivals::Poisson(Exp::new(rate).expect("positive rate")),
            Process::Bernoulli => Arrivals::Bernoulli(
                Geometric::new(rate).expect("a Bernoulli rate of at most 1 message/node/cycle"),
            ),
        })
    }

    /// The time of a source's first arrival.
    #[inline]
    fn first(&self, rng: &mut Pcg64) -> f64 {
        match self {
            Arrivals::Poisson(exp) => exp.sample(rng),
            Arrivals::Bernoulli(geo) => geo.sample(rng) as f64,
        }
    }

    /// The time from one arrival to the next.
    #[inline]
    fn gap(&self, rng: &mut Pcg64) -> f64 {
        match self {
            Arrivals::Poisson(exp) => exp.sample(rng),
            Arrivals::Bernoulli(geo) => 1.0 + geo.sample(rng) as f64,
        }
    }
}

/// One node's message source: its own random stream, so results do not depend on how many
/// sources there are or in which order they are visited.
#[derive(Clone)]
pub struct Source {
    rng: Pcg64,
    /// Time of the next arrival (continuous under Poisson, a whole cycle under Bernoulli); it
    /// joins the queue in cycle `floor(next)`.
    pub next: f64,
}

impl Source {
    /// Node `node`'s source, its stream derived from `seed`; `arrivals` draws the first
    /// arrival and the inter-arrival times (mean 1/λ cycles).
    pub fn new(seed: u64, node: u32, arrivals: &Arrivals) -> Source {
        let mut rng = Pcg64::new(mix_seed(seed, node as u64) as u128, node as u128);
        let next = arrivals.first(&mut rng);
        Source { rng, next }
    }

    /// The cycle of the pending arrival.
    #[inline]
    pub fn next_cycle(&self) -> u64 {
        self.next as u64
    }

    /// Consumes the pending arrival and schedules the next (one inter-arrival time later).
    /// Returns the stream to draw the arrived message's destination and length from.
    #[inline]
    pub fn arrive(&mut self, arrivals: &Arrivals) -> &mut Pcg64 {
        self.next += arrivals.gap(&mut self.rng);
        &mut self.rng
    }
}

/// What a source sends: destination pattern, its mixture with uniform traffic, and lengths.
#[derive(Clone)]
pub struct Traffic {
    /// The processors it addresses.
    addr: Addresses,
    /// Where pattern messages go.
    pub destinations: Destinations,
    /// x: a message follows the pattern with probability x, else is uniform (paper 002).
    fraction: f64,
    /// The hotspot fraction h of a hotspot pattern.
    hotspot: Option<f64>,
    lengths: Vec<u16>,
    /// Cumulative probabilities of `lengths`.
    length_cdf: Vec<f64>,
}

impl Traffic {
    /// The traffic `spec` describes among the processors `addr`; `seed` fixes a permutation
    /// pattern's map.
    pub fn new(spec: &TrafficSpec, addr: Addresses, seed: u64) -> Traffic {
        let mut acc = 0.0;
        Traffic {
            destinations: Destinations::new(&spec.pattern, &addr, seed),
            addr,
            fraction: spec.pattern_fraction,
            hotspot: match spec.pattern {
                crate::spec::Pattern::Hotspot { fraction, .. } => Some(fraction),
                _ => None,
            },
            lengths: spec.lengths.iter().map(|&l| l as u16).collect(),
            length_cdf: spec
                .length_probabilities
                .iter()
                .map(|p| {
                    acc += p;
                    acc
                })
                .collect(),
        }
    }

    /// The traffic variant: pattern fraction x and hotspot fraction h (hotspot only).
    pub fn variant(&self) -> (f64, Option<f64>) {
        (self.fraction, self.hotspot)
    }

    /// The processors it addresses.
    pub fn addresses(&self) -> &Addresses {
        &self.addr
    }

    /// Uniform destinations among the processors `addr`, one message length.
    pub fn uniform(addr: Addresses, length: u32) -> Traffic {
        Traffic {
            destinations: Destinations::new(&crate::spec::Pattern::Uniform, &addr, 0),
            addr,
            fraction: 1.0,
            hotspot: None,
            lengths: vec![length as u16],
            length_cdf: vec![1.0],
        }
    }

    /// Destination and length of a message generated at `src`, or None when the pattern
    /// sends nothing from there. Random draws, in order: the mixture (only when 0 < x < 1),
    /// the destination, the length (only with several lengths).
    #[inline]
    pub fn message(&mut self, src: u32, rng: &mut Pcg64) -> Option<(u32, u16)> {
        let follow = match self.fraction {
            x if x >= 1.0 => true,
            x if x <= 0.0 => false,
            x => rng.gen_bool(x),
        };
        let dst = if follow {
            self.destinations.sample(&self.addr, src, rng)?
        } else {
            pattern::uniform(self.addr.nodes as u32, src, rng)
        };
        let len = if self.lengths.len() == 1 {
            self.lengths[0]
        } else {
            let u: f64 = rng.r#gen();
            let i = self
                .length_cdf
                .iter()
                .position(|&c| u < c)
                .unwrap_or(self.lengths.len() - 1);
            self.lengths[i]
        };
        Some((dst, len))
    }

    /// Exact destination probabilities of a message generated at `src` (mixture included);
    /// they sum to the probability that a generated message is sent.
    pub fn distribution(&self, src: u32) -> Vec<(u32, f64)> {
        let n = self.addr.nodes as u32;
        let mut p = vec![0.0; n as usize];
        for (d, q) in self.destinations.distribution(&self.addr, src) {
            p[d as usize] += self.fraction * q;
        }
        if self.fraction < 1.0 {
            for d in (0..n).filter(|&d| d != src) {
                p[d as usize] += (1.0 - self.fraction) / (n - 1) as f64;
            }
        }
        p.into_iter()
            .enumerate()
            .filter(|&(_, q)| q > 0.0)
            .map(|(d, q)| (d as u32, q))
            .collect()
    }

    /// The fraction of generated messages that are sent, averaged over sources: below 1 when
    /// the pattern maps nodes onto themselves (paper 002 divides by N − n₀).
    pub fn offered_fraction(&self) -> f64 {
        let n = self.addr.nodes as u32;
        let x = self.fraction;
        (0..n)
            .map(|s| x * self.destinations.sent_probability(s) + (1.0 - x))
            .sum::<f64>()
            / n as f64
    }

    /// Mean message length in flits.
    pub fn mean_length(&self) -> f64 {
        self.length_moment(1)
    }

    /// E\[M^`power`\] of the message length M in flits.
    pub fn length_moment(&self, power: i32) -> f64 {
        let mut prev = 0.0;
        self.lengths
            .iter()
            .zip(&self.length_cdf)
            .map(|(&l, &c)| {
                let p = c - prev;
                prev = c;
                (l as f64).powi(power) * p
            })
            .sum()
    }
}
