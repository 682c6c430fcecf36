//! The sources' pending arrivals, earliest first in (cycle, source) order. Each source has one
//! pending arrival. A few sources keep them in a binary heap, which stays in cache and costs a
//! cycle one comparison when nothing is due. Many sources keep them in a calendar queue
//! (R. Brown, CACM 31(10), 1988): one bucket per cycle of a year of `2^k` cycles, each holding
//! the sources whose next arrival falls in a cycle of that residue, so that a cycle's step 1
//! reads one bucket, sequentially, where the heap of a million sources walked twenty levels of
//! scattered lines per arrival. The year spans several mean inter-arrival times, so a bucket
//! rarely holds a source due in a later year.

use super::prefetch::{AHEAD, prefetch};
use crate::traffic::Source;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Sources from which the pending arrivals are kept in a calendar queue rather than a heap
/// (a heap of 2^16 entries is 1 MiB, about what stays in a core's cache).
const CALENDAR_SOURCES: usize = 1 << 16;

/// The pending arrival of every source.
#[derive(Clone)]
pub(super) struct Calendar {
    store: Store,
    /// The sources due this cycle (reused).
    due: Vec<u32>,
    /// The next arrivals drawn this cycle, (source, cycle), to file together (reused).
    drawn: Vec<(u32, u64)>,
}

/// Where the pending arrivals are kept.
#[derive(Clone)]
enum Store {
    /// (cycle, source), earliest first.
    Heap(BinaryHeap<Reverse<(u64, u32)>>),
    /// Bucket `c % year` lists the sources due in a cycle c of that residue; `mask` is the
    /// year less one (a power of two less one).
    Buckets { buckets: Vec<Vec<u32>>, mask: u64 },
}

impl Default for Calendar {
    fn default() -> Calendar {
        Calendar {
            store: Store::Heap(BinaryHeap::new()),
            due: Vec::new(),
            drawn: Vec::new(),
        }
    }
}

impl Calendar {
    /// An empty store for `sources` sources, each arriving every `gap` cycles on average: a
    /// heap for fewer than `CALENDAR_SOURCES`, else a calendar queue.
    pub fn new(sources: usize, gap: f64) -> Calendar {
        if sources < CALENDAR_SOURCES {
            return Calendar::default();
        }
        Calendar::buckets(sources, gap)
    }

    /// A calendar queue for `sources` sources, each arriving every `gap` cycles on average: a
    /// year of about eight mean gaps, at least 64 and at most the sources' count of cycles (so
    /// that its buckets never outweigh the sources).
    fn buckets(sources: usize, gap: f64) -> Calendar {
        let year = (8.0 * gap).min(sources as f64).max(64.0) as u64;
        let year = year.next_power_of_two();
        Calendar {
            store: Store::Buckets {
                buckets: vec![Vec::new(); year as usize],
                mask: year - 1,
            },
            due: Vec::new(),
            drawn: Vec::new(),
        }
    }

    /// Files source `s`, whose next arrival is in cycle `c`.
    #[inline]
    pub fn insert(&mut self, s: u32, c: u64) {
        match &mut self.store {
            Store::Heap(heap) => heap.push(Reverse((c, s))),
            Store::Buckets { buckets, mask } => buckets[(c & *mask) as usize].push(s),
        }
    }

    /// Notes source `s`'s next arrival, in cycle `c`, to be filed by [`Calendar::file_drawn`]
    /// with the cycle's others.
    #[inline]
    pub fn draw(&mut self, s: u32, c: u64) {
        self.drawn.push((s, c));
    }

    /// Files the arrivals noted by [`Calendar::draw`], in the order drawn. A calendar asks a
    /// few arrivals ahead for each one's bucket and then for the end of its list: a million
    /// sources' buckets outgrow the caches, and each filing would otherwise wait on both.
    pub fn file_drawn(&mut self) {
        for k in 0..self.drawn.len() {
            if let Store::Buckets { buckets, mask } = &self.store {
                let at = |c: u64| (c & *mask) as u32;
                if let Some(&(_, ahead)) = self.drawn.get(k + AHEAD) {
                    prefetch(buckets, at(ahead));
                }
                if let Some(&(_, near)) = self.drawn.get(k + AHEAD / 2) {
                    let list = &buckets[at(near) as usize];
                    prefetch(list, list.len().saturating_sub(1) as u32);
                }
            }
            let (s, c) = self.drawn[k];
            self.insert(s, c);
        }
        self.drawn.clear();
    }

    /// True when a source may be due in cycle `now` (a heap's earliest is; a calendar's bucket
    /// of `now` is not empty): a cycle with none costs a comparison.
    #[inline]
    pub fn any_due(&self, now: u64) -> bool {
        match &self.store {
            Store::Heap(heap) => heap.peek().is_some_and(|&Reverse((c, _))| c <= now),
            Store::Buckets { buckets, mask } => !buckets[(now & *mask) as usize].is_empty(),
        }
    }

