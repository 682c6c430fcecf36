//! The grants of a split cycle and their effects (see the parent module): each partition
//! injects its own sources and grants its own arbiters; what a grant does beyond its winner is
//! done at once on what the partition holds, else posted as an [`Effect`] to the partition
//! that holds it, which applies it once every partition has granted.

use super::Part;
use super::sides::Sides;
use crate::engine::arbitration::{ask_arbiter, grant_arbiter};
use crate::engine::crew::Shared;
use crate::engine::endpoints::SharedSources;
use crate::engine::injection::{InjectCtx, inject_part};
use crate::engine::parts::{
    ASLEEP, Buf, Chan, FLOW, NO_REQUEST, SLOT_BITS, keep_asked, rival_fed, track, wake,
};
use crate::engine::{flows, prefetch, vc_on};
use crate::network::{NONE, Network};
use crate::stats::occupancy;

/// What a grant does beyond its winner: done at once on what the granting partition holds,
/// else applied by the partition that holds it after every grant.
#[derive(Clone, Copy, Debug)]
pub(super) enum Effect {
    /// A flit of message `m` arrives in buffer `t` from buffer `from`: its header, its tail,
    /// or neither.
    Flit {
        t: u32,
        from: u32,
        m: u32,
        header: bool,
        tail: bool,
    },
    /// Buffer `b`, upstream of a buffer that sent a flit, may send again.
    Wake(u32),
    /// A buffer of channel `c` is free: its occupancy falls and its waiting headers wake.
    Freed(u32),
}

/// The effects one partition posts to another in a cycle, on cache lines of its own (its
/// length changes with every effect posted).
#[derive(Clone)]
#[repr(align(128))]
pub(super) struct Outbox(pub(super) Vec<Effect>);

/// What a grant and an effect read and write beyond the partition.
pub(super) struct TraverseCtx<'a> {
    pub(super) net: &'a Network,
    /// The partitions holding each buffered channel's buffers and owning it.
    pub(super) sides: &'a Sides,
    /// The messages' lengths in flits.
    pub(super) lens: &'a [u16],
    /// Step 3 in the partitions: the sources' queues and what injection reads.
    pub(super) inject: Option<(&'a SharedSources, &'a InjectCtx<'a>)>,
    pub(super) injected_at: Shared<u64>,
    pub(super) buf: Shared<Buf>,
    pub(super) chans: Shared<Chan>,
    pub(super) drv_rr: Shared<u8>,
    /// The messages' creation cycles and sources, and the partition injecting each node's
    /// messages (for `flows::Shape`).
    pub(super) created: &'a [u64],
    pub(super) src: &'a [u32],
    pub(super) home: &'a [u8],
    pub(super) busy: Shared<u8>,
    pub(super) boxes: Shared<Outbox>,
    pub(super) parts: usize,
    pub(super) adaptive_vcs: u32,
    pub(super) now: u32,
    pub(super) far: bool,
    /// What a flit adds to its channel's counters (`Arbiters::counting`).
    pub(super) counting: u32,
}

