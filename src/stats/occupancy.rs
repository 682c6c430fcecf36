//! Virtual-channel occupancy: the fraction of time a network link has v busy virtual channels,
//! v = 0..V, pooled over links (the quantity P_v of paper 000 eqs. 28-29), kept as
//! time-weighted counts updated only when a virtual channel is taken or freed.

/// Time-weighted counts of busy virtual channels per link.
///
/// Each link keeps only its busy count. A link's stay at level v from cycle t1 to t2 adds
/// t2 − t1 to the link-cycles at v: −t1 when it enters, +t2 when it leaves. Beside those sums
/// the accounts keep how many links are at each level, so that the link-cycles up to `now`
/// are `sum + links · now` (all in wrapping 64-bit arithmetic, exact), and a change writes one
/// byte of per-link state.
#[derive(Clone)]
pub struct VcOccupancy {
    busy: Vec<u8>,
    /// For each v = 0..V: at `2v` the sum above, at `2v + 1` the links at level v.
    acc: Vec<u64>,
}

/// Link `c` of the per-link counts `busy` gains (`up`) or loses a busy virtual channel at time
/// `now`, in the accounts `acc` (a split cycle's partition passes its own, whose changes
/// [`VcOccupancy::add`] sums).
#[inline(always)]
pub(crate) fn change(
    busy: &mut (impl crate::records::Records<u8> + ?Sized),
    acc: &mut [u64],
    c: usize,
    up: bool,
    now: u64,
) {
    let b = busy[c];
    let to = if up { b + 1 } else { b - 1 };
    busy[c] = to;
    let (from, to) = (2 * b as usize, 2 * to as usize);
    acc[from] = acc[from].wrapping_add(now);
    acc[from + 1] = acc[from + 1].wrapping_sub(1);
    acc[to] = acc[to].wrapping_sub(now);
    acc[to + 1] = acc[to + 1].wrapping_add(1);
}

impl VcOccupancy {
    /// No busy virtual channel on `links` links of `vcs` virtual channels each, from cycle 0.
    pub fn new(links: usize, vcs: u32) -> VcOccupancy {
        let mut acc = vec![0; 2 * (vcs as usize + 1)];
        acc[1] = links as u64;
        VcOccupancy {
            busy: crate::huge_pages::filled(links, 0),
            acc,
        }
    }

    /// Accounts with no change, for a split cycle's partition.
    pub fn zero_accounts(vcs: u32) -> Vec<u64> {
        vec![0; 2 * (vcs as usize + 1)]
    }

    /// Bytes of the per-link counts and the accounts.
    pub fn heap_bytes(&self) -> u64 {
        (self.busy.capacity() + self.acc.capacity() * 8) as u64
    }

    /// Link `c` gains (`up`) or loses a busy virtual channel at time `now`.
    #[inline]
    pub fn change(&mut self, c: usize, up: bool, now: u64) {
        change(&mut self.busy, &mut self.acc, c, up, now);
    }

    /// The per-link counts and the accounts, for the one thread's grants.
    pub(crate) fn parts_mut(&mut self) -> (&mut [u8], &mut [u64]) {
        (&mut self.busy, &mut self.acc)
    }

    /// The per-link counts, for a cycle split across threads: each link's count is changed by
    /// one thread, into its own accounts, which [`VcOccupancy::add`] sums.
    pub fn busy_mut(&mut self) -> &mut [u8] {
        &mut self.busy
    }

    /// Adds a partition's accounts `part` (changes made with `change`) and zeroes them.
    pub fn add(&mut self, part: &mut [u64]) {
        for (a, x) in self.acc.iter_mut().zip(part.iter_mut()) {
            *a = a.wrapping_add(std::mem::take(x));
        }
    }

    /// Every link's busy count, read-only (what a prefetch asks for).
    pub fn links(&self) -> &[u8] {
        &self.busy
    }

    /// Link-cycles spent with v busy virtual channels, v = 0..V, since the last reset, up to
    /// `now`.
    pub fn link_cycles(&self, now: u64) -> Vec<u64> {
        self.acc
            .chunks(2)
            .map(|a| a[0].wrapping_add(a[1].wrapping_mul(now)))
            .collect()
    }

    /// Starts a new measurement at `now`.
    pub fn reset(&mut self, now: u64) {
        for a in self.acc.chunks_mut(2) {
            a[0] = a[1].wrapping_mul(now).wrapping_neg();
        }
    }

    /// P_v for v = 0..V over the time since the last reset, up to `now`.
    pub fn distribution(&self, now: u64) -> Vec<f64> {
        let hist = self.link_cycles(now);
        let total: u64 = hist.iter().sum();
        hist.iter()
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

    /// Counts stay exact past 2^32 cycles, and a change before a reset counts only from the
    /// reset: a link busy from just before 2^32 to just after is counted for the cycles in
    /// between.
    #[test]
    fn counts_across_2_to_the_32() {
        let mut o = VcOccupancy::new(1, 2);
        let start = (1u64 << 32) - 5;
        o.change(0, true, 7);
        o.change(0, false, 9);
        o.reset(start);
        o.change(0, true, start + 2);
        o.change(0, false, start + 10);
        assert_eq!(o.link_cycles(start + 12), vec![4, 8, 0]);
        o.change(0, true, start + 12);
        o.change(0, true, start + 13);
        assert_eq!(o.link_cycles(start + 20), vec![4, 9, 7]);
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
