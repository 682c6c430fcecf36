//! Where a split point's partitions begin, and how their boundaries follow its threads'
//! speeds. The routers are cut into contiguous ranges of ids, evenly at first. On a shared
//! virtual machine one thread of a split point often runs slower than the other for a whole
//! run (by up to 70% on this project's machine, whichever partition it runs: see
//! docs/src/design.md), and each step of the cycle waits for the slowest. Since the results do
//! not depend on where the boundaries lie (`tests/all/scale.rs`), the split weighs each
//! thread's time in the steps against the routers its partition holds every so often, and
//! moves the boundaries three quarters of the way towards routers in proportion to the
//! threads' speeds. Moving them costs a visit to the channels of the routers that change
//! partition (on a topology that lists a router's links; a pass over every channel otherwise)
//! and stopping every flowing worm, so the cycles between two looks take at least 20 times as
//! long as the last move did, and a tenth of a second.

use super::Split;
use crate::engine::parts::{Buf, Chan};
use crate::network::{NONE, Network};
use crate::topology::Link;
use std::ops::Range;
use std::time::Duration;

/// The first router of each of `n` equal partitions of `routers`: contiguous ranges of ids.
pub(super) fn even_starts(routers: usize, n: usize) -> Vec<u32> {
    (0..n).map(|i| (i * routers / n) as u32).collect()
}

/// The partition of router `r`, partition i holding the routers from `starts[i]` to the next
/// start.
fn partition_of(r: u32, starts: &[u32]) -> u8 {
    (starts.partition_point(|&s| s <= r) - 1) as u8
}

/// The routers whose partition differs between the starts `old` and `new`, as ascending
/// disjoint ranges: those between each partition's old and new first router (a router below
/// one start and above the other changes side of that boundary).
fn moved_ranges(old: &[u32], new: &[u32]) -> Vec<Range<u32>> {
    let mut ranges: Vec<Range<u32>> = Vec::new();
    for (&a, &b) in old.iter().zip(new).skip(1) {
        let r = a.min(b)..a.max(b);
        match ranges.last_mut() {
            _ if r.is_empty() => {}
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => ranges.push(r),
        }
    }
    ranges
}

/// The partition of each of `routers` routers, partition i holding the routers from
/// `starts[i]` to the next start: a byte each, so that a pass over the channels looks their
/// ends up rather than searching the starts for each (at 1 M nodes, 9.4 M channels).
pub(super) fn router_partitions(routers: usize, starts: &[u32]) -> Vec<u8> {
    let mut part = vec![0; routers];
    for (i, &s) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(routers, |&e| e as usize);
        part[s as usize..end].fill(i as u8);
    }
    part
}

/// Each router's partition, and the routers at the ends of each channel: the partitions on
/// the two sides of every channel, a few instructions each.
pub(super) struct Ends<'a> {
    links: &'a [Link],
    proc_at: &'a [u32],
    /// Each router's partition ([`router_partitions`]).
    pub(super) part: Vec<u8>,
}