    /// Takes off the store the sources of `gens` due in cycle `now` (none is due earlier), in
    /// increasing order, as the heap pops them; a calendar's sources of a later year stay.
    /// Hand the list back with [`Calendar::done`].
    #[inline]
    pub fn take_due(&mut self, gens: &[Source], now: u64) -> Vec<u32> {
        let mut due = std::mem::take(&mut self.due);
        match &mut self.store {
            Store::Heap(heap) => {
                while let Some(&Reverse((c, s))) = heap.peek() {
                    if c > now {
                        break;
                    }
                    heap.pop();
                    due.push(s);
                }
            }
            Store::Buckets { buckets, mask } => {
                buckets[(now & *mask) as usize].retain(|&s| {
                    let now_due = gens[s as usize].next_cycle() <= now;
                    if now_due {
                        due.push(s);
                    }
                    !now_due
                });
                due.sort_unstable();
            }
        }
        due
    }

    /// Takes back the list of [`Calendar::take_due`] for the next cycle's use.
    #[inline]
    pub fn done(&mut self, mut due: Vec<u32>) {
        due.clear();
        self.due = due;
    }

    /// Bytes of the store.
    pub fn heap_bytes(&self) -> u64 {
        use super::memory::vec_bytes;
        let store = match &self.store {
            Store::Heap(heap) => {
                (heap.capacity() * std::mem::size_of::<Reverse<(u64, u32)>>()) as u64
            }
            Store::Buckets { buckets, .. } => {
                vec_bytes(buckets) + buckets.iter().map(vec_bytes).sum::<u64>()
            }
        };
        store + vec_bytes(&self.due) + vec_bytes(&self.drawn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Process;
    use crate::traffic::Arrivals;

    /// Arrivals as (cycle, source), in the order they were handed out.
    type Order = Vec<(u64, u32)>;

    /// Every arrival of `n` sources at `rate` over `cycles` cycles, as (cycle, source) in the
    /// order a calendar queue (`buckets`) or `new`'s store hands them out, each cycle's next
    /// arrivals filed together as step 1 files them, and in the order of a plain heap by
    /// (cycle, source).
    fn both(process: Process, n: u32, rate: f64, cycles: u64, buckets: bool) -> (Order, Order) {
        let a = Arrivals::new(process, rate, Default::default()).unwrap();
        let mut gens: Vec<Source> = (0..n).map(|s| Source::new(9, s, &a)).collect();
        let mut heap_gens = gens.clone();
        let mut cal = if buckets {
            Calendar::buckets(n as usize, 1.0 / rate)
        } else {
            Calendar::new(n as usize, 1.0 / rate)
        };
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
                        cal.draw(s, g.next_cycle());
                        break;
                    }
                }
            }
            cal.file_drawn();
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

    /// The calendar queue, and the store `new` picks for few sources, hand out arrivals in a
    /// heap's order: at a high rate, where a source often arrives several times in one cycle,
    /// and at a low rate on few sources, where the year is shorter than most gaps and buckets
    /// hold sources due in later years.
    #[test]
    fn arrivals_come_in_the_order_of_a_heap_by_cycle_and_source() {
        for (process, n, rate) in [
            (Process::Poisson, 40, 1.7),
            (Process::Poisson, 50, 0.004),
            (Process::Bernoulli, 30, 0.3),
            (Process::Bernoulli, 50, 0.002),
        ] {
            for buckets in [true, false] {
                let (by_cal, by_heap) = both(process, n, rate, 6000, buckets);
                let ctx = format!("{process:?} at {rate}, calendar queue {buckets}");
                assert!(by_heap.len() > 400, "{ctx}: too few arrivals");
                assert_eq!(by_cal, by_heap, "{ctx}");
            }
        }
        let repeats = both(Process::Poisson, 40, 1.7, 200, true).1;
        assert!(
            repeats.windows(2).any(|w| w[0] == w[1]),
            "no source arrived twice in a cycle"
        );
    }

    /// The year of the calendar queue of `sources` sources with mean gap `gap`.
    fn year(sources: usize, gap: f64) -> Option<u64> {
        match Calendar::new(sources, gap).store {
            Store::Buckets { mask, .. } => Some(mask + 1),
            Store::Heap(_) => None,
        }
    }

    /// Many sources get a calendar queue whose year spans eight mean gaps, within 64 cycles
    /// and the sources' count; few get a heap.
    #[test]
    fn a_year_spans_eight_mean_gaps_within_bounds() {
        assert_eq!(year(1 << 20, 8000.0), Some(65536));
        assert_eq!(year(1 << 16, 1e9), Some(65536));
        assert_eq!(year(1 << 20, 1.0), Some(64));
        assert_eq!(year((1 << 16) - 1, 8000.0), None);
    }
}
