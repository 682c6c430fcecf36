//! The engine's named parts: buffers and the set of those that may move, the wait lists of
//! blocked headers, the channel arbiters, and early free's queues. Each is a struct of arrays
//! indexed by dense ids (buffer, channel, arbiter), so a visit touches few cache lines.

use super::active::ActiveSet;
use crate::network::{NONE, Network};
use crate::records::{Field, Records};

/// Where a buffer is tracked: not at all (empty), on the active list (visited every cycle),
/// or asleep until an event can unblock it (work proportional to activity).
pub(super) const IDLE: u8 = 0;
pub(super) const ACTIVE: u8 = 1;
pub(super) const ASLEEP: u8 = 2;
/// Inside a flowing worm (`flows.rs`): holds one flit and sends and receives one every cycle
/// from the cycle after `last`, its `sent` and its channel's `flits` brought up to date only
/// when it leaves the flow; on no active list.
pub(super) const FLOW: u8 = 3;

/// No request at an arbiter this cycle.
pub(super) const NO_REQUEST: u64 = u64::MAX;

/// The state of one buffer (virtual channel), packed in 24 bytes: what the cycle reads and
/// writes of a buffer, its tracking state included. The message's length is read from the
/// message, the downstream buffer from the output channel and virtual channel, and whether its
/// header is on a wait list from `WaitLists`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Buf {
    /// Message holding the buffer, or NONE when free.
    pub msg: u32,
    /// Output channel of the message: once the header has left, its channel; while the header
    /// waits, the channel it asked for this cycle.
    pub out_chan: u32,
    /// Buffer that feeds this one the rest of its message; once the tail has arrived, the
    /// sentinel `nbuf` (an extra buffer that is never asleep).
    pub up: u32,
    /// Cycle (mod 2^32) a flit last left, or the message arrived (deadlock watchdog).
    pub last: u32,
    /// Flits present.
    pub cnt: u16,
    /// Flits of the message that have left this buffer.
    pub sent: u16,
    /// Driver slot at the router (static); in a split cycle, the bits above [`SLOT_BITS`] hold
    /// the two partitions its channel joins, xored (zero when one partition holds both sides).
    pub slot: u16,
    /// The virtual channel of `out_chan` the message holds (its downstream buffer).
    pub vc: u8,
    /// IDLE, ACTIVE or ASLEEP.
    pub state: u8,
}

/// A buffer's message: a split cycle's requests read it of other partitions' buffers (no
/// request writes it).
// SAFETY: `msg` is a u32 at its offset in `Buf`.
pub(super) const MSG: Field<Buf, u32> = unsafe { Field::new(std::mem::offset_of!(Buf, msg)) };
/// A buffer's flit count: as [`MSG`].
// SAFETY: `cnt` is a u16 at its offset in `Buf`.
pub(super) const CNT: Field<Buf, u16> = unsafe { Field::new(std::mem::offset_of!(Buf, cnt)) };

/// Where, in [`Buf::slot`], a split cycle keeps the xor of the partitions on the two sides of
/// the buffer's channel (6 bits: up to 64 partitions): only a split engine sets those bits, so
/// the one-thread cycle reads slots as they are.
const SIDES_SHIFT: u32 = 10;

/// The bits of [`Buf::slot`] that are the driver slot (a split engine needs every router's
/// slots below 2^10).
pub(super) const SLOT_BITS: u16 = (1 << SIDES_SHIFT) - 1;

impl Buf {
    /// The downstream buffer of the message, `vc` of `out_chan`, or NONE when `out_chan` is an
    /// ejection channel (or none yet); channels from `bufchans` on have no buffers.
    #[inline(always)]
    pub fn out_buf(&self, bufchans: u32, vcs: u32) -> u32 {
        if self.out_chan < bufchans {
            self.out_chan * vcs + self.vc as u32
        } else {
            NONE
        }
    }

    /// Whether the buffer feeding this one the rest of its message may be asleep, so that a
    /// flit leaving here must wake it: it sleeps only while this buffer, the only one it
    /// feeds, is full (wormhole blocking). The one-pass cycle (`ONE`) skips the wake-up on
    /// that; the other cycles wake it every time (with shallow buffers the test costs more
    /// than it saves).
    #[inline(always)]
    pub fn feeder_may_sleep<const ONE: bool>(&self, depth: u16) -> bool {
        !ONE || self.cnt >= depth
    }

