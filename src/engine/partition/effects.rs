//! The grants of a split cycle and their effects (see the parent module, `step/grant.rs` and
//! `step/apply.rs`): each partition injects its own sources and grants its own arbiters; what
//! a grant does beyond its winner is done at once on what the partition holds, else posted as
//! an [`Effect`] to the partition that holds it, which applies it once every partition has
//! granted.

use super::Part;
use super::sides::Sides;
use crate::engine::endpoints::SharedSources;
use crate::engine::flows;
use crate::engine::injection::{InjectCtx, inject_part};
use crate::engine::parts::{Buf, Chan};
use crate::engine::step::apply::apply_inbox;
use crate::engine::step::grant::{Grants, grants};
use crate::engine::step::{Arrays, Dims, Outbox, PartOf};
use crate::network::Network;
use crate::records::{Owners, Shared};
use crate::stats::{BufferClasses, Hops};

/// What the partitions' grants and effects share.
pub(super) struct TraverseCtx<'a> {
    pub(super) net: &'a Network,
    /// The partitions holding each buffered channel's buffers and owning it.
    pub(super) sides: &'a Sides,
    /// The messages' lengths in flits.
    pub(super) lens: &'a [u16],
    /// Step 3 in the partitions: the sources' queues and what injection reads.
    pub(super) inject: Option<(&'a SharedSources<'a>, &'a InjectCtx<'a>)>,
    pub(super) buf: Shared<'a, Buf>,
    pub(super) chans: Shared<'a, Chan>,
    pub(super) drv_rr: Shared<'a, u8>,
    /// Who holds each buffer and channel (debug builds check it).
    pub(super) owners: [Owners<'a>; 2],
    /// The messages' creation cycles and sources, and the partition injecting each node's
    /// messages (for `flows::Shape`).
    pub(super) created: &'a [u64],
    pub(super) src: &'a [u32],
    pub(super) home: &'a [u8],
    pub(super) busy: Shared<'a, u8>,
    /// Each message's hops: written by the partition that grants its header.
    pub(super) hops: Shared<'a, Hops>,
    pub(super) classes: BufferClasses,
    pub(super) boxes: Shared<'a, Outbox>,
    pub(super) parts: usize,
    pub(super) cycle: u64,
    pub(super) far: bool,
    /// What a flit adds to its channel's counters (`Arbiters::counting`).
    pub(super) counting: u32,
}

impl TraverseCtx<'_> {
    /// What partition `i`'s walks along its worms need.
    fn shape(&self, i: usize) -> flows::Shape<'_> {
        flows::Shape {
            no_up: self.net.buffers() as u32,
            bufchans: self.net.buffered_channels(),
            vcs: self.net.vcs,
            counting: self.counting,
            holders: self.sides.holders(),
            me: i as u8,
            created: self.created,
            src: self.src,
            home: self.home,
        }
    }

    /// Partition `i`'s grants (`p`, its working sets).
    ///
    /// # Safety
    /// Other threads run other partitions' steps of the same phase, and nothing else.
    unsafe fn grants_of<'a>(&'a self, i: usize, p: &'a mut Part) -> Grants<'a> {
        let [bufs, chans] = self.owners;
        let me = i as u8;
        // SAFETY: a partition touches only the buffers it holds (the caller's contract).
        let buf = unsafe { self.buf.view(me, bufs) };
        // SAFETY: and the channels it owns: their arbiters, counters and wait lists.
        let chans = unsafe { self.chans.view(me, chans) };
        // SAFETY: and the turns of the drivers of its routers.
        let drv_rr = unsafe { self.drv_rr.view(me, Owners::UNCHECKED) };
        // SAFETY: and the occupancy counts of the links it owns.
        let busy = unsafe { self.busy.view(me, Owners::UNCHECKED) };
        // SAFETY: and the hops of the messages whose header it grants (one place each).
        let hops = unsafe { self.hops.view(me, Owners::UNCHECKED) };
        // SAFETY: and its own row (grants) or column (effects) of the boxes.
        let boxes = unsafe { self.boxes.view(me, Owners::UNCHECKED) };
        let arr = Arrays { buf, chans, drv_rr };
        Grants {
            net: self.net,
            dims: Dims::of(self.net),
            lens: self.lens,
            arr,
            busy,
            hist: &mut p.hist,
            hops,
            classes: self.classes,
            lane: &mut p.work,
            boxes,
            row: i * self.parts,
            timing: None,
            delivered: &mut p.delivered,
            cycle: self.cycle,
            far: self.far,
            counting: self.counting,
            no_up: self.net.buffers() as u32,
            shape: self.shape(i),
            moved: 0,
            ejected: 0,
        }
    }
}

