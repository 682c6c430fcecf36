//! The sources' pending arrivals as a calendar queue (R. Brown, CACM 31(10), 1988): one bucket
//! per cycle of a year of `2^k` cycles, each holding the sources whose next arrival falls in a
//! cycle of that residue. Each source has one pending arrival, so a cycle's step 1 reads one
//! bucket, sequentially, where a binary heap of a million sources walked twenty levels of
//! scattered lines per arrival. The year spans several mean inter-arrival times, so a bucket
//! rarely holds a source due in a later year.

use crate::traffic::Source;

/// The pending arrival of every source, bucketed by cycle.
#[derive(Clone, Default)]
pub(super) struct Calendar {
    /// Bucket `c % year` lists the sources due in a cycle c of that residue.
    buckets: Vec<Vec<u32>>,
    /// Cycles in a year, less one (a power of two, less one).
    mask: u64,
    /// The sources due this cycle (reused).
    due: Vec<u32>,
}

impl Calendar {
    /// An empty calendar for `sources` sources, each arriving every `gap` cycles on average:
    /// a year of about eight mean gaps, at least 64 and at most the sources' count of cycles
    /// (so that its buckets never outweigh the sources).
    pub fn new(sources: usize, gap: f64) -> Calendar {
        let year = (8.0 * gap).min(sources as f64).max(64.0) as u64;
        let year = year.next_power_of_two();
        Calendar {
            buckets: vec![Vec::new(); year as usize],
            mask: year - 1,
            due: Vec::new(),
        }
    }

    /// Files source `s`, whose next arrival is in cycle `c`.
    #[inline]
    pub fn insert(&mut self, s: u32, c: u64) {
        self.buckets[(c & self.mask) as usize].push(s);
    }

    /// Takes off the calendar the sources of `gens` due in cycle `now` (none is due earlier),
    /// in increasing order, as a heap ordered by (cycle, source) pops them; those of a later
    /// year stay. Hand the list back with [`Calendar::done`].
    #[inline]
    pub fn take_due(&mut self, gens: &[Source], now: u64) -> Vec<u32> {
        let mut due = std::mem::take(&mut self.due);
        self.buckets[(now & self.mask) as usize].retain(|&s| {
            let now_due = gens[s as usize].next_cycle() <= now;
            if now_due {
                due.push(s);
            }
            !now_due
        });
        due.sort_unstable();
        due
    }

    /// Takes back the list of [`Calendar::take_due`] for the next cycle's use.
    #[inline]
    pub fn done(&mut self, mut due: Vec<u32>) {
        due.clear();
        self.due = due;
    }

    /// Bytes of the buckets.
    pub fn heap_bytes(&self) -> u64 {
        use super::memory::vec_bytes;
        vec_bytes(&self.buckets)
            + self.buckets.iter().map(|b| vec_bytes(b)).sum::<u64>()
            + vec_bytes(&self.due)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Process;
    use crate::traffic::Arrivals;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// Every arrival of `n` sources at `rate` over `cycles` cycles, as (cycle, source) in the
    /// order the calendar hands them out, and in the order of a heap by (cycle, source).
    fn both(
        process: Process,
        n: u32,
        rate: f64,
        cycles: u64,
    ) -> (Vec<(u64, u32)>, Vec<(u64, u32)>) {
        let a = Arrivals::new(process, rate).unwrap();
        let mut gens: Vec<Source> = (0..n).map(|s| Source::new(9, s, &a)).collect();
        let mut heap_gens = gens.clone();
        let mut cal = Calendar::new(n as usize, 1.0 / rate);
        let mut heap = BinaryHeap::new();
        for (s, g) in gens.iter().enumerate() {
            cal.insert(s as u32, g.next_cycle());
            heap.push(Reverse((g.next_cycle(), s as u32)));
        }
        let (mut by_cal, mut by_heap) = (Vec::new(), Vec::new());
        for now in 0..cycles {
            let due = cal.take_due(&gens, now);
            for &s in &due {
                loop {
                    by_cal.push((now, s));
                    let g = &mut gens[s as usize];
                    g.arrive(&a);
                    if g.next_cycle() > now {
                        cal.insert(s, g.next_cycle());
                        break;
                    }
                }
            }
            cal.done(due);
            while let Some(&Reverse((c, s))) = heap.peek() {
                if c > now {
                    break;
                }
                heap.pop();
                by_heap.push((now, s));
                let g = &mut heap_gens[s as usize];
                g.arrive(&a);
                heap.push(Reverse((g.next_cycle(), s)));
            }
        }
        (by_cal, by_heap)
    }

    /// The calendar hands out arrivals in the heap's order: at a high rate, where a source
    /// often arrives several times in one cycle, and at a low rate on few sources, where the
    /// year is shorter than most gaps and buckets hold sources due in later years.
    #[test]
    fn arrivals_come_in_the_order_of_a_heap_by_cycle_and_source() {
        for (process, n, rate) in [
            (Process::Poisson, 40, 1.7),
            (Process::Poisson, 50, 0.004),
            (Process::Bernoulli, 30, 0.3),
            (Process::Bernoulli, 50, 0.002),
        ] {
            let (by_cal, by_heap) = both(process, n, rate, 6000);
            assert!(
                by_heap.len() > 400,
                "{process:?} at {rate}: too few arrivals"
            );
            assert_eq!(by_cal, by_heap, "{process:?} at {rate}");
        }
        let repeats = both(Process::Poisson, 40, 1.7, 200).1;
        assert!(
            repeats.windows(2).any(|w| w[0] == w[1]),
            "no source arrived twice in a cycle"
        );
    }

    /// A year spans eight mean gaps, within 64 cycles and the sources' count.
    #[test]
    fn a_year_spans_eight_mean_gaps_within_bounds() {
        assert_eq!(Calendar::new(1 << 20, 8000.0).mask + 1, 65536);
        assert_eq!(Calendar::new(256, 80.0).mask + 1, 256);
        assert_eq!(Calendar::new(1 << 20, 1.0).mask + 1, 64);
        assert_eq!(Calendar::new(16, 1e9).mask + 1, 64);
    }
}
