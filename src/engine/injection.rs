//! Step 3 of the cycle for one source sending one message at a time: the next flit of its
//! oldest message into its injection buffer. The one-thread cycle (`Engine::inject`) and a
//! split cycle's partitions (`inject_part`, each its own sources) share it.

use super::active::ActiveSet;
use super::endpoints::SharedSources;
use super::parts::{Buf, Chan, track_either};
use super::prefetch::{AHEAD, prefetch_in};
use crate::network::NONE;
use crate::records::{Owners, Records, View};

/// What one partition's injection reads and writes beyond its sources.
pub(super) struct InjectCtx<'a> {
    pub vcs: u32,
    pub inj_vcs: u32,
    pub links: u32,
    pub depth: u16,
    pub len: &'a [u16],
    pub next: &'a [u32],
    pub now: u64,
    pub drain_only: bool,
    pub counting: u32,
    /// The network does not fit in cache: prefetching pays.
    pub far: bool,
}

/// Step 3 for partition `me` of a split cycle: `Engine::inject` on its own list of sources
/// (those whose processor its routers hold: their injection buffers and channels are its own),
/// in list order. Returns the flits injected and the messages whose tail was injected; emptied
/// sources leave the list (and are unlisted, `listed` false).
///
/// # Safety
/// Other threads inject other partitions' sources only, and touch neither this partition's
/// injection buffers and channels nor its sources' entries.
pub(super) unsafe fn inject_part(
    q: &SharedSources,
    me: u8,
    ctx: &InjectCtx,
    bufs: View<Buf>,
    chans: View<Chan>,
    active: &mut ActiveSet,
    heads: Option<&mut ActiveSet>,
) -> (u64, u64) {
    let mine = Owners::UNCHECKED;
    // SAFETY: list `me` is this partition's alone,
    let mut lists = unsafe { q.lists.view(me, mine) };
    // SAFETY: and the sources' columns are written at its own sources only (the contract),
    let head = unsafe { q.head.view(me, mine) };
    // SAFETY: as for `head`,
    let buf = unsafe { q.buf.view(me, mine) };
    // SAFETY: as for `head`,
    let link = unsafe { q.link.view(me, mine) };
    // SAFETY: as for `head`,
    let sent = unsafe { q.sent.view(me, mine) };
    // SAFETY: as for `head`,
    let mut listed = unsafe { q.listed.view(me, mine) };
    // SAFETY: and a message's injection cycle by its source's partition alone.
    let inject = unsafe { q.inject.view(me, mine) };
    let mut one = Injector {
        head,
        buf,
        link,
        sent,
        bufs,
        chans,
        active,
        heads,
        inject,
        len: ctx.len,
        next: ctx.next,
        vcs: ctx.vcs,
        inj_vcs: ctx.inj_vcs,
        depth: ctx.depth,
        now: ctx.now,
        counting: ctx.counting,
    };
    let list = &mut lists[me as usize];
    one.list(list, &mut listed, ctx.drain_only, ctx.far, |s, _| {
        ctx.links + s
    })
}

/// What one source's step 3 did.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Sent {
    /// No flit: no free injection buffer, or no space in its own.
    Nothing,
    /// A flit, not its message's tail.
    Flit,
    /// Its message's tail; more messages are queued.
    Tail,
    /// Its message's tail, and its queue is now empty.
    Last,
}

/// What step 3 reads and writes of one source (one message at a time): its queue's columns,
/// the injection buffers and channels, the messages' columns.
pub(super) struct Injector<'a> {
    pub(super) head: View<'a, u32>,
    pub(super) buf: View<'a, u32>,
    pub(super) link: View<'a, u32>,
    pub(super) sent: View<'a, u16>,
    pub(super) bufs: View<'a, Buf>,
    pub(super) chans: View<'a, Chan>,
    pub(super) active: &'a mut ActiveSet,
    /// The buffers with a header at the front, in a one-pass cycle.
    pub(super) heads: Option<&'a mut ActiveSet>,
    pub(super) inject: View<'a, u64>,
    pub(super) len: &'a [u16],
    pub(super) next: &'a [u32],
    pub(super) vcs: u32,
    pub(super) inj_vcs: u32,
    pub(super) depth: u16,
    pub(super) now: u64,
    /// What a flit adds to its channel's counters (`Arbiters::counting`).
    pub(super) counting: u32,
}