// SAFETY: the raw slices follow `Shared`'s rules; the rest is read-only during the step.
unsafe impl Sync for TraverseCtx<'_> {}

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
    after: u64,
) {
    // SAFETY: own arbiters, own buffers (the winners), own channels' counters and occupancy,
    // and this partition's row of boxes are written.
    let (buf, chans, drv_rr, busy) = unsafe {
        (
            ctx.buf.get(),
            ctx.chans.get(),
            ctx.drv_rr.get(),
            ctx.busy.get(),
        )
    };
    let n = ctx.parts;
    // SAFETY: row i of the boxes is this partition's alone during the grants.
    let boxes = unsafe { &mut ctx.boxes.get()[i * n..(i + 1) * n] };
    let net = ctx.net;
    let (vcs, now, bufchans) = (net.vcs, ctx.now, net.buffered_channels());
    let no_up = (buf.len() - 1) as u32;
    let flowing = ONE && p.flows.on;
    let shape = ctx.shape(i);
    if let Some((sources, injection)) = ctx.inject {
        // SAFETY: this partition's sources, injection buffers and channels are its own.
        let (injected, finished) = unsafe {
            inject_part(
                sources,
                i as u8,
                injection,
                buf,
                chans,
                &mut p.active,
                Some(&mut p.heads).filter(|h| h.on()),
                ctx.injected_at.get(),
            )
        };
        p.injected += injected;
        p.finished += finished;
    }
    // An effect on what this partition holds is applied at once, as the one-thread cycle
    // does; one on another's is posted to it.
    macro_rules! post {
        ($to:expr, $e:expr) => {
            if $to == i {
                apply::<ONE>($e, p, (&mut *buf, &mut *chans, &mut *busy), ctx, after)
            } else {
                boxes[$to].0.push($e)
            }
        };
    }
    // One grant: arbiter `$a`'s winner moves its flit.
    macro_rules! grant {
        ($a:expr) => {{
            let a: u32 = $a;
            p.moved += 1;
            let b = grant_arbiter::<SHARED>(net, chans, drv_rr, buf, a, SLOT_BITS);
            let src = &mut buf[b];
            let c = src.out_chan as usize;
            let m = src.msg;
            let header = src.sent == 0;
            let t = src.out_buf(bufchans, vcs);
            let len = ctx.lens[m as usize];
            let up = src.up;
            let feed = ctx.sides.feeder_into(b as u32 / vcs, src, i as u8) as usize;
            let was_full = src.feeder_may_sleep::<ONE>(net.depth);
            let (tail, empty) = src.send_front(len, now);
            p.active.sent::<ONE>(b as u32, empty);
            let out = &mut chans[c];
            out.flits += ctx.counting;
            out.msgs += header as u32 & ctx.counting;
            if up != no_up && was_full {
                // The upstream buffer of this message may send again: there is space here now.
                post!(feed, Effect::Wake(up));
            }
            if tail {
                let freed = b as u32 / vcs;
                post!(feed, Effect::Freed(freed));
            }
            // The partition that holds the downstream buffer (this one for an ejection).
            let to = if t != NONE {
                ctx.sides.holder_from(c as u32, &chans[c], i as u8) as usize
            } else {
                i
            };
            if ONE && header && to == i {
                // Its header has left and its body stays: step 2 need not visit it.
                p.heads.remove(b as u32);
            }
            // A flowing worm's front sent (the partition holds one part of a flowing worm at
            // most: its header, ejection or flits leaving the partition are its front's): it
            // flows on, from its header's new buffer if that is here, else from this one.
            let leaves = t == NONE || to != i;
            if flowing && (header || leaves) && p.flows.flag[m as usize] == flows::FLOWING {
                p.flows.flag[m as usize] = flows::SENT;
                p.flows.front[m as usize] = if leaves { b as u32 } else { t };
                if to != i {
                    p.flows.leaving.push(m);
                }
            }
            if flowing && tail && leaves {
                // Its tail left the partition: no part of it is here now.
                p.flows.flag[m as usize] = flows::STILL;
            }
            if t != NONE {
                if header {
                    let mi = m as usize;
                    p.hops[mi] += 1;
                    p.escape[mi] += (vc_on(t, c, vcs) >= ctx.adaptive_vcs) as u16;
                    occupancy::change(busy, &mut p.hist, c, true, after);
                }
                post!(
                    to,
                    Effect::Flit {
                        t,
                        from: b as u32,
                        m,
                        header,
                        tail,
                    }
                );
                if flowing && header && to == i && p.flows.flag[m as usize] == flows::STILL {
                    p.flows.entering.push((m, t));
                }
            } else {
                p.ejected += 1;
                if tail {
                    p.delivered.push((a, m));
                }
            }
        }};
    }
    // grant! for a body that stays in the partition and moves at once: its channel had no
    // request, so the grant only moves the turn to it, and nothing a header or an ejection
    // does applies.
    macro_rules! move_body {
        ($b:expr, $cur:expr, $c:expr, $t:expr, $convert:expr) => {{
            let (b, cur, c, t): (usize, Buf, usize, u32) = ($b, $cur, $c, $t);
            p.moved += 1;
            chans[c].rr = cur.slot & SLOT_BITS;
            let len = ctx.lens[cur.msg as usize];
            let feed = ctx.sides.feeder_into(b as u32 / vcs, &cur, i as u8) as usize;
            let was_full = cur.feeder_may_sleep::<true>(net.depth);
            let (tail, empty) = buf[b].send_front(len, now);
            if $convert {
                // Inside a flowing worm from now on: it sends a flit every cycle.
                debug_assert!(!tail);
                buf[b].state = FLOW;
                chans[c].flow = (t - c as u32 * vcs) as u8 + 1;
                p.flows.bufs += 1;
            } else {
                p.active.sent::<true>(b as u32, empty);
            }
            chans[c].flits += ctx.counting;
            if cur.up != no_up && was_full {
                post!(feed, Effect::Wake(cur.up));
            }
            if tail {
                post!(feed, Effect::Freed(b as u32 / vcs));
            }
            let flit = Effect::Flit {
                t,
                from: b as u32,
                m: cur.msg,
                header: false,
                tail,
            };
            apply::<true>(flit, p, (&mut *buf, &mut *chans, &mut *busy), ctx, after);
        }};
    }
    if flowing {
        // Worms whose channel a header asked for in step 2 stop flowing.
        let Part {
            flows, pull, asked, ..
        } = p;
        flows.start(buf, chans, pull, asked, now, shape);
    }
    if ONE {
        // The bodies staying in the partition, in id order, as `Engine::traverse` moves them
        // in a one-pass cycle: one whose channel has no other requester moves at once, the
        // others ask. Every line read is the partition's own: the channel leaves its router,
        // and the downstream buffer and its rivals enter one of its routers.
        for k in 0..p.pull.len() {
            prefetch::pull_ahead::<true>(k, &p.pull, buf, chans, &p.active, busy, ctx.lens, net);
            let b = p.pull[k] as usize;
            let cur = buf[b];
            if cur.sent == 0 {
                // A header: it asked in step 2.
                continue;
            }
            let c = cur.out_chan;
            let t = cur.out_buf(bufchans, vcs);
            if t != NONE && ctx.sides.leaves(c, &chans[c as usize], i as u8) {
                // Its message leaves the partition: it asked in step 2.
                continue;
            }
            // In a flowing worm: as in `Engine::traverse`.
            let inside = flowing && p.flows.visit(buf, b, &cur, t, now, no_up);
            if t != NONE {
                let tt = &buf[t as usize];
                let t_sent = tt.last == now;
                if tt.cnt + t_sent as u16 >= net.depth {
                    // Wormhole blocking: asleep, unless the wake-up has passed this cycle.
                    if t_sent {
                        p.active.keep::<true>(b as u32);
                    } else {
                        buf[b].state = ASLEEP;
                    }
                    if inside {
                        p.flows.stop(cur.msg, b as u32);
                    }
                    continue;
                }
                let contended =
                    chans[c as usize].best != NO_REQUEST || rival_fed(buf, c, t, vcs, no_up);
                if !contended {
                    if inside {
                        move_body!(b, cur, c as usize, t, true);
                    } else {
                        move_body!(b, cur, c as usize, t, false);
                    }
                    continue;
                }
            }
            if inside {
                p.flows.stop(cur.msg, b as u32);
            }
            // A contended channel, or an ejection channel: it asks as in step 2.
            let a = ask_arbiter::<SHARED>(net, chans, drv_rr, c, b, cur.slot & SLOT_BITS);
            p.requested.insert(a);
            p.asked.push(b as u32);
        }
    }
    p.visit.clear();
    p.requested.drain_into(&mut p.visit);
    for k in 0..p.visit.len() {
        if ctx.far {
            prefetch::traverse_ahead::<ONE, ONE>(
                k, &p.visit, buf, chans, &p.active, &p.heads, busy, ctx.lens, net,
            );
        }
        grant!(p.visit[k]);
    }
    if flowing {
        let Part {
            flows,
            active,
            asked,
            ..
        } = p;
        flows.end(buf, chans, active, asked, now, shape);
        // Its flowing worms' buffers move a flit each, which no grant counts.
        p.moved += p.flows.bufs;
    }
    if ONE {
        keep_asked(&mut p.asked, buf, &mut p.active, now);
    }
}

