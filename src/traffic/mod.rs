//! Traffic sources: Poisson message generation and destination patterns (papers' assumptions
//! a and c: each node generates messages independently at λ messages/cycle, uniform
//! destinations other than itself).

use crate::scenario::Pattern;
use rand::Rng;
use rand_distr::{Distribution, Exp};
use rand_pcg::Pcg64;

/// Derives independent seeds: splitmix64 of the scenario seed and a salt.
pub fn mix_seed(seed: u64, salt: u64) -> u64 {
    let mut z = seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One node's message source: its own random stream, so results do not depend on how many
/// sources there are or in which order they are visited.
#[derive(Clone)]
pub struct Source {
    rng: Pcg64,
    /// Continuous time of the next arrival; it joins the queue in cycle `floor(next)`.
    pub next: f64,
}

impl Source {
    pub fn new(seed: u64, node: u32, exp: &Exp<f64>) -> Source {
        let mut rng = Pcg64::new(mix_seed(seed, node as u64) as u128, node as u128);
        let next = exp.sample(&mut rng);
        Source { rng, next }
    }

    /// The cycle of the pending arrival.
    #[inline]
    pub fn next_cycle(&self) -> u64 {
        self.next as u64
    }

    /// Consumes the pending arrival: schedules the next (exponential inter-arrival time) and
    /// returns the destination of the one that arrived.
    #[inline]
    pub fn arrive(&mut self, node: u32, nodes: u32, pattern: Pattern, exp: &Exp<f64>) -> u32 {
        self.next += exp.sample(&mut self.rng);
        match pattern {
            Pattern::Uniform => {
                let d = self.rng.gen_range(0..nodes - 1);
                if d >= node { d + 1 } else { d }
            }
        }
    }
}