impl Injector<'_> {
    /// Step 3 on the sources of `list`, in list order: each sends a flit of its oldest message
    /// (none while `drain_only`, unless that message has started) into an injection buffer of
    /// channel `channel(source, message)`. A source whose queue empties leaves the list and is
    /// unlisted (`listed` false). Returns the flits injected and the messages whose tail was.
    #[inline(always)]
    pub(super) fn list(
        &mut self,
        list: &mut Vec<u32>,
        listed: &mut (impl Records<bool> + ?Sized),
        drain_only: bool,
        far: bool,
        channel: impl Fn(u32, u32) -> u32,
    ) -> (u64, u64) {
        let (mut injected, mut finished) = (0, 0);
        let mut i = 0;
        while i < list.len() {
            if far {
                self.ahead(i, list);
            }
            let s = list[i];
            let su = s as usize;
            if drain_only && self.sent[su] == 0 {
                i += 1;
                continue;
            }
            let sent = self.source(su, |m| channel(s, m));
            injected += (sent != Sent::Nothing) as u64;
            finished += (sent == Sent::Tail || sent == Sent::Last) as u64;
            if sent == Sent::Last {
                listed[su] = false;
                list.swap_remove(i);
                continue;
            }
            i += 1;
        }
        (injected, finished)
    }

    /// On a network larger than the caches: asks for what the step of source `list[i + AHEAD]`
    /// reads (its queue's columns), and for what that of `list[i + AHEAD / 2]` writes (its
    /// message's injection buffer and channel, the buffer's word of the active set). A hint
    /// only: sources are far apart in memory, and each step would wait on their misses.
    #[inline(always)]
    pub(super) fn ahead(&self, i: usize, list: &[u32]) {
        if let Some(&s) = list.get(i + AHEAD) {
            prefetch_in(&self.head, s);
            prefetch_in(&self.buf, s);
            prefetch_in(&self.link, s);
            prefetch_in(&self.sent, s);
        }
        if let Some(&s) = list.get(i + AHEAD / 2) {
            let t = self.buf[s as usize];
            if t != NONE {
                prefetch_in(&self.bufs, t);
                prefetch_in(&self.chans, self.link[s as usize]);
                if !self.active.listing() {
                    self.active.prefetch(t);
                }
            }
        }
    }

    /// Source `s` sends the next flit of its oldest message into its injection buffer, or
    /// into the lowest free one of channel `channel(message)` when the message starts, if
    /// that buffer has space.
    #[inline(always)]
    pub(super) fn source(&mut self, s: usize, channel: impl FnOnce(u32) -> u32) -> Sent {
        let m = self.head[s];
        let mut t = self.buf[s];
        let mut link = self.link[s];
        if t == NONE {
            link = channel(m);
            let base = link * self.vcs;
            let bufs = &self.bufs;
            match (base..base + self.inj_vcs).find(|&b| bufs[b as usize].msg == NONE) {
                Some(b) => t = b,
                None => return Sent::Nothing,
            }
        }
        let tu = t as usize;
        if self.bufs[tu].cnt >= self.depth {
            return Sent::Nothing;
        }
        let len = self.len[m as usize];
        if self.sent[s] == 0 {
            let tb = &mut self.bufs[tu];
            tb.msg = m;
            tb.sent = 0;
            tb.last = self.now as u32;
            if let Some(heads) = self.heads.as_deref_mut() {
                heads.insert(t);
            }
            self.inject[m as usize] = self.now;
            self.buf[s] = t;
            self.link[s] = link;
            self.chans[link as usize].msgs += self.counting;
        }
        self.chans[link as usize].flits += self.counting;
        self.bufs[tu].cnt += 1;
        track_either(&mut self.bufs, self.active, t);
        self.sent[s] += 1;
        if self.sent[s] < len {
            return Sent::Flit;
        }
        self.head[s] = self.next[m as usize];
        self.buf[s] = NONE;
        self.sent[s] = 0;
        if self.head[s] == NONE {
            Sent::Last
        } else {
            Sent::Tail
        }
    }
}
