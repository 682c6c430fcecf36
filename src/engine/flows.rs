//! Flowing worms: the one-pass cycle's worms whose every flit moves every cycle are moved as a
//! whole. In a worm that flows, every buffer between its rear (the buffer holding its tail, or
//! the injection buffer its source feeds) and its front (the buffer holding its header, or
//! feeding its ejection channel) holds one flit, sends it and receives the next every cycle:
//! its count does not change, and its flits sent, its stamp and its channel's flit counter
//! grow by one a cycle. Those buffers (state FLOW) are visited no more: only the rear, the
//! front and the buffer the header left last cycle are, and the others' counters are brought
//! up to date when the worm stops flowing (its front or rear did not send, a header asked for
//! one of its channels, its tail reached them) or when the counters are read.
//!
//! A worm starts to flow after a cycle in which its header moved and every buffer between its
//! rear and its header sent a flit and holds one (`enter`); each of those buffers then becomes
//! FLOW at its next visit, when it moves once more, alone on its channel (`Engine::traverse`;
//! if it cannot, the worm stops flowing). A visited buffer whose feeder is FLOW counts the flit that feeder
//! sends it that cycle; an explicit move into a FLOW buffer adds no flit, since that buffer
//! sends one the same cycle.

use super::active::ActiveSet;
use super::parts::{ACTIVE, Arbiters, Buf, Buffers, Chan, FLOW, IDLE};
use crate::network::NONE;
use crate::records::Records;

/// A message's worm does not flow (`Messages::flow`).
pub(super) const STILL: u8 = 0;
/// It flows.
pub(super) const FLOWING: u8 = 1;
/// It flows, and its front sent a flit this cycle.
pub(super) const SENT: u8 = 2;
/// Its flow broke this cycle: it stops flowing after the grants.
pub(super) const BROKEN: u8 = 3;

/// The flowing worms' bookkeeping of one engine, or of one partition of a split cycle.
#[derive(Clone, Default)]
pub(super) struct Flows {
    /// Worms may flow (the plan's one-pass cycle with flows: buffers of two flits or more).
    pub on: bool,
    /// Whether each message's worm (in a split cycle, its part in this partition) flows:
    /// STILL, FLOWING, SENT or BROKEN.
    pub flag: Vec<u8>,
    /// A flowing worm's front: the buffer holding its header, feeding its ejection channel,
    /// or (in a split cycle) sending its flits to another partition.
    pub front: Vec<u32>,
    /// In a split cycle, a flowing worm's rear when another partition feeds it; else NONE.
    pub rear: Vec<u32>,
    /// In a split cycle, 1 + each message's creation cycle when its header has arrived here
    /// from another partition once, its complement when more than once, 0 when never (noted
    /// from cycle `since` on: the messages created before may have had parts here unnoted).
    pub arrived: Vec<u64>,
    pub since: u64,
    /// Worms whose flow broke this cycle, each with a buffer that holds it at the cycle's end.
    pub broken: Vec<(u32, u32)>,
    /// Worms whose header moved this cycle into the buffer given, that may start to flow.
    pub entering: Vec<(u32, u32)>,
    /// FLOW buffers that the tail of their worm reached this cycle: its new rears.
    pub rears: Vec<u32>,
    /// The flowing worms' messages.
    pub worms: Vec<u32>,
    /// In a split cycle, the flowing worms whose front sent a flit to another partition this
    /// cycle (for `Flows::start`).
    pub leaving: Vec<u32>,
    /// Buffers in state FLOW.
    pub bufs: u64,
}

impl Flows {
    /// Bytes of its columns and lists.
    pub fn heap_bytes(&self) -> u64 {
        super::memory::vec_bytes(&self.flag)
            + super::memory::vec_bytes(&self.front)
            + super::memory::vec_bytes(&self.rear)
            + super::memory::vec_bytes(&self.arrived)
            + super::memory::vec_bytes(&self.broken)
            + super::memory::vec_bytes(&self.entering)
            + super::memory::vec_bytes(&self.rears)
            + super::memory::vec_bytes(&self.worms)
            + super::memory::vec_bytes(&self.leaving)
    }

