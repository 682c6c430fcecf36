//! Measurement: the statistics of one load point (latency moments, exact percentiles from an
//! integer histogram, batch-means confidence interval, hop counts), virtual-channel occupancy
//! and the multiplexing degree, and the point's results with their window arithmetic.

mod hops;
pub mod mser;
pub mod occupancy;
mod point;
mod trace;

pub(crate) use hops::hop;
pub use hops::{BufferClasses, HopProbe, Hops};
pub use occupancy::{VcOccupancy, multiplexing_degree};
pub use point::{Counters, Measured, PointResult, SHORTFALL_SIGMAS, StopReason, offered_variance};
pub use trace::TraceStats;

/// Two-sided 97.5% quantiles of Student's t for 1..=30 degrees of freedom.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// The 97.5% quantile of Student's t with `dof` degrees of freedom (table to 30, then
/// 1.96 + 2.4/dof, within 0.001 of the exact value); NaN for 0.
pub fn t975(dof: usize) -> f64 {
    match dof {
        0 => f64::NAN,
        1..=30 => T975[dof - 1],
        _ => 1.96 + 2.4 / dof as f64,
    }
}

/// Accumulates the messages generated in the measurement window, as they are delivered.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct LatencyStats {
    /// `latency_hist[l]`: messages with latency l cycles.
    pub latency_hist: Vec<u64>,
    /// `hop_hist[h]`: messages that made h hops.
    pub hop_hist: Vec<u64>,
    /// Messages recorded.
    pub count: u64,
    sum: f64,
    sum_sq: f64,
    network_sum: f64,
    wait_sum: f64,
    batch_sum: Vec<f64>,
    batch_count: Vec<u64>,
    /// Hops outside the routing's adaptive buffer class (escape or deterministic hops).
    escape_hops: u64,
    /// Messages that entered a detour buffer: routed non-minimally.
    nonminimal: u64,
    /// The routing's escape hops are time-outs (duato-timeout).
    timeouts: bool,
}

impl LatencyStats {
    /// Empty statistics with `batches` batches for the batch-means confidence interval.
    pub fn new(batches: u32) -> Self {
        LatencyStats {
            batch_sum: vec![0.0; batches as usize],
            batch_count: vec![0; batches as usize],
            ..Default::default()
        }
    }

    /// Records one delivered message: latency = source wait + network latency.
    pub fn record(&mut self, latency: u64, network: u64, hops: u32, batch: usize) {
        let l = latency as usize;
        if l >= self.latency_hist.len() {
            self.latency_hist.resize(l + 1, 0);
        }
        self.latency_hist[l] += 1;
        let h = hops as usize;
        if h >= self.hop_hist.len() {
            self.hop_hist.resize(h + 1, 0);
        }
        self.hop_hist[h] += 1;
        self.count += 1;
        let x = latency as f64;
        self.sum += x;
        self.sum_sq += x * x;
        self.network_sum += network as f64;
        self.wait_sum += (latency - network) as f64;
        self.batch_sum[batch] += x;
        self.batch_count[batch] += 1;
    }

    /// Counts the routing's escape hops as time-outs (duato-timeout: a header takes its escape
    /// class only after waiting τ cycles).
    pub fn escapes_are_timeouts(mut self, on: bool) -> Self {
        self.timeouts = on;
        self
    }

    /// Records the buffer classes of a message also passed to `record`: of its hops, those
    /// outside the routing's adaptive class and those into its detour buffers.
    pub fn record_classes(&mut self, escape_hops: u32, detour_hops: u32) {
        self.escape_hops += escape_hops as u64;
        self.nonminimal += (detour_hops > 0) as u64;
    }

    /// Fraction of measured messages routed non-minimally (through a detour buffer); 0 for
    /// minimal routings.
    pub fn nonminimal_fraction(&self) -> f64 {
        self.mean_of(self.nonminimal as f64)
    }

    /// Fraction of hops taken on adaptive (class a) virtual channels; the rest are escape or
    /// deterministic hops.
    pub fn adaptive_hop_fraction(&self) -> f64 {
        let hops: u64 = self
            .hop_hist
            .iter()
            .enumerate()
            .map(|(h, &c)| h as u64 * c)
            .sum();
        if hops == 0 {
            f64::NAN
        } else {
            (hops - self.escape_hops) as f64 / hops as f64
        }
    }

    /// Time-outs per measured message (duato-timeout; 0 for other routings).
    pub fn timeouts_per_message(&self) -> f64 {
        let timeouts = if self.timeouts { self.escape_hops } else { 0 };
        self.mean_of(timeouts as f64)
    }

