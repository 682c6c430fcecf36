//! Steps 2 and 4 of the cycle, written once: the requests (`request.rs`), the grants
//! (`grant.rs`) and the downstream half of a grant (`apply.rs`). The one thread runs them over
//! every record ([`Whole`]); each partition of a split cycle runs them over the records it
//! holds ([`PartOf`]), posting what a grant does to another partition's records as an
//! [`Effect`] that partition applies. Every check of who holds a record is a method of
//! [`Hold`], which folds to a constant for the one thread, so that its cycle compiles to what
//! it would be written alone.

pub(super) mod apply;
pub(super) mod grant;
pub(super) mod request;

use super::active::ActiveSet;
use super::crossbar::InputPorts;
use super::flows::Flows;
use super::partition::Sides;
use super::parts::{Buf, Chan, EarlyFree, SLOT_BITS, WaitLists};
use super::timing::LinkPipe;
use crate::records::View;
pub(super) use apply::{Effect, Outbox};

/// Who holds the records a step touches: every record (the one thread) or a partition's.
pub(super) trait Hold {
    /// Every record is held here: each check below is a constant.
    const ALL: bool;
    /// The bits of a record's `slot` that are its driver slot (a split marks the rest).
    const SLOT: u16;

    /// The partition running the step.
    fn me(&self) -> usize;

    /// The partition holding the buffers of channel `c` (of records `chans`), which this one
    /// feeds.
    fn holder_from(&self, c: u32, chans: &View<Chan>) -> usize;

    /// The partition feeding the channel of buffer `b` (of `vcs` a channel), whose record is
    /// `r` (held here): its upstream buffers, arbiter and wait list.
    fn feeder_into(&self, b: u32, vcs: u32, r: &Buf) -> usize;

    /// Whether channel `c` (of records `chans`), fed here, enters another partition's router.
    fn leaves(&self, c: u32, chans: &View<Chan>) -> bool;
}

/// The one thread, which holds every record.
pub(super) struct Whole;

impl Hold for Whole {
    const ALL: bool = true;
    const SLOT: u16 = u16::MAX;

    #[inline(always)]
    fn me(&self) -> usize {
        0
    }

    #[inline(always)]
    fn holder_from(&self, _: u32, _: &View<Chan>) -> usize {
        0
    }

    #[inline(always)]
    fn feeder_into(&self, _: u32, _: u32, _: &Buf) -> usize {
        0
    }

    #[inline(always)]
    fn leaves(&self, _: u32, _: &View<Chan>) -> bool {
        false
    }
}

/// Partition `me` of a split cycle, the partitions on each channel's sides being `sides`.
pub(super) struct PartOf<'a> {
    pub sides: &'a Sides,
    pub me: u8,
}

impl Hold for PartOf<'_> {
    const ALL: bool = false;
    const SLOT: u16 = SLOT_BITS;

    #[inline(always)]
    fn me(&self) -> usize {
        self.me as usize
    }

    #[inline(always)]
    fn holder_from(&self, c: u32, chans: &View<Chan>) -> usize {
        self.sides.holder_from(c, &chans[c as usize], self.me) as usize
    }

    #[inline(always)]
    fn feeder_into(&self, b: u32, vcs: u32, r: &Buf) -> usize {
        self.sides.feeder_into(b / vcs, r, self.me) as usize
    }

    #[inline(always)]
    fn leaves(&self, c: u32, chans: &View<Chan>) -> bool {
        self.sides.leaves(c, &chans[c as usize], self.me)
    }
}