    /// No worm flows (their buffers settled by the caller), from cycle `now` on.
    pub fn forget(&mut self, now: u64) {
        self.bufs = 0;
        self.worms.clear();
        self.leaving.clear();
        self.flag.fill(STILL);
        self.rear.fill(NONE);
        self.since = now;
    }

    /// The fronts of the flowing worms, each FLOW buffer being up one of them.
    pub fn fronts(&self) -> impl Iterator<Item = u32> + '_ {
        self.worms
            .iter()
            .filter(|&&m| self.flag[m as usize] != STILL)
            .map(|&m| self.front[m as usize])
    }

    /// A visit to buffer `b` (record `cur`, downstream buffer `t`) in cycle `now`: if its
    /// message's worm flows, the flit its FLOW feeder sends it this cycle is counted, and the
    /// answer is whether it is inside the worm (it becomes FLOW if it moves now alone). A
    /// feeder in another partition (`sides_xor`; split cycles) is neither read nor FLOW.
    #[inline(always)]
    pub fn visit(
        &self,
        buf: &mut (impl Records<Buf> + ?Sized),
        b: usize,
        cur: &Buf,
        t: u32,
        now: u32,
        no_up: u32,
    ) -> bool {
        let f = self.flag[cur.msg as usize];
        if f == STILL || cur.up == no_up || cur.sides_xor() != 0 {
            return false;
        }
        let u = &buf[cur.up as usize];
        if u.state == FLOW && u.last != now {
            buf[b].cnt += 1;
        }
        f == FLOWING && t != NONE
    }

    /// Message `m`'s worm, which buffer `b` holds, stops flowing after the grants.
    #[inline(always)]
    pub fn stop(&mut self, m: u32, b: u32) {
        self.flag[m as usize] = BROKEN;
        self.broken.push((m, b));
    }

    /// Keeps a flag and a front for each of `messages` messages.
    #[inline]
    pub fn fit(&mut self, messages: usize) {
        if self.flag.len() < messages {
            self.flag.resize(messages, STILL);
            self.front.resize(messages, NONE);
            self.rear.resize(messages, NONE);
            self.arrived.resize(messages, 0);
        }
    }

    /// Before a one-pass cycle's bodies move: the flowing worms whose channel a header asked
    /// for in step 2 (`asked`) stop flowing, and are visited as any other this cycle (`pull`).
    /// In a split cycle, a worm whose front sends to another partition counts the flit its
    /// FLOW feeder sends it this cycle (as the visit in `Engine::traverse` has other fronts
    /// count it; step 2 visited it).
    #[inline(never)]
    pub fn start(
        &mut self,
        buf: &mut (impl Records<Buf> + ?Sized),
        chans: &mut (impl Records<Chan> + ?Sized),
        pull: &mut Vec<u32>,
        asked: &[u32],
        now: u32,
        s: Shape,
    ) {
        for &h in asked {
            let ch = buf[h as usize].out_chan;
            let f = chans[ch as usize].flow;
            if f != 0 {
                let fed = buf[(ch * s.vcs + f as u32 - 1) as usize].up;
                self.flag[buf[fed as usize].msg as usize] = STILL;
                settle_now(buf, chans, pull, fed, now, s, &mut self.bufs);
            }
        }
        if s.holders.is_empty() {
            return;
        }
        for &m in &self.leaving {
            if self.flag[m as usize] != FLOWING {
                continue;
            }
            let x = self.front[m as usize];
            let r = &buf[x as usize];
            let leaves = r.sent != 0 && r.out_buf(s.bufchans, s.vcs) != NONE;
            if leaves && r.up != s.no_up && r.sides_xor() == 0 {
                let u = &buf[r.up as usize];
                if u.state == FLOW && u.last != now {
                    buf[x as usize].cnt += 1;
                }
            }
        }
        self.leaving.clear();
    }

    /// A header of message `m` arrived from another partition (at the end of a split cycle's
    /// cycle `now`): a worm of `m` flowing here stops, so that the partition never holds two
    /// parts of one flowing message, and the arrival is noted.
    pub fn arrival(
        &mut self,
        buf: &mut (impl Records<Buf> + ?Sized),
        chans: &mut (impl Records<Chan> + ?Sized),
        active: &mut ActiveSet,
        m: u32,
        now: u32,
        s: Shape,
    ) {
        let c = s.created[m as usize] + 1;
        let a = &mut self.arrived[m as usize];
        *a = if *a == c || *a == !c { !c } else { c };
        if self.flag[m as usize] != STILL {
            self.flag[m as usize] = STILL;
            let f = self.front[m as usize];
            settle_worm(buf, chans, active, f, now, s, &mut self.bufs);
        }
    }

    /// After a one-pass cycle's grants: the worms whose tail reached a FLOW buffer have a new
    /// rear; a flowing worm stops flowing if its front did not send, if its rear asked for a
    /// channel and did not send, or if a buffer of it did not move when it was to become
    /// FLOW; those whose header moved may start.
    #[inline(never)]
    pub fn end(
        &mut self,
        buf: &mut (impl Records<Buf> + ?Sized),
        chans: &mut (impl Records<Chan> + ?Sized),
        active: &mut ActiveSet,
        asked: &[u32],
        now: u32,
        s: Shape,
    ) {
        for &t in &self.rears {
            let tb = &mut buf[t as usize];
            leave_flow(tb, chans, now, s, &mut self.bufs);
            tb.state = ACTIVE;
            active.join::<true>(t);
        }
        self.rears.clear();
        for &b in asked {
            let r = &buf[b as usize];
            if r.last != now && r.msg != NONE {
                let f = self.flag[r.msg as usize];
                if f == FLOWING || f == SENT {
                    self.stop(r.msg, b);
                }
            }
        }
        let mut i = 0;
        while i < self.worms.len() {
            let m = self.worms[i] as usize;
            // (Only a split cycle's worms have a rear another partition feeds.)
            let r = if s.holders.is_empty() {
                NONE
            } else {
                self.rear[m]
            };
            if r != NONE && (self.flag[m] == SENT || self.flag[m] == FLOWING) {
                if buf[r as usize].msg != m as u32 {
                    // Its tail has passed the rear another partition fed.
                    self.rear[m] = NONE;
                } else if buf[r as usize].last != now {
                    // That rear did not send.
                    self.stop(m as u32, self.front[m]);
                }
            }
            match self.flag[m] {
                SENT => {
                    self.flag[m] = FLOWING;
                    i += 1;
                    continue;
                }
                FLOWING => self.stop(m as u32, self.front[m]),
                _ => {}
            }
            self.worms.swap_remove(i);
        }
        for &(m, b) in &self.broken {
            if self.flag[m as usize] == BROKEN {
                self.flag[m as usize] = STILL;
                settle_worm(buf, chans, active, b, now, s, &mut self.bufs);
            }
        }
        self.broken.clear();
        for &(m, f) in &self.entering {
            let r = &buf[f as usize];
            if self.flag[m as usize] != STILL || r.msg != m || r.sent != 0 {
                continue;
            }
            match enter(buf, m, f, now, s) {
                Some(rear) if rear == NONE || self.only_part(m, s) => {
                    self.flag[m as usize] = FLOWING;
                    self.front[m as usize] = f;
                    self.rear[m as usize] = rear;
                    self.worms.push(m);
                }
                _ => {}
            }
        }
        self.entering.clear();
    }
}