impl<'a> Ends<'a> {
    /// The ends of `net`'s channels, partition i holding the routers from `starts[i]` on.
    pub(super) fn new(net: &'a Network, starts: &[u32]) -> Ends<'a> {
        Ends {
            links: net.topology.links(),
            proc_at: &net.proc_at,
            part: router_partitions(net.routers(), starts),
        }
    }

    /// The partitions holding channel `c`'s buffers (the router it enters) and owning it (the
    /// router it leaves; a processor's injection channel is its router's).
    #[inline]
    pub(super) fn sides(&self, c: u32) -> (u8, u8) {
        match self.links.get(c as usize) {
            Some(l) => (self.part[l.dst as usize], self.part[l.src as usize]),
            None => {
                let at = self.part[self.proc_at[c as usize - self.links.len()] as usize];
                (at, at)
            }
        }
    }
}

/// The partition that injects each node's messages: the one holding its processors' routers,
/// `u8::MAX` when they are in several; `part` being each router's partition.
pub(super) fn homes(net: &Network, part: &[u8]) -> Vec<u8> {
    let a = net.attach as usize;
    (0..net.nodes as usize)
        .map(|p| {
            let at = |k: usize| part[net.proc_at[p * a + k] as usize];
            let first = at(0);
            if (1..a).all(|k| at(k) == first) {
                first
            } else {
                u8::MAX
            }
        })
        .collect()
}

/// Cycles between two looks at the threads' speeds, at least.
const EVERY: u64 = 64;

/// The threads' shares are weighed when their slowest exceeds their mean by this much.
const SLACK: f64 = 1.05;

/// How far a move goes from the partitions' routers towards their shares by speed.
const STEP: f64 = 0.75;

/// How long the cycles between two looks take at least, in multiples of the last move.
const PAYBACK: u64 = 20;

/// How long the cycles between two looks take at least, in ns (a tenth of a second: on a
/// small network a look's timing is mostly the threads' meeting points).
const WINDOW: u64 = 100_000_000;

/// What the threads had done at the last look, and when to look again.
#[derive(Clone)]
pub(super) struct Balance {
    /// Each thread's time in the steps, in ns, at the last look.
    busy: Vec<u64>,
    /// The cycles, and their time in ns, at the last look.
    cycles: u64,
    wall: u64,
    /// The last move's time, in ns.
    cost: u64,
}

impl Balance {
    /// No look yet, for `threads` threads.
    pub(super) fn new(threads: usize) -> Balance {
        Balance {
            busy: vec![0; threads],
            cycles: 0,
            wall: 0,
            cost: 0,
        }
    }

    /// Looks again from a profile started anew (the last move's cost is kept).
    pub(super) fn restart(&mut self) {
        *self = Balance {
            cost: self.cost,
            ..Balance::new(self.busy.len())
        };
    }
}

/// Each partition's routers moved `STEP` of the way from `now` to shares in proportion to
/// `speed` (each keeping at least an eighth of its even share), as the first router of each.
fn toward(now: &[u64], speed: &[f64], routers: u64) -> Vec<u32> {
    let n = now.len() as u64;
    let least = (routers / (8 * n)).max(1);
    let total: f64 = speed.iter().sum();
    let mut starts = Vec::with_capacity(now.len());
    let mut at = 0u64;
    for (i, (&r, &v)) in now.iter().zip(speed).enumerate() {
        starts.push(at as u32);
        let fair = routers as f64 * v / total;
        let left = routers - at - least * (n - 1 - i as u64);
        let to = r as f64 + STEP * (fair - r as f64);
        at += to.round().clamp(least as f64, left as f64) as u64;
    }
    starts
}

impl Split {
    /// After a cycle: the new first router of each partition when the threads' time in the
    /// steps since the last look, against the routers each partition holds, calls for a move.
    pub(super) fn rebalance(&mut self, routers: usize) -> Option<Vec<u32>> {
        // Partitions run in turn on one thread have no threads' speeds to follow.
        if routers < 8 * self.starts.len() || self.crew.runs_in_turn() {
            return None;
        }
        let p = &self.profile.profile;
        let b = &mut self.balance;
        if p.cycles < b.cycles + EVERY || p.total < b.wall + WINDOW.max(PAYBACK * b.cost) {
            return None;
        }
        let busy: Vec<u64> = p.by_thread.iter().map(|s| s.iter().sum()).collect();
        let spent: Vec<u64> = busy.iter().zip(&b.busy).map(|(x, y)| x - y).collect();
        (b.busy, b.cycles, b.wall) = (busy, p.cycles, p.total);
        let (slowest, sum) = (*spent.iter().max()?, spent.iter().sum::<u64>());
        if spent.contains(&0) || (slowest * spent.len() as u64) as f64 <= SLACK * sum as f64 {
            return None;
        }
        let mut held: Vec<u64> = self
            .starts
            .windows(2)
            .map(|w| (w[1] - w[0]) as u64)
            .collect();
        held.push(routers as u64 - self.starts[self.starts.len() - 1] as u64);
        let speed: Vec<f64> = held
            .iter()
            .zip(&spent)
            .map(|(&r, &t)| r as f64 / t as f64)
            .collect();
        let starts = toward(&held, &speed, routers as u64);
        (starts != self.starts).then_some(starts)
    }

