//! Traffic: message generation (each node generates messages independently at λ
//! messages/cycle, by a Poisson process, the papers' assumption a, a Bernoulli process or an
//! on-off process), destination patterns and message lengths.

mod addresses;
mod locality;
mod pattern;
pub mod trace;

pub use addresses::Addresses;
pub use locality::DistanceTable;
pub use pattern::Destinations;

use crate::spec::{Pattern, Process, TrafficMatrix, TrafficSpec};
use rand::Rng;
use rand_distr::{Bernoulli, Distribution, Exp, Geometric};
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
    /// A two-state Markov-modulated source: in the on state one trial per cycle at the peak
    /// rate r; after each arrival the burst ends with probability 1/B (so a burst's message
    /// count is geometric of mean B), and an off period of Geometric cycles (mean E\[off\])
    /// passes before the trials resume. The gaps are independent: a renewal process.
    OnOff {
        /// Failures before the next success at the peak rate r.
        peak: Geometric,
        /// Whether a burst ends after an arrival: probability 1/B.
        end: Bernoulli,
        /// The off period in cycles: Geometric of mean E\[off\] = B/λ − B/r.
        off: Geometric,
    },
}

/// The shape of an on-off source's bursts (ignored by the other processes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Burst {
    /// r: the on state's rate in messages/cycle (one message per M̄ cycles: 1/M̄).
    pub peak: f64,
    /// B: the mean messages per burst (≥ 1).
    pub length: f64,
}

impl Default for Burst {
    /// Peak rate 1, bursts of one message.
    fn default() -> Burst {
        Burst {
            peak: 1.0,
            length: 1.0,
        }
    }
}

impl Burst {
    /// The variance of an on-off source's gap at λ = `rate`: the gap is 1 + G + E·O (G the
    /// failures at the peak rate r, E the burst's end with probability q = 1/B, O the off
    /// period of mean m), so σ² = (1 − r)/r² + q(m + 2m²) − q²m².
    pub fn gap_variance(&self, rate: f64) -> f64 {
        let (r, q) = (self.peak, 1.0 / self.length);
        let m = self.length / rate - self.length / r;
        (1.0 - r) / (r * r) + q * (m + 2.0 * m * m) - q * q * m * m
    }
}

impl Arrivals {
    /// `process` at `rate` messages/node/cycle, bursts shaped by `burst` (on-off only), or
    /// None when the rate is 0 (no sources). Panics on a negative rate, a Bernoulli rate
    /// above 1, or an on-off rate not below the peak rate (validation refuses all three).
    pub fn new(process: Process, rate: f64, burst: Burst) -> Option<Arrivals> {
        (rate > 0.0).then(|| match process {
            Process::Poisson => Arrivals::Poisson(Exp::new(rate).expect("positive rate")),
            Process::Bernoulli => Arrivals::Bernoulli(
                Geometric::new(rate).expect("a Bernoulli rate of at most 1 message/node/cycle"),
            ),
            Process::OnOff => {
                let Burst { peak, length } = burst;
                assert!(
                    rate < peak,
                    "an on-off rate {rate} below the peak rate {peak}"
                );
                // E[off] = B/λ − B/r cycles, so that a cycle of mean B/r + E[off] carries B.
                let mean_off = length / rate - length / peak;
                Arrivals::OnOff {
                    peak: Geometric::new(peak).expect("a peak rate in (0, 1]"),
                    end: Bernoulli::new(1.0 / length).expect("a burst length of at least 1"),
                    // Failures before a success of probability p have mean (1 − p)/p.
                    off: Geometric::new(1.0 / (1.0 + mean_off)).expect("a positive off period"),
                }
            }
        })
    }

    /// The time of a source's first arrival (an on-off source starts with an off period).
    #[inline]
    fn first(&self, rng: &mut Pcg64) -> f64 {
        match self {
            Arrivals::Poisson(exp) => exp.sample(rng),
            Arrivals::Bernoulli(geo) => geo.sample(rng) as f64,
            Arrivals::OnOff { peak, off, .. } => (off.sample(rng) + peak.sample(rng)) as f64,
        }
    }