impl Shape<'_> {
    /// The shape of a one-thread cycle's walks: no partitions.
    pub fn alone(no_up: u32, bufchans: u32, vcs: u32, counting: u32) -> Shape<'static> {
        Shape {
            no_up,
            bufchans,
            vcs,
            counting,
            holders: &[],
            me: 0,
            created: &[],
            src: &[],
            home: &[],
        }
    }
}

impl Flows {
    /// In a split cycle, whether message `m` has never had a part in this partition but the
    /// one whose header arrived here once: it was created after the boundaries last moved, not
    /// injected here, and its header arrived once.
    fn only_part(&self, m: u32, s: Shape) -> bool {
        let (m, c) = (m as usize, s.created[m as usize]);
        c >= self.since && self.arrived[m] == c + 1 && s.home[s.src[m] as usize] != s.me
    }
}

/// What the walks along a worm need of the network.
#[derive(Clone, Copy)]
pub(super) struct Shape<'a> {
    pub no_up: u32,
    pub bufchans: u32,
    pub vcs: u32,
    pub counting: u32,
    /// In a split cycle, the partition holding each buffered channel's buffers, and the
    /// partition walking (`me`), which reads no other's records; empty on one thread.
    pub holders: &'a [u8],
    pub me: u8,
    /// In a split cycle, the messages' creation cycles and sources, and the partition
    /// injecting each node's messages (`u8::MAX` when several may); empty on one thread.
    pub created: &'a [u64],
    pub src: &'a [u32],
    pub home: &'a [u8],
}