    /// A free buffer's record, its feeder the sentinel `no_up` (its driver slot still to set).
    pub fn free(no_up: u32) -> Buf {
        Buf {
            msg: NONE,
            out_chan: NONE,
            up: no_up,
            last: 0,
            cnt: 0,
            sent: 0,
            slot: 0,
            vc: 0,
            state: IDLE,
        }
    }

    /// The flit at the front leaves in cycle `now`, of a message of `len` flits: the buffer
    /// is freed after the tail and untracked when empty. Returns (tail, empty); the caller
    /// removes an emptied buffer from its active set.
    #[inline(always)]
    pub fn send_front(&mut self, len: u16, now: u32) -> (bool, bool) {
        self.cnt -= 1;
        self.sent += 1;
        let tail = self.sent == len;
        if tail {
            self.msg = NONE;
        }
        self.last = now;
        let empty = self.cnt == 0;
        self.state = if empty { IDLE } else { ACTIVE };
        (tail, empty)
    }

    /// Routes the message to buffer `t` of channel `ch` (NONE: ejection).
    #[inline(always)]
    pub fn route_to(&mut self, ch: u32, t: u32, vcs: u32) {
        debug_assert!(t == NONE || t / vcs == ch);
        self.out_chan = ch;
        self.vc = if t == NONE { 0 } else { (t - ch * vcs) as u8 };
    }

    /// In a split cycle: the partitions holding and owning this buffer's channel, xored (zero
    /// when they are one), so that either side finds the other from its own.
    #[inline(always)]
    pub fn sides_xor(&self) -> u8 {
        (self.slot >> SIDES_SHIFT) as u8
    }

    /// Notes the xor of the partitions on the two sides of this buffer's channel (a split
    /// engine only; below 64).
    pub fn mark_sides(&mut self, xor: u8) {
        debug_assert!(xor < 1 << (16 - SIDES_SHIFT));
        self.slot = self.slot & SLOT_BITS | (xor as u16) << SIDES_SHIFT;
    }
}

/// Every buffer's state, and the buffers that may hold flits and may move.
#[derive(Clone)]
pub(super) struct Buffers {
    /// Indexed by buffer id, plus the never-asleep sentinel `nbuf`.
    pub buf: Vec<Buf>,
}

impl Buffers {
    /// Empty buffers of `net`, each with its static driver slot.
    pub fn new(net: &Network) -> Buffers {
        let nbuf = net.buffers();
        let mut buf = crate::huge_pages::filled(nbuf + 1, Buf::free(nbuf as u32));
        for (b, slot) in buf.iter_mut().zip(net.buf_slots()) {
            b.slot = slot;
        }
        Buffers { buf }
    }

    /// The sentinel buffer id `nbuf`: the `up` of a buffer whose message's tail has arrived.
    #[inline(always)]
    pub fn no_up(&self) -> u32 {
        (self.buf.len() - 1) as u32
    }
}

/// Wakes buffer `b` of `buf` if it is asleep (the cycle's loops hold `buf` as a slice, so that
/// its pointer stays in a register). A grant wakes the upstream buffer of every flit it moves,
/// which is seldom asleep: the branch is taken rarely, and the buffer's record and the active
/// set's words are only read, not written back.
#[inline(always)]
pub(super) fn wake<const LIST: bool>(
    buf: &mut (impl Records<Buf> + ?Sized),
    active: &mut ActiveSet,
    b: u32,
) {
    let s = &mut buf[b as usize].state;
    if *s == ASLEEP {
        *s = ACTIVE;
        active.join::<LIST>(b);
    }
}

/// After a one-pass cycle's grants: the buffers of `asked` (each asked for a channel once this
/// cycle) that are still active and did not send are put back on the active list. One that sent
/// was put back by its grant if it kept flits, and by the flit that refilled it if it emptied;
/// one that parked joins when it wakes.
#[inline]
pub(super) fn keep_asked(
    asked: &mut Vec<u32>,
    buf: &(impl Records<Buf> + ?Sized),
    active: &mut ActiveSet,
    now: u32,
) {
    for &b in asked.iter() {
        let r = &buf[b as usize];
        if r.state == ACTIVE && r.last != now {
            active.keep::<true>(b);
        }
    }
    asked.clear();
}