    fn mean_of(&self, s: f64) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            s / self.count as f64
        }
    }

    /// Mean latency in cycles (generation to tail ejection, source queueing included).
    pub fn mean(&self) -> f64 {
        self.mean_of(self.sum)
    }

    /// Mean network latency in cycles (head injected to tail ejected).
    pub fn network_mean(&self) -> f64 {
        self.mean_of(self.network_sum)
    }

    /// Mean source waiting time in cycles (generation to head injected).
    pub fn wait_mean(&self) -> f64 {
        self.mean_of(self.wait_sum)
    }

    /// Sample standard deviation of latency.
    pub fn std(&self) -> f64 {
        if self.count < 2 {
            return f64::NAN;
        }
        let n = self.count as f64;
        ((self.sum_sq - self.sum * self.sum / n) / (n - 1.0))
            .max(0.0)
            .sqrt()
    }

    /// Smallest latency in cycles, None without messages.
    pub fn min(&self) -> Option<u64> {
        self.latency_hist
            .iter()
            .position(|&c| c > 0)
            .map(|i| i as u64)
    }

    /// Largest latency in cycles, None without messages.
    pub fn max(&self) -> Option<u64> {
        self.latency_hist
            .iter()
            .rposition(|&c| c > 0)
            .map(|i| i as u64)
    }

    /// Nearest-rank percentile: the smallest latency l with at least p·count messages ≤ l.
    pub fn percentile(&self, p: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((p * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (l, &c) in self.latency_hist.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(l as u64);
            }
        }
        None
    }

    /// Mean number of network links a message's head crossed.
    pub fn hops_mean(&self) -> f64 {
        let h: u64 = self
            .hop_hist
            .iter()
            .enumerate()
            .map(|(h, &c)| h as u64 * c)
            .sum();
        self.mean_of(h as f64)
    }

    /// Standard error of `hops_mean`: the sample standard deviation of the hop counts over the
    /// square root of their number (each message's hops depend only on its own source and
    /// destination, drawn independently of the others'). NaN for fewer than two messages.
    pub fn hops_std_error(&self) -> f64 {
        if self.count < 2 {
            return f64::NAN;
        }
        let n = self.count as f64;
        let mean = self.hops_mean();
        let ss: f64 = self
            .hop_hist
            .iter()
            .enumerate()
            .map(|(h, &c)| c as f64 * (h as f64 - mean) * (h as f64 - mean))
            .sum();
        (ss / (n - 1.0) / n).sqrt()
    }

    /// Means of the non-empty batches (the window cut into equal batches by generation time).
    pub fn batch_means(&self) -> Vec<f64> {
        self.batch_sum
            .iter()
            .zip(&self.batch_count)
            .filter(|&(_, &c)| c > 0)
            .map(|(&s, &c)| s / c as f64)
            .collect()
    }

    /// Standard error of the mean latency by batch means: the standard deviation of the batch
    /// means over the square root of their number.
    pub fn std_error(&self) -> f64 {
        let means = self.batch_means();
        let b = means.len();
        if b < 2 {
            return f64::NAN;
        }
        let m = means.iter().sum::<f64>() / b as f64;
        let var = means.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (b - 1) as f64;
        (var / b as f64).sqrt()
    }

    /// 95% confidence half-width of the mean latency by batch means (Student t).
    pub fn ci95(&self) -> f64 {
        t975(self.batch_means().len().saturating_sub(1)) * self.std_error()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_and_moments() {
        let mut s = LatencyStats::new(2);
        for (i, l) in [10u64, 20, 30, 40].iter().enumerate() {
            s.record(*l, *l - 1, 3, i % 2);
        }
        assert_eq!(s.mean(), 25.0);
        assert_eq!(s.min(), Some(10));
        assert_eq!(s.max(), Some(40));
        assert_eq!(s.percentile(0.5), Some(20));
        assert_eq!(s.percentile(0.95), Some(40));
        assert!((s.std() - (500.0f64 / 3.0).sqrt()).abs() < 1e-9);
        assert_eq!(s.wait_mean(), 1.0);
        assert_eq!(s.hops_mean(), 3.0);
        assert_eq!(s.hops_std_error(), 0.0);
        // batch means 20 and 30: half-width 12.706 * 5
        assert!((s.ci95() - 12.706 * 5.0).abs() < 1e-9);
    }

    #[test]
    fn hops_standard_error() {
        let mut s = LatencyStats::new(2);
        for (i, h) in [1u32, 2, 3, 6].iter().enumerate() {
            s.record(10, 10, *h, i % 2);
        }
        // Mean 3, sample variance (4 + 1 + 0 + 9) / 3 = 14/3, standard error √(14/3 / 4).
        assert_eq!(s.hops_mean(), 3.0);
        assert!((s.hops_std_error() - (14.0f64 / 12.0).sqrt()).abs() < 1e-12);
        assert!(LatencyStats::new(2).hops_std_error().is_nan());
    }
}