/// Brings FLOW buffer `b`'s flits sent, stamp and channel counter up to cycle `upto`: it sent a
/// flit in every cycle after its stamp.
#[inline(always)]
pub(super) fn bring_up(
    b: &mut Buf,
    chans: &mut (impl Records<Chan> + ?Sized),
    upto: u32,
    counting: u32,
) {
    let d = upto.wrapping_sub(b.last);
    b.sent = b.sent.wrapping_add(d as u16);
    chans[b.out_chan as usize].flits += d * counting;
    b.last = upto;
}

/// FLOW buffer `b` leaves its flow, its counters brought up to cycle `upto` and its channel's
/// mark cleared (`count`: the FLOW buffers); the caller sets its state and tracks it.
#[inline(always)]
fn leave_flow(
    b: &mut Buf,
    chans: &mut (impl Records<Chan> + ?Sized),
    upto: u32,
    s: Shape,
    count: &mut u64,
) {
    bring_up(b, chans, upto, s.counting);
    chans[b.out_chan as usize].flow = 0;
    *count -= 1;
}

/// The rear of the worm holding buffer `b`: up its feeders to the one whose tail has arrived
/// (or that a source feeds, or in a split cycle that another partition feeds).
fn rear_of(buf: &(impl Records<Buf> + ?Sized), mut b: u32, no_up: u32) -> u32 {
    while buf[b as usize].up != no_up && buf[b as usize].sides_xor() == 0 {
        b = buf[b as usize].up;
    }
    b
}

/// The buffer after `x` in its worm, towards the header, or NONE at the front (or where the
/// worm's header has just left the walking partition).
#[inline(always)]
fn next_in_worm(buf: &(impl Records<Buf> + ?Sized), x: u32, s: Shape) -> u32 {
    let r = &buf[x as usize];
    if r.sent == 0 {
        return NONE;
    }
    let t = r.out_buf(s.bufchans, s.vcs);
    if t != NONE && !s.holders.is_empty() && s.holders[(t / s.vcs) as usize] != s.me {
        return NONE;
    }
    t
}

/// The worm holding buffer `b` stops flowing at the end of cycle `now`: each FLOW buffer is
/// brought up to date (one that became FLOW this cycle already is), loses the flit its feeder
/// did not send this cycle, and is tracked again.
fn settle_worm(
    buf: &mut (impl Records<Buf> + ?Sized),
    chans: &mut (impl Records<Chan> + ?Sized),
    active: &mut ActiveSet,
    b: u32,
    now: u32,
    s: Shape,
    count: &mut u64,
) {
    let mut x = rear_of(buf, b, s.no_up);
    let mut up_sent = buf[x as usize].last == now;
    loop {
        let t = next_in_worm(buf, x, s);
        if t == NONE {
            break;
        }
        let tb = &mut buf[t as usize];
        if tb.state == FLOW {
            if tb.last != now && !up_sent {
                // It sent this cycle's flit, and its feeder did not send it another.
                tb.cnt -= 1;
            }
            leave_flow(tb, chans, now, s, count);
            if tb.cnt == 0 {
                tb.state = IDLE;
            } else {
                tb.state = ACTIVE;
                active.join::<true>(t);
            }
            up_sent = true;
        } else {
            up_sent = tb.last == now;
        }
        x = t;
    }
}

/// The worm holding buffer `b` stops flowing at the start of cycle `now` (a header asked for
/// one of its channels): each FLOW buffer is brought up to the cycle before and joins this
/// cycle's visits, `pull`.
fn settle_now(
    buf: &mut (impl Records<Buf> + ?Sized),
    chans: &mut (impl Records<Chan> + ?Sized),
    pull: &mut Vec<u32>,
    b: u32,
    now: u32,
    s: Shape,
    count: &mut u64,
) {
    let mut x = rear_of(buf, b, s.no_up);
    loop {
        let t = next_in_worm(buf, x, s);
        if t == NONE {
            break;
        }
        let tb = &mut buf[t as usize];
        if tb.state == FLOW {
            leave_flow(tb, chans, now.wrapping_sub(1), s, count);
            tb.state = ACTIVE;
            pull.push(t);
        }
        x = t;
    }
}