    /// The time from one arrival to the next, and whether the arrival ended its burst (always
    /// false but on-off). On-off draws, in order: the burst's end, the off period (only if it
    /// ended), the trials to the next success.
    #[inline]
    fn gap(&self, rng: &mut Pcg64) -> (f64, bool) {
        match self {
            Arrivals::Poisson(exp) => (exp.sample(rng), false),
            Arrivals::Bernoulli(geo) => (1.0 + geo.sample(rng) as f64, false),
            Arrivals::OnOff { peak, end, off } => {
                let ended = end.sample(rng);
                let wait = if ended { off.sample(rng) } else { 0 };
                ((1 + wait + peak.sample(rng)) as f64, ended)
            }
        }
    }
}

/// One node's message source: its own random stream, so results do not depend on how many
/// sources there are or in which order they are visited.
#[derive(Clone)]
pub struct Source {
    rng: Pcg64,
    /// Time of the next arrival (continuous under Poisson, a whole cycle under Bernoulli and
    /// on-off); it joins the queue in cycle `floor(next)`.
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
        self.step(arrivals);
        &mut self.rng
    }

    /// [`Source::arrive`]'s schedule alone, with the same draws: consumes the pending arrival,
    /// schedules the next, and tells whether the consumed arrival ended its burst (on-off: the
    /// source turned off after it; always false for the other processes).
    #[inline]
    pub fn step(&mut self, arrivals: &Arrivals) -> bool {
        let (gap, ended) = arrivals.gap(&mut self.rng);
        self.next += gap;
        ended
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
    /// The shape of an on-off source's bursts.
    burst: Burst,
    /// Each source's rate relative to λ (a traffic matrix's N·rowsum(s)/total), or None when
    /// every source generates at λ.
    weights: Option<Vec<f64>>,
}

impl Traffic {
    /// The traffic `spec` describes among the processors `addr`; `seed` fixes a permutation
    /// pattern's map.
    pub fn new(spec: &TrafficSpec, addr: Addresses, seed: u64) -> Traffic {
        let mut acc = 0.0;
        let matrix = spec
            .matrix
            .as_deref()
            .filter(|_| spec.pattern == Pattern::Matrix);
        Traffic {
            destinations: match matrix {
                Some(m) => Destinations::matrix(m),
                None => Destinations::new(&spec.pattern, &addr, seed),
            },
            burst: Burst {
                peak: 1.0 / spec.mean_length(),
                length: spec.options.burst_length,
            },
            weights: matrix.map(TrafficMatrix::weights),
            addr,
            fraction: spec.pattern_fraction,
            hotspot: match spec.pattern {
                Pattern::Hotspot { fraction, .. } => Some(fraction),
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
            destinations: Destinations::new(&Pattern::Uniform, &addr, 0),
            addr,
            fraction: 1.0,
            hotspot: None,
            lengths: vec![length as u16],
            length_cdf: vec![1.0],
            burst: Burst {
                peak: 1.0 / length as f64,
                length: 1.0,
            },
            weights: None,
        }
    }

    /// The shape of an on-off source's bursts: peak rate 1/M̄, `burst_length` messages.
    pub fn burst(&self) -> Burst {
        self.burst
    }

    /// Each source's rate relative to λ, or None when every source generates at λ (all
    /// patterns but a traffic matrix).
    pub fn source_weights(&self) -> Option<&[f64]> {
        self.weights.as_deref()
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
    /// they sum to the probability that a generated message is sent. Under a traffic matrix
    /// each is scaled by the source's rate relative to λ (`source_weights`), so that λ times
    /// it is the pair's message rate: N·m\[s\]\[d\]/total without a mixture.
    pub fn distribution(&self, src: u32) -> Vec<(u32, f64)> {
        let n = self.addr.nodes as u32;
        let w = self.weights.as_ref().map_or(1.0, |w| w[src as usize]);
        let mut p = vec![0.0; n as usize];
        for (d, q) in self.destinations.distribution(&self.addr, src) {
            p[d as usize] += w * self.fraction * q;
        }
        if self.fraction < 1.0 {
            for d in (0..n).filter(|&d| d != src) {
                p[d as usize] += w * (1.0 - self.fraction) / (n - 1) as f64;
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