/// The working sets of the one thread or of one partition: what its steps visit and keep.
/// The one thread's cycle is the one-partition case: the engine holds one, a split cycle's
/// partitions one each.
#[derive(Clone, Default)]
pub(in crate::engine) struct Working {
    /// Its buffers that may move.
    pub active: ActiveSet,
    /// One-pass cycle: its buffers with a header at the front (and, split, those whose
    /// message leaves the partition); empty otherwise.
    pub heads: ActiveSet,
    /// One-pass cycle: its buffers that may move, listed before the grants.
    pub pull: Vec<u32>,
    /// One-pass cycle: its buffers that asked for a channel this cycle.
    pub asked: Vec<u32>,
    /// Its arbiters with a request this cycle.
    pub requested: ActiveSet,
    /// The wait lists of its channels (their heads are in the channels' records).
    pub waits: WaitLists,
    /// Its flowing worms (`flows.rs`).
    pub flows: Flows,
    /// The buffers or arbiters a step visits, in id order (reused).
    pub visit: Vec<u32>,
}

impl Working {
    /// The working sets of `net` under `plan`: its buffers' sets, listing them in a one-pass
    /// cycle and keeping its headers apart then; its arbiters' set; wait lists if the routing's
    /// candidates never change while a header waits (`waits`).
    pub fn new(net: &crate::network::Network, plan: &super::Plan, waits: bool) -> Working {
        let one = plan.one_pass();
        let mut active = ActiveSet::new(net.buffers() + 1);
        active.keep_listing(one);
        Working {
            active,
            heads: match one {
                true => ActiveSet::new(net.buffers() + 1),
                false => ActiveSet::default(),
            },
            requested: ActiveSet::new(net.arb_drivers.len()),
            waits: WaitLists::new(waits, net.buffers()),
            flows: Flows {
                on: plan.flows(),
                ..Flows::default()
            },
            ..Working::default()
        }
    }

    /// Wakes buffer `b` of `buf` if it is asleep.
    #[inline]
    pub fn wake(&mut self, buf: &mut [Buf], b: u32) {
        match self.active.listing() {
            true => super::parts::wake::<true>(buf, &mut self.active, b),
            false => super::parts::wake::<false>(buf, &mut self.active, b),
        }
    }

    /// Tracks buffer `t` of `buf`, which just received a flit, if it was untracked.
    #[inline]
    pub fn track(&mut self, buf: &mut [Buf], t: u32) {
        super::parts::track_either(buf, &mut self.active, t);
    }

    /// Bytes of its sets and lists.
    pub fn heap_bytes(&self) -> u64 {
        use super::memory::vec_bytes;
        self.active.words_bytes()
            + self.heads.words_bytes()
            + vec_bytes(&self.pull)
            + vec_bytes(&self.asked)
            + self.requested.words_bytes()
            + self.waits.heap_bytes()
            + self.flows.heap_bytes()
            + vec_bytes(&self.visit)
    }
}

/// The router model beyond the papers' (one thread only: the split keeps to the papers').
pub(super) struct Timing<'a> {
    /// Early free's queues.
    pub early: &'a mut EarlyFree,
    /// Flits and credits on links of more than one cycle.
    pub pipe: &'a mut LinkPipe,
    /// Input-port arbiters of a per-port crossbar.
    pub ports: &'a mut InputPorts,
}

/// The network's constants a step reads at every visit, read once per step (so that they stay
/// in registers: a record written through a shared array's pointer might, for all the
/// compiler knows, be the network's).
#[derive(Clone, Copy)]
pub(super) struct Dims<'a> {
    /// Shared channels' arbitration tables.
    pub drivers: crate::engine::arbitration::Drivers<'a>,
    pub vcs: u32,
    pub depth: u16,
    pub links: u32,
    /// Channels with buffers: links and injection channels.
    pub bufchans: u32,
}

impl<'a> Dims<'a> {
    /// `net`'s.
    pub fn of(net: &'a crate::network::Network) -> Dims<'a> {
        Dims {
            drivers: crate::engine::arbitration::Drivers::of(net),
            vcs: net.vcs,
            depth: net.depth,
            links: net.links,
            bufchans: net.buffered_channels(),
        }
    }
}

/// The record arrays of the cycle as a step sees them.
pub(super) struct Arrays<'a> {
    pub buf: View<'a, Buf>,
    pub chans: View<'a, Chan>,
    pub drv_rr: View<'a, u8>,
}