    /// Notes how long the last move took, which sets how long the cycles run before the next
    /// look.
    pub(super) fn repartitioned(&mut self, took: Duration) {
        self.balance.cost = took.as_nanos() as u64;
    }

    /// Moves the partitions' boundaries to `starts` between two cycles: each buffer that
    /// changes partition takes its places in the active and header sets with it, each channel
    /// that changes owner its wait list (in order), each changed channel's buffers their
    /// marks; in a one-pass cycle, the buffers feeding a channel whose holder changed are
    /// weighed again for the header sets (whether a body's message leaves its partition).
    /// Only the channels at the routers that change partition are visited, when the topology
    /// lists a router's links (at 1 M nodes, a 1,000-router move visits 10^4 channels, not
    /// 9.4 M); every channel otherwise.
    pub(super) fn repartition(
        &mut self,
        net: &Network,
        starts: Vec<u32>,
        buf: &mut [Buf],
        chans: &mut [Chan],
    ) {
        let mut feeding = Vec::new();
        let ends = Ends::new(net, &starts);
        let old = self.starts.clone();
        let mut listed = true;
        for r in moved_ranges(&old, &starts).into_iter().flatten() {
            listed = net.topology.each_link_at(r, |c| {
                self.move_channel(net, c, &ends, buf, chans, &mut feeding)
            });
            if !listed {
                break;
            }
        }
        if listed {
            // The injection channels of the processors at those routers.
            for (i, &r) in net.proc_at.iter().enumerate() {
                if partition_of(r, &old) != ends.part[r as usize] {
                    let c = net.links + i as u32;
                    self.move_channel(net, c, &ends, buf, chans, &mut feeding);
                }
            }
        } else {
            for c in 0..self.sides.channels() as u32 {
                self.move_channel(net, c, &ends, buf, chans, &mut feeding);
            }
        }
        let (vcs, listing) = (net.vcs, self.parts[0].work.active.listing());
        self.routers = super::router_table(&ends);
        self.home = homes(net, &ends.part);
        self.starts = starts;
        if listing {
            // The lists' members go to their buffers' holders.
            let mut members = Vec::new();
            for p in &mut self.parts {
                members.extend(p.work.active.take_members());
            }
            for b in members {
                self.parts[self.sides.holder(b / vcs) as usize]
                    .work
                    .active
                    .add(b);
            }
        }
        let bufchans = net.buffered_channels();
        for b in feeding {
            for p in &mut self.parts {
                p.work.heads.remove(b);
            }
            self.weigh_head(b, &buf[b as usize], vcs, bufchans);
        }
    }