/// Partition `j` applies the effects posted to it: flits arriving in its buffers, its buffers
/// woken, its channels freed.
///
/// # Safety
/// Other threads apply other partitions' effects of the same cycle, and nothing else.
pub(super) unsafe fn apply_part<const ONE: bool>(
    j: usize,
    p: &mut Part,
    ctx: &TraverseCtx,
    after: u64,
) {
    // SAFETY: only buffers and channels this partition holds or owns are written, and column j
    // of the boxes is this partition's alone during the effects.
    let (buf, chans, busy, boxes) = unsafe {
        (
            ctx.buf.get(),
            ctx.chans.get(),
            ctx.busy.get(),
            ctx.boxes.get(),
        )
    };
    let n = ctx.parts;
    for from in 0..n {
        let inbox = &mut boxes[from * n + j].0;
        for k in 0..inbox.len() {
            if ctx.far
                && let Some(&ahead) = inbox.get(k + prefetch::AHEAD)
            {
                match ahead {
                    Effect::Flit { t, .. } | Effect::Wake(t) => prefetch::prefetch(buf, t),
                    Effect::Freed(c) => prefetch::prefetch(chans, c),
                }
            }
            if let Effect::Flit {
                m, header: true, ..
            } = inbox[k]
                && ONE
                && p.flows.on
            {
                // A header from another partition: no two parts of a flowing worm here.
                let shape = ctx.shape(j);
                p.flows
                    .arrival(buf, chans, &mut p.active, m, ctx.now, shape);
            }
            let held = (&mut *buf, &mut *chans, &mut *busy);
            apply::<ONE>(inbox[k], p, held, ctx, after);
        }
        inbox.clear();
    }
}