/// Whether the worm whose header moved into buffer `f` in cycle `now` may flow from the next
/// cycle on: every buffer between its rear and `f` sent a flit this cycle and holds one.
/// Its rear is the buffer holding its tail, or a source feeds, or in a split cycle another
/// partition feeds (a record whose channel joins two partitions, `sides_xor`, has its feeder in
/// the other): Some(NONE) for the first two, Some(rear) for the last, None when it may not
/// flow. (Each buffer becomes FLOW only if it moves alone on its channel at its next visit.)
fn enter(buf: &(impl Records<Buf> + ?Sized), m: u32, f: u32, now: u32, s: Shape) -> Option<u32> {
    if buf[f as usize].sides_xor() != 0 {
        return None;
    }
    let mut y = buf[f as usize].up;
    let mut inside = 0;
    while y != s.no_up {
        let r = &buf[y as usize];
        if r.up == s.no_up || r.sides_xor() != 0 {
            let rear = if r.up == s.no_up { NONE } else { y };
            return (inside > 0).then_some(rear);
        }
        if r.msg != m || r.cnt != 1 || r.last != now || r.state != ACTIVE || inside > 64 {
            return None;
        }
        if r.out_buf(s.bufchans, s.vcs) == NONE {
            return None;
        }
        inside += 1;
        y = r.up;
    }
    None
}

impl Buffers {
    /// Brings every FLOW buffer's counters up to cycle `upto`, leaving it FLOW (before the
    /// channels' counting changes).
    pub(super) fn bring_up_flows(&mut self, arbiters: &mut Arbiters, upto: u32) {
        let counting = arbiters.counting;
        let chans = &mut arbiters.chan;
        for b in self.buf.iter_mut().filter(|b| b.state == FLOW) {
            bring_up(b, chans, upto, counting);
        }
    }

    /// The flits that FLOW buffers' channels carried up to cycle `upto` and have not counted
    /// yet, by channel.
    pub(super) fn pending_flits(&self, upto: u32, counting: u32) -> Vec<(usize, u64)> {
        self.buf
            .iter()
            .filter(|b| b.state == FLOW)
            .map(|b| {
                let d = upto.wrapping_sub(b.last) as u64;
                (b.out_chan as usize, d * counting as u64)
            })
            .collect()
    }

    /// Every worm stops flowing, between two cycles: each of the `flowing` FLOW buffers has
    /// its counters brought up to cycle `upto` and its channel's mark cleared, and joins
    /// `active`. They are found up each flowing worm from its front (`fronts`), then, should
    /// the walks miss one, in one pass over the buffers (a large network's records fill most
    /// of its memory).
    pub(super) fn settle_worms(
        &mut self,
        fronts: Vec<u32>,
        flowing: u64,
        arbiters: &mut Arbiters,
        active: &mut ActiveSet,
        upto: u32,
    ) {
        let buf = &mut self.buf;
        let (chans, counting) = (&mut arbiters.chan, arbiters.counting);
        let no_up = buf.len() - 1;
        let mut settle = |b: usize, r: &mut Buf| {
            bring_up(r, chans, upto, counting);
            chans[r.out_chan as usize].flow = 0;
            r.state = ACTIVE;
            active.add(b as u32);
        };
        let mut settled = 0;
        for f in fronts {
            let mut x = f as usize;
            // (A worm holds fewer buffers than a message has flits; the bound is a guard.)
            for _ in 0..=u16::MAX {
                let r = &mut buf[x];
                if r.state == FLOW {
                    settle(x, r);
                    settled += 1;
                }
                if r.up as usize >= no_up {
                    break;
                }
                x = r.up as usize;
            }
        }
        debug_assert_eq!(settled, flowing, "FLOW buffers up the flowing worms");
        if settled < flowing {
            for (b, r) in buf.iter_mut().enumerate() {
                if r.state == FLOW {
                    settle(b, r);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