/// True when a buffer of channel `c` other than `t` (of `vcs` each) has a feeder: a rival of
/// `t`'s message for the channel's next flit. At V = 2 it can only be `t`'s sibling, `t ^ 1`.
#[inline(always)]
pub(super) fn rival_fed(
    buf: &(impl Records<Buf> + ?Sized),
    c: u32,
    t: u32,
    vcs: u32,
    no_up: u32,
) -> bool {
    let fed = |v: usize| v != t as usize && buf[v].msg != NONE && buf[v].up != no_up;
    if vcs == 2 {
        fed(t as usize ^ 1)
    } else {
        let first = (c * vcs) as usize;
        (first..first + vcs as usize).any(fed)
    }
}

/// [`track`] (without a branch on the state) for a set kept either way, told at run time.
#[inline(always)]
pub(super) fn track_either(buf: &mut (impl Records<Buf> + ?Sized), active: &mut ActiveSet, t: u32) {
    match active.listing() {
        true => track::<true>(buf, active, t, false),
        false => track::<false>(buf, active, t, false),
    }
}

/// Tracks buffer `t` of `buf`, which just received a flit, if it was untracked. On a network
/// in cache (`far` false) without a branch, since whether a buffer receiving a flit was empty
/// varies from flit to flit; on one larger than the caches with one, since writing an active
/// set's word back there costs more than a mispredicted branch (a tracked buffer's word is
/// then only read).
#[inline(always)]
pub(super) fn track<const LIST: bool>(
    buf: &mut (impl Records<Buf> + ?Sized),
    active: &mut ActiveSet,
    t: u32,
    far: bool,
) {
    let s = &mut buf[t as usize].state;
    if far {
        if *s == IDLE {
            *s = ACTIVE;
            active.join::<LIST>(t);
        }
    } else {
        let idle = *s == IDLE;
        *s |= idle as u8 * ACTIVE;
        active.join_if::<LIST>(t, idle);
    }
}

/// One channel: the round-robin state of the arbiter with this id (a channel, or a shared m-way
/// channel), the channel's probes (flits and headers that crossed it) and the head of its wait
/// list, in one record so that a grant touches one cache line.
#[derive(Clone, Copy, Debug)]
pub(super) struct Chan {
    /// The best request this cycle, `key << 32 | buffer`, where key is the requester's
    /// round-robin distance after the last grant (smallest wins); NO_REQUEST if none.
    pub best: u64,
    /// Flits that crossed the channel since the last refresh (at most one a cycle, so fewer
    /// than 2^32 between refreshes); `Arbiters::wide` holds the earlier ones.
    pub flits: u32,
    /// Headers (messages) that crossed the channel since the last refresh.
    pub msgs: u32,
    /// Slot granted last.
    pub rr: u16,
    /// First header asleep until a buffer of this channel frees (a node of `WaitLists`), or
    /// NONE.
    pub wait: u32,
    /// 1 + the virtual channel whose feeder crosses this channel inside a flowing worm (its
    /// flits not yet counted in `flits`), or 0.
    pub flow: u8,
    /// In a split cycle: the partitions holding and owning this channel, xored (zero when one
    /// partition holds both sides), so that its owner's grants find the downstream side
    /// without reading a record the other partition writes; zero on one thread.
    pub sides: u8,
}

impl Chan {
    /// A channel with no request, no flit counted, no waiting header and no flowing worm, its
    /// arbiter's last grant slot 0.
    pub fn idle() -> Chan {
        Chan {
            best: NO_REQUEST,
            flits: 0,
            msgs: 0,
            rr: 0,
            wait: NONE,
            flow: 0,
            sides: 0,
        }
    }
}

/// Headers asleep until a buffer of one channel frees: one list per channel, headed in its
/// `Chan::wait`, its nodes in a small pool (only blocked headers have one).
#[derive(Clone, Default)]
pub(super) struct WaitLists {
    /// Headers may sleep while blocked: the routing's candidates never change while waiting.
    pub enabled: bool,
    /// Nodes: (buffer, next node or NONE).
    nodes: Vec<(u32, u32)>,
    /// Unused nodes.
    free: Vec<u32>,
    /// The buffers whose header is on a list (so that it is put there once).
    parked: ActiveSet,
}

