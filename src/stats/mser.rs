//! The automatic warm-up (`[run] warmup_cycles = "auto"`): MSER-5 (White 1997; MSER on batch
//! means of five observations: White, Cobb and Spratt 2000) on the batch means of the latency of the messages delivered and of the flits
//! accepted, each batch five samples of [`SAMPLE_CYCLES`] cycles.
//!
//! MSER rather than BookSim's rule (three successive samples within a threshold of each
//! other): MSER weighs a series' drift against its own noise, so it needs no threshold, and a
//! light load, whose few messages per sample make successive samples differ by more than any
//! fixed threshold, still settles; BookSim's rule compares neighbours only, and a slow drift
//! passes it.

/// Cycles of one sample: the period the run's counters are read at.
pub const SAMPLE_CYCLES: u64 = 100;

/// Samples per batch: the 5 of MSER-5.
pub const GROUP: u64 = 5;

/// Cycles of one MSER batch; the warm-up is judged at each multiple of it.
pub const BATCH_CYCLES: u64 = SAMPLE_CYCLES * GROUP;

/// Batches judged at the first check: the shortest automatic warm-up is this many batches.
pub const MIN_BATCHES: usize = 10;

/// The shortest automatic warm-up: [`MIN_BATCHES`] batches of [`BATCH_CYCLES`].
pub const MIN_AUTO_WARMUP: u64 = BATCH_CYCLES * MIN_BATCHES as u64;

/// MSER's truncation point of the series `x` of batch means weighted by `w` (a batch's
/// messages; 1 each for an unweighted series): the d in 0..=n/2 that minimises the squared
/// standard error of the mean of the batches from d on, Σ w_i (x_i − x̄_d)² / (Σ w_i)² over
/// i ≥ d (White 1997; with equal weights, the usual Σ (x_i − x̄_d)² / (n − d)² up to a
/// constant). Batches of weight 0 count for nothing; a tail with no weight scores infinity.
/// Ties go to the smallest d.
pub fn mser_truncation(x: &[f64], w: &[f64]) -> usize {
    let n = x.len();
    let (mut sw, mut swx, mut swxx) = (0.0, 0.0, 0.0);
    let (mut best, mut best_score) = (0, f64::INFINITY);
    for i in (0..n).rev() {
        if w[i] > 0.0 {
            sw += w[i];
            swx += w[i] * x[i];
            swxx += w[i] * x[i] * x[i];
        }
        // Scanning d downwards, `<=` leaves ties to the smallest d.
        if i <= n / 2 && sw > 0.0 {
            let score = (swxx - swx * swx / sw).max(0.0) / (sw * sw);
            if score <= best_score {
                (best, best_score) = (i, score);
            }
        }
    }
    best
}

/// Whether MSER finds the series settled: its truncation point lies strictly inside the first
/// half of at least [`MIN_BATCHES`] batches. A series still drifting keeps its smallest
/// standard error at the half-way bound, the latest truncation judged.
pub fn settled(x: &[f64], w: &[f64]) -> bool {
    x.len() >= MIN_BATCHES && mser_truncation(x, w) < x.len() / 2
}

/// The batch means an automatic warm-up judges, read off the engine's running totals at each
/// multiple of [`BATCH_CYCLES`] (a function of the simulated state only, so the same on any
/// number of threads).
#[derive(Clone, Debug)]
pub struct AutoWarmup {
    /// Mean latency of the messages delivered in each batch (NaN if none).
    latency: Vec<f64>,
    /// Messages delivered in each batch: the latency means' weights.
    delivered: Vec<f64>,
    /// Flits accepted per node per cycle in each batch.
    accepted: Vec<f64>,
    /// Unit weights of the accepted-load series.
    ones: Vec<f64>,
    /// The totals at the last batch boundary: latency summed, messages, flits delivered.
    last: (u64, u64, u64),
    /// Processors.
    nodes: f64,
}

impl AutoWarmup {
    /// An empty series for `nodes` processors and a warm-up of at most `cap` cycles.
    pub fn new(nodes: u32, cap: u64) -> Self {
        let n = (cap / BATCH_CYCLES + 1) as usize;
        AutoWarmup {
            latency: Vec::with_capacity(n),
            delivered: Vec::with_capacity(n),
            accepted: Vec::with_capacity(n),
            ones: Vec::with_capacity(n),
            last: (0, 0, 0),
            nodes: nodes as f64,
        }
    }

    /// Adds the batch ending now, from the totals since the start (latency summed over the
    /// messages delivered, messages and flits delivered), and tells whether MSER-5 finds both
    /// series settled.
    pub fn batch_end(&mut self, latency_sum: u64, messages: u64, flits: u64) -> bool {
        let (l0, m0, f0) = self.last;
        let m = (messages - m0) as f64;
        self.latency.push((latency_sum - l0) as f64 / m);
        self.delivered.push(m);
        self.accepted
            .push((flits - f0) as f64 / (self.nodes * BATCH_CYCLES as f64));
        self.ones.push(1.0);
        self.last = (latency_sum, messages, flits);
        settled(&self.latency, &self.delivered) && settled(&self.accepted, &self.ones)
    }

    /// Batches judged so far.
    pub fn batches(&self) -> usize {
        self.latency.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flat series truncates at 0; one rising for its first 8 of 20 batches at 8 or less,
    /// and settles; one rising throughout at the half-way bound, and does not.
    #[test]
    fn truncation_points() {
        let ones = vec![1.0; 20];
        let flat: Vec<f64> = (0..20)
            .map(|i| 10.0 + [0.3, -0.2, 0.1, -0.4][i % 4])
            .collect();
        assert_eq!(mser_truncation(&flat, &ones), 0);
        assert!(settled(&flat, &ones));
        let knee: Vec<f64> = (0..20)
            .map(|i| (i.min(8) as f64) * 5.0 + [0.3, -0.2, 0.1, -0.4][i % 4])
            .collect();
        assert!(mser_truncation(&knee, &ones) <= 8);
        assert!(settled(&knee, &ones));
        let rising: Vec<f64> = (0..20).map(|i| i as f64).collect();
        assert_eq!(mser_truncation(&rising, &ones), 10);
        assert!(!settled(&rising, &ones));
        assert!(!settled(&flat[..9], &ones[..9]));
    }

    /// Empty batches weigh nothing; a series without any message settles at once.
    #[test]
    fn weights() {
        let x = [f64::NAN, 5.0, 5.0, f64::NAN, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0];
        let w = [0.0, 1.0, 2.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        assert_eq!(mser_truncation(&x, &w), 0);
        assert!(settled(&[f64::NAN; 10], &[0.0; 10]));
    }
}