/// Partition `i`'s injection (when `ctx.inject`), then its grants: each of its requested
/// arbiters moves its winner's flit, in arbiter order; what the move does to buffers and
/// channels held elsewhere is posted to their partitions as effects.
///
/// # Safety
/// Other threads run other partitions' grants of the same cycle, and nothing else.
pub(super) unsafe fn grant_part<const SHARED: bool, const ONE: bool>(
    i: usize,
    p: &mut Part,
    ctx: &TraverseCtx,
) {
    let (mut injected, mut finished) = (0, 0);
    if let Some((sources, injection)) = ctx.inject {
        let [bufs, chans] = ctx.owners;
        let me = i as u8;
        let heads = Some(&mut p.work.heads).filter(|h| h.on());
        // SAFETY: injection writes only this partition's injection buffers,
        let buf = unsafe { ctx.buf.view(me, bufs) };
        // SAFETY: and its injection channels' counters.
        let chans = unsafe { ctx.chans.view(me, chans) };
        let active = &mut p.work.active;
        // SAFETY: other threads inject other partitions' sources only (the caller's contract).
        let done = unsafe { inject_part(sources, me, injection, buf, chans, active, heads) };
        (injected, finished) = done;
    }
    // SAFETY: the caller's contract.
    let g = unsafe { ctx.grants_of(i, p) };
    #[cfg(test)]
    let mut g = g;
    #[cfg(test)]
    break_the_rule(&mut g, ctx, i);
    let h = PartOf {
        sides: ctx.sides,
        me: i as u8,
    };
    let (moved, ejected) = grants::<PartOf, SHARED, false, false, ONE>(g, &h);
    p.injected += injected;
    p.finished += finished;
    p.moved += moved;
    p.ejected += ejected;
}

/// Partition `j` applies the effects posted to it: flits arriving in its buffers, its buffers
/// woken, its channels freed.
///
/// # Safety
/// Other threads apply other partitions' effects of the same cycle, and nothing else.
pub(super) unsafe fn apply_part<const ONE: bool>(j: usize, p: &mut Part, ctx: &TraverseCtx) {
    // SAFETY: the caller's contract.
    let mut g = unsafe { ctx.grants_of(j, p) };
    let n = ctx.parts;
    for from in 0..n {
        let mut inbox = std::mem::take(&mut g.boxes[from * n + j].0);
        apply_inbox::<ONE>(&mut g, &mut inbox);
        g.boxes[from * n + j].0 = inbox;
    }
}

#[cfg(test)]
thread_local! {
    /// A deliberately broken rule, for the test that the ownership check catches one: when
    /// set on a thread, partition 0's grants run on it write a buffer another partition holds.
    /// Per thread, so that the test, whose partitions run in turn on its own thread, breaks no
    /// other test's engine.
    pub(super) static BREAK_THE_RULE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Partition `i`'s grants `g` break the rule when [`BREAK_THE_RULE`] is set on this thread.
#[cfg(test)]
fn break_the_rule(g: &mut Grants, ctx: &TraverseCtx, i: usize) {
    if i != 0 || !BREAK_THE_RULE.with(|b| b.get()) {
        return;
    }
    let vcs = ctx.net.vcs;
    let theirs = (0..ctx.sides.channels() as u32).find(|&c| ctx.sides.holder(c) != 0);
    if let Some(c) = theirs {
        g.arr.buf[(c * vcs) as usize].cnt += 0;
    }
}
