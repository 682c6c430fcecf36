//! Virtual-channel occupancy: the fraction of time a network link has v busy virtual channels,
//! v = 0..V, pooled over links (the quantity P_v of paper 000 eqs. 28-29), kept as
//! time-weighted counts updated only when a virtual channel is taken or freed.

/// Time-weighted counts of busy virtual channels per link.
#[derive(Clone)]
pub struct VcOccupancy {
    busy: Vec<u8>,
    /// The cycle (mod 2^32) of each link's last change; exact while every link is brought up
    /// to date (`flush`) at least every 2^32 cycles, which the engine does every `REFRESH`.
    since: Vec<u32>,
    /// `hist[v]`: link-cycles spent with v busy virtual channels since the last reset.
    hist: Vec<u64>,
}

/// Link `c` of the accounts `busy` and `since` gains (`up`) or loses a busy virtual channel at
/// time `now`; the time since its last change is added to `hist`.
#[inline(always)]
pub fn change(busy: &mut [u8], since: &mut [u32], hist: &mut [u64], c: usize, up: bool, now: u64) {
    let b = busy[c];
    hist[b as usize] += (now as u32).wrapping_sub(since[c]) as u64;
    since[c] = now as u32;
    busy[c] = if up { b + 1 } else { b - 1 };
}

impl VcOccupancy {
    /// No busy virtual channel on `links` links of `vcs` virtual channels each.
    pub fn new(links: usize, vcs: u32) -> VcOccupancy {
        VcOccupancy {
            busy: crate::huge_pages::filled(links, 0),
            since: crate::huge_pages::filled(links, 0),
            hist: vec![0; vcs as usize + 1],
        }
    }

    /// Bytes of the per-link accounts.
    pub fn heap_bytes(&self) -> u64 {
        (self.busy.capacity() + self.since.capacity() * 4 + self.hist.capacity() * 8) as u64
    }

    /// Link `c` gains (`up`) or loses a busy virtual channel at time `now`.
    #[inline]
    pub fn change(&mut self, c: usize, up: bool, now: u64) {
        change(&mut self.busy, &mut self.since, &mut self.hist, c, up, now);
    }

    /// The per-link accounts (busy virtual channels, since when) and the histogram, for a
    /// cycle split across threads: each link's account is changed by one thread, into its
    /// own histogram, and the histograms summed.
    pub fn accounts(&mut self) -> (&mut [u8], &mut [u32], &mut [u64]) {
        (&mut self.busy, &mut self.since, &mut self.hist)
    }

    /// Every link's busy count and stamp, read-only (what a prefetch asks for).
    pub fn links(&self) -> (&[u8], &[u32]) {
        (&self.busy, &self.since)
    }

    /// Brings every link's account up to `now` (which changes no distribution: the time is
    /// counted now instead of at the link's next change).
    pub fn flush(&mut self, now: u64) {
        for c in 0..self.busy.len() {
            self.hist[self.busy[c] as usize] += (now as u32).wrapping_sub(self.since[c]) as u64;
            self.since[c] = now as u32;
        }
    }

    /// Starts a new measurement at `now`.
    pub fn reset(&mut self, now: u64) {
        self.flush(now);
        self.hist.fill(0);
    }

    /// P_v for v = 0..V over the time since the last reset, up to `now`.
    pub fn distribution(&mut self, now: u64) -> Vec<f64> {
        self.flush(now);
        let total: u64 = self.hist.iter().sum();
        self.hist
            .iter()
            .map(|&h| {
                if total == 0 {
                    f64::NAN
                } else {
                    h as f64 / total as f64
                }
            })
            .collect()
    }
}

/// The multiplexing degree V̄ = Σ v² P_v / Σ v P_v (paper 000 eq. 30) of an occupancy
/// distribution P_v, v = 0..V; None when no virtual channel is ever busy (P_0 = 1), where the
/// simulation reports NaN and the models their zero-load limit 1.
pub fn multiplexing_degree(p: &[f64]) -> Option<f64> {
    let (num, den) = p.iter().enumerate().fold((0.0, 0.0), |(n, d), (v, &pv)| {
        let v = v as f64;
        (n + v * v * pv, d + v * pv)
    });
    (den > 0.0).then(|| num / den)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 32-bit stamps count across their wrap-around: a link busy from just before 2^32 to
    /// just after is counted for the cycles in between.
    #[test]
    fn stamps_count_across_the_wrap() {
        let mut o = VcOccupancy::new(1, 2);
        let start = (1u64 << 32) - 5;
        o.reset(start);
        o.change(0, true, start + 2);
        o.change(0, false, start + 10);
        o.flush(start + 12);
        assert_eq!(o.hist, vec![4, 8, 0]);
    }

    #[test]
    fn time_weighted_and_vbar() {
        let mut o = VcOccupancy::new(2, 2);
        o.reset(0);
        o.change(0, true, 10); // link 0: 0 busy for 10 cycles
        o.change(0, true, 20); // 1 busy for 10
        o.change(0, false, 30); // 2 busy for 10
        let p = o.distribution(40); // then 1 busy for 10; link 1 idle 40
        assert_eq!(p, vec![50.0 / 80.0, 20.0 / 80.0, 10.0 / 80.0]);
        // V̄ = (1·20 + 4·10) / (1·20 + 2·10) = 60/40
        assert!((multiplexing_degree(&p).unwrap() - 1.5).abs() < 1e-12);
        assert_eq!(multiplexing_degree(&[1.0, 0.0, 0.0]), None);
    }
}