impl WaitLists {
    /// Bytes of the node pool.
    pub fn heap_bytes(&self) -> u64 {
        use super::memory::vec_bytes;
        vec_bytes(&self.nodes) + vec_bytes(&self.free) + self.parked.words_bytes()
    }

    /// Empty lists for `nbuf` buffers.
    pub fn new(enabled: bool, nbuf: usize) -> WaitLists {
        WaitLists {
            enabled,
            parked: ActiveSet::new(if enabled { nbuf } else { 0 }),
            ..WaitLists::default()
        }
    }

    /// Puts the header in buffer `b` on channel `ch`'s list, once.
    #[inline]
    pub fn park(&mut self, b: u32, ch: u32, chans: &mut (impl Records<Chan> + ?Sized)) {
        if self.parked.contains(b) {
            return;
        }
        self.parked.insert(b);
        let head = &mut chans[ch as usize].wait;
        let node = (b, *head);
        *head = match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
    }

    /// Takes channel `ch`'s list out of this pool, its buffers in list order (their nodes
    /// freed, their headers no longer parked here): to move the list to another pool.
    pub fn take_list(&mut self, ch: usize, chans: &mut (impl Records<Chan> + ?Sized)) -> Vec<u32> {
        let mut list = Vec::new();
        let mut w = std::mem::replace(&mut chans[ch].wait, NONE);
        while w != NONE {
            let (b, next) = self.nodes[w as usize];
            self.free.push(w);
            self.parked.remove(b);
            list.push(b);
            w = next;
        }
        list
    }

    /// Puts `list` (buffers in list order, from [`WaitLists::take_list`]) on channel `ch`'s
    /// list in this pool, in the same order.
    pub fn put_list(&mut self, ch: usize, list: &[u32], chans: &mut (impl Records<Chan> + ?Sized)) {
        for &b in list.iter().rev() {
            self.park(b, ch as u32, chans);
        }
    }

    /// Wakes every header on channel `ch`'s list and empties it.
    #[inline(always)]
    pub fn wake_all<const LIST: bool>(
        &mut self,
        ch: usize,
        buf: &mut (impl Records<Buf> + ?Sized),
        active: &mut ActiveSet,
        chans: &mut (impl Records<Chan> + ?Sized),
    ) {
        let mut w = std::mem::replace(&mut chans[ch].wait, NONE);
        while w != NONE {
            let (b, next) = self.nodes[w as usize];
            self.free.push(w);
            self.parked.remove(b);
            wake::<LIST>(buf, active, b);
            w = next;
        }
    }
}

/// The channels' records and the arbiters with a request this cycle.
#[derive(Clone)]
pub(super) struct Arbiters {
    /// Indexed by channel id for the probes and wait lists, and by arbiter id
    /// (`Network::arb_of`) for arbitration; as many as the larger of the two.
    pub chan: Vec<Chan>,
    /// Turn granted last in each driver (second level of shared-channel round-robin).
    pub drv_rr: Vec<u8>,
    /// Flits and headers each channel carried before the last refresh; empty until the first
    /// (a run past 2^30 cycles), so that a large network holds 8 bytes of counters a channel.
    pub wide: Vec<[u64; 2]>,
    /// What a flit adds to its channel's counters: 1, or 0 once a measurement window has
    /// closed (`Engine::close_window`), so that the counts stay the window's without a copy.
    pub counting: u32,
}

impl Arbiters {
    /// Channel `c`'s flits and headers since the start (or the last `restart`).
    #[inline]
    pub fn counts(&self, c: usize) -> [u64; 2] {
        let [f, m] = self.wide.get(c).copied().unwrap_or([0, 0]);
        let ch = &self.chan[c];
        [f + ch.flits as u64, m + ch.msgs as u64]
    }

    /// Restarts every channel's counts from zero (a measurement window opens).
    pub fn restart(&mut self) {
        self.wide = Vec::new();
        for ch in &mut self.chan {
            ch.flits = 0;
            ch.msgs = 0;
        }
    }

    /// Moves the first `n` channels' counts into `wide` (the engine does it every `REFRESH`
    /// cycles, so that no 32-bit count overflows).
    pub fn refresh(&mut self, n: usize) {
        self.wide.resize(n, [0, 0]);
        for (w, ch) in self.wide.iter_mut().zip(&mut self.chan) {
            w[0] += std::mem::take(&mut ch.flits) as u64;
            w[1] += std::mem::take(&mut ch.msgs) as u64;
        }
    }
}