/// The slices an effect writes: buffers, channels, links' busy counts.
type Held<'a> = (&'a mut [Buf], &'a mut [Chan], &'a mut [u8]);

/// Applies effect `e` to what partition `p` holds (in `held`): a flit arriving, a buffer woken,
/// a channel freed (the grant's code of the one-thread cycle, in `Engine::traverse`).
#[inline(always)]
fn apply<const ONE: bool>(e: Effect, p: &mut Part, held: Held, ctx: &TraverseCtx, after: u64) {
    let (buf, chans, busy) = held;
    let no_up = (buf.len() - 1) as u32;
    match e {
        Effect::Flit {
            t,
            from,
            m,
            header,
            tail,
        } => {
            let tb = &mut buf[t as usize];
            if ONE && tb.state == FLOW {
                // Into a flowing worm's buffer, as in `Engine::traverse` (`into_flow`).
                if tb.last == ctx.now {
                    tb.cnt += 1;
                }
                if tail {
                    tb.up = no_up;
                    p.flows.rears.push(t);
                }
                return;
            }
            if header {
                tb.msg = m;
                tb.sent = 0;
                tb.up = from;
                tb.last = ctx.now;
                if p.heads.on() {
                    p.heads.insert(t);
                }
            }
            tb.cnt += 1;
            if tail {
                tb.up = no_up;
            }
            track::<ONE>(buf, &mut p.active, t, ctx.far);
        }
        Effect::Wake(b) => wake::<ONE>(buf, &mut p.active, b),
        Effect::Freed(c) => {
            if c < ctx.net.links {
                occupancy::change(busy, &mut p.hist, c as usize, false, after);
            }
            // A buffer of this channel is free: wake the headers waiting for one.
            p.waits
                .wake_all::<ONE>(c as usize, buf, &mut p.active, chans);
        }
    }
}