    /// Channel `c` goes to the partitions `ends` gives its sides (nothing when they are its
    /// sides already, so that a channel met twice moves once): its buffers' places in the
    /// active sets, its wait list and its marks; the buffers whose header sets may change are
    /// pushed on `feeding`.
    fn move_channel(
        &mut self,
        net: &Network,
        c: u32,
        ends: &Ends,
        buf: &mut [Buf],
        chans: &mut [Chan],
        feeding: &mut Vec<u32>,
    ) {
        let vcs = net.vcs;
        let (holder, feeder) = ends.sides(c);
        let (was_holder, was_feeder) = (self.sides.holder(c), self.sides.feeder(c));
        if (holder, feeder) == (was_holder, was_feeder) {
            return;
        }
        if holder != was_holder {
            let (listing, heads) = (
                self.parts[0].work.active.listing(),
                self.parts[0].work.heads.on(),
            );
            for b in c * vcs..(c + 1) * vcs {
                let (from, to) = (was_holder as usize, holder as usize);
                if !listing && self.parts[from].work.active.contains(b) {
                    self.parts[from].work.active.remove(b);
                    self.parts[to].work.active.insert(b);
                }
                if heads {
                    feeding.push(b);
                    let up = buf[b as usize].up;
                    if (up as usize) < buf.len() - 1 {
                        feeding.push(up);
                    }
                }
            }
        }
        if feeder != was_feeder && chans[c as usize].wait != NONE {
            let list = self.parts[was_feeder as usize]
                .work
                .waits
                .take_list(c as usize, chans);
            self.parts[feeder as usize]
                .work
                .waits
                .put_list(c as usize, &list, chans);
        }
        self.sides.set(c, holder, feeder);
        self.sides.mark_channel(c, buf, chans, vcs);
    }
}

#[cfg(test)]
mod tests {
    use super::{even_starts, moved_ranges, partition_of, router_partitions, toward};

    #[test]
    fn even_partitions_cut_the_routers_as_before() {
        // Router r of R was in partition ((r + 1) n - 1) / R among n.
        for routers in [1usize, 2, 7, 64, 100, 1000] {
            for n in 1..=5 {
                let starts = even_starts(routers, n);
                for r in 0..routers as u32 {
                    let before = ((r as usize + 1) * n - 1) / routers;
                    assert_eq!(
                        partition_of(r, &starts) as usize,
                        before,
                        "{routers} {n} {r}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_routers_table_gives_each_router_its_partition() {
        for (routers, starts) in [
            (1usize, vec![0u32]),
            (7, vec![0, 3]),
            (12, vec![0, 1, 10, 11]),
            (1000, even_starts(1000, 5)),
        ] {
            let part = router_partitions(routers, &starts);
            assert_eq!(part.len(), routers);
            for r in 0..routers as u32 {
                assert_eq!(part[r as usize], partition_of(r, &starts), "{starts:?} {r}");
            }
        }
    }

    #[test]
    fn the_moved_ranges_are_the_routers_that_change_partition() {
        for (routers, old, new) in [
            (40u32, vec![0u32, 10, 20], vec![0, 25, 30]),
            (40, vec![0, 10, 20], vec![0, 5, 35]),
            (40, vec![0, 20], vec![0, 20]),
            (12, vec![0, 1, 10, 11], vec![0, 9, 10, 11]),
            (1000, even_starts(1000, 5), vec![0, 150, 420, 600, 990]),
        ] {
            let ranges = moved_ranges(&old, &new);
            assert!(
                ranges.windows(2).all(|w| w[0].end < w[1].start),
                "{ranges:?}"
            );
            for r in 0..routers {
                let moved = partition_of(r, &old) != partition_of(r, &new);
                let listed = ranges.iter().any(|g| g.contains(&r));
                assert_eq!(listed, moved, "{old:?} to {new:?}: router {r}");
            }
        }
    }

    #[test]
    fn boundaries_move_towards_routers_in_proportion_to_speed() {
        // A thread twice as fast as the other should hold two thirds: three quarters of the
        // way there from a half.
        assert_eq!(toward(&[600, 600], &[2.0, 1.0], 1200), vec![0, 750]);
        // Equal speeds leave equal partitions where they are.
        assert_eq!(
            toward(&[400, 400, 400], &[1.0, 1.0, 1.0], 1200),
            vec![0, 400, 800]
        );
        // A partition keeps an eighth of its even share however slow its thread.
        assert_eq!(toward(&[100, 1100], &[1e-9, 1.0], 1200), vec![0, 75]);
        // Every partition keeps at least a router.
        let starts = toward(&[1, 1, 1], &[1.0, 1e-9, 1e-9], 3);
        assert_eq!(starts, vec![0, 1, 2]);
    }
}