impl Arbiters {
    /// Arbiters of `net` with no request, each about to grant its first slot.
    pub fn new(net: &Network) -> Arbiters {
        let narb = net.arb_drivers.len();
        let mut chan = crate::huge_pages::filled(narb.max(net.channels()), Chan::idle());
        for (c, &d) in chan.iter_mut().zip(&net.arb_drivers) {
            c.rr = d.saturating_sub(1);
        }
        Arbiters {
            chan,
            drv_rr: vec![0; net.driver_size.len()],
            wide: Vec::new(),
            counting: 1,
        }
    }
}

/// Early free (paper 004 section 3.5), indexed by buffer; empty when off. A buffer whose
/// message's tail has arrived may take the next message's header, which queues behind it.
#[derive(Clone, Default)]
pub(super) struct EarlyFree {
    /// The message queued behind the buffer's message, or NONE.
    pub queued: Vec<u32>,
    /// Its upstream buffer, or the sentinel `nbuf` once its tail has arrived.
    pub up: Vec<u32>,
}

impl EarlyFree {
    /// Bytes of the queues.
    pub fn heap_bytes(&self) -> u64 {
        use super::memory::vec_bytes;
        vec_bytes(&self.queued) + vec_bytes(&self.up)
    }

    /// Queues for `nbuf` buffers, all empty.
    pub fn new(nbuf: usize) -> EarlyFree {
        EarlyFree {
            queued: vec![NONE; nbuf],
            up: vec![nbuf as u32; nbuf],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flit-hop reads and writes whole records, and a million-node network holds 18 buffers
    /// and 10 channels a node: the records stay this small (a 24-byte record straddles two
    /// cache lines one time in four; 32-byte records would take 224 bytes a node more).
    #[test]
    fn buffer_and_channel_records_stay_small() {
        assert_eq!(std::mem::size_of::<Buf>(), 24);
        assert_eq!(std::mem::size_of::<Chan>(), 24);
    }

    /// A rival is another buffer of the channel that holds a message and still has its
    /// feeder: the same answer from the sibling at V = 2 as from the scan of every buffer.
    #[test]
    fn a_rival_is_another_fed_buffer_of_the_channel() {
        let no_up = 99;
        let free = Buf::free(no_up);
        let fed = Buf {
            msg: 7,
            up: 3,
            ..free
        };
        let tail_in = Buf { msg: 7, ..free };
        for vcs in [2u32, 3] {
            let mut buf = vec![free; 4 * vcs as usize];
            // Channel 1's buffers: vcs..2 vcs; t is its first.
            let t = vcs;
            buf[t as usize] = fed;
            assert!(!rival_fed(&buf, 1, t, vcs, no_up), "V = {vcs}: t alone");
            buf[t as usize + 1] = tail_in;
            assert!(
                !rival_fed(&buf, 1, t, vcs, no_up),
                "V = {vcs}: tail arrived"
            );
            buf[t as usize + 1] = fed;
            assert!(rival_fed(&buf, 1, t, vcs, no_up), "V = {vcs}: sibling fed");
            assert!(
                rival_fed(&buf, 1, t + 1, vcs, no_up),
                "V = {vcs}: from the sibling"
            );
            // Buffers of the neighbouring channels are no rivals.
            buf[t as usize + 1] = free;
            buf[t as usize - 1] = fed;
            buf[2 * vcs as usize] = fed;
            assert!(
                !rival_fed(&buf, 1, t, vcs, no_up),
                "V = {vcs}: other channels"
            );
        }
    }

    #[test]
    fn a_sides_mark_keeps_the_driver_slot() {
        let mut b = Buf {
            msg: 0,
            out_chan: NONE,
            up: 0,
            last: 0,
            cnt: 0,
            sent: 0,
            slot: SLOT_BITS,
            vc: 0,
            state: IDLE,
        };
        b.mark_sides(63);
        assert_eq!(b.sides_xor(), 63);
        assert_eq!(b.slot & SLOT_BITS, SLOT_BITS);
        b.slot = 5;
        b.mark_sides(3);
        assert_eq!((b.sides_xor(), b.slot & SLOT_BITS), (3, 5));
        b.mark_sides(0);
        assert_eq!(b.slot, 5);
    }
}
