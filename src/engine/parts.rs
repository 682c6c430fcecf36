//! The engine's named parts: buffers and the set of those that may move, the wait lists of
//! blocked headers, the channel arbiters, and early free's queues. Each is a struct of arrays
//! indexed by dense ids (buffer, channel, arbiter), so a visit touches few cache lines.

use super::active::ActiveSet;
use crate::network::{NONE, Network};

/// Where a buffer is tracked: not at all (empty), on the active list (visited every cycle),
/// or asleep until an event can unblock it (work proportional to activity).
pub(super) const IDLE: u8 = 0;
pub(super) const ACTIVE: u8 = 1;
pub(super) const ASLEEP: u8 = 2;

/// No request at an arbiter this cycle.
pub(super) const NO_REQUEST: u64 = u64::MAX;

/// The state of one buffer (virtual channel), packed so that a visit touches one cache line.
#[derive(Clone, Copy, Debug)]
pub(super) struct Buf {
    /// Message holding the buffer, or NONE when free.
    pub msg: u32,
    /// Downstream buffer of the message (NONE: ejection), valid once the header has left.
    pub out_buf: u32,
    /// Output channel of the message, valid once the header has left.
    pub out_chan: u32,
    /// Downstream buffer the header asked for this cycle.
    pub want: u32,
    /// Buffer that feeds this one the rest of its message; once the tail has arrived, the
    /// sentinel `nbuf` (an extra entry of `state` that is never asleep).
    pub up: u32,
    /// Cycle (mod 2^32) a flit last left, or the message arrived (deadlock watchdog).
    pub last: u32,
    /// Flits present.
    pub cnt: u16,
    /// Flits of the message that have left this buffer.
    pub sent: u16,
    /// Length of the message in flits.
    pub len: u16,
    /// Driver slot at the router (static).
    pub slot: u16,
}

/// Every buffer's state, and the buffers that may hold flits and may move.
#[derive(Clone)]
pub(super) struct Buffers {
    /// Indexed by buffer id.
    pub buf: Vec<Buf>,
    /// IDLE, ACTIVE or ASLEEP, indexed by buffer id, plus the never-asleep sentinel `nbuf`.
    pub state: Vec<u8>,
    /// Buffers visited each cycle (those with no flit are dropped lazily).
    pub active: ActiveSet,
}

impl Buffers {
    /// Empty buffers of `net`, each with its static driver slot.
    pub fn new(net: &Network) -> Buffers {
        let nbuf = net.buffers();
        Buffers {
            buf: (0..nbuf)
                .map(|b| Buf {
                    msg: NONE,
                    out_buf: NONE,
                    out_chan: NONE,
                    want: NONE,
                    up: nbuf as u32,
                    last: 0,
                    cnt: 0,
                    sent: 0,
                    len: 0,
                    slot: net.buf_slot[b],
                })
                .collect(),
            state: vec![IDLE; nbuf + 1],
            active: ActiveSet::new(nbuf + 1),
        }
    }

    /// Wakes buffer `b` if it is asleep.
    #[inline]
    pub fn wake(&mut self, b: u32) {
        let asleep = self.state[b as usize] == ASLEEP;
        self.state[b as usize] = if asleep {
            ACTIVE
        } else {
            self.state[b as usize]
        };
        self.active.insert_if(b, asleep);
    }

    /// Tracks buffer `t`, which just received a flit, if it was untracked.
    #[inline]
    pub fn track(&mut self, t: u32) {
        let idle = self.state[t as usize] == IDLE;
        self.state[t as usize] |= idle as u8 * ACTIVE;
        self.active.insert_if(t, idle);
    }
}

/// Headers asleep until a buffer of one channel frees: one intrusive list per channel.
#[derive(Clone)]
pub(super) struct WaitLists {
    /// Headers may sleep while blocked: the routing's candidates never change while waiting.
    pub enabled: bool,
    /// Head of each channel's list, indexed by channel.
    pub head: Vec<u32>,
    /// Next header in the same list, indexed by buffer.
    pub next: Vec<u32>,
    /// Channel whose list holds the buffer's header, or NONE, indexed by buffer.
    pub chan: Vec<u32>,
}

impl WaitLists {
    /// Empty lists for `nchan` channels and `nbuf` buffers.
    pub fn new(nchan: usize, nbuf: usize, enabled: bool) -> WaitLists {
        WaitLists {
            enabled,
            head: vec![NONE; nchan],
            next: vec![NONE; nbuf],
            chan: vec![NONE; nbuf],
        }
    }

    /// Puts the header in buffer `b` on channel `ch`'s list, once.
    #[inline]
    pub fn park(&mut self, b: u32, ch: u32) {
        let bu = b as usize;
        if self.chan[bu] != ch {
            self.chan[bu] = ch;
            self.next[bu] = self.head[ch as usize];
            self.head[ch as usize] = b;
        }
    }

    /// Wakes every header on channel `ch`'s list and empties it.
    #[inline]
    pub fn wake_all(&mut self, ch: usize, bufs: &mut Buffers) {
        let mut w = std::mem::replace(&mut self.head[ch], NONE);
        while w != NONE {
            let wu = w as usize;
            let n = self.next[wu];
            self.next[wu] = NONE;
            self.chan[wu] = NONE;
            bufs.wake(w);
            w = n;
        }
    }
}

/// Round-robin arbitration state of one arbiter (a channel, or a shared m-way channel).
#[derive(Clone, Copy, Debug)]
pub(super) struct Arb {
    /// The best request this cycle, `key << 32 | buffer`, where key is the requester's
    /// round-robin distance after the last grant (smallest wins); NO_REQUEST if none.
    pub best: u64,
    /// Slot granted last.
    pub rr: u16,
    /// Number of driver slots (static).
    pub drivers: u16,
}

/// The channel arbiters and the ones with a request this cycle.
#[derive(Clone)]
pub(super) struct Arbiters {
    /// Indexed by arbiter id (`Network::arb_of`).
    pub arb: Vec<Arb>,
    /// Turn granted last in each driver (second level of shared-channel round-robin).
    pub drv_rr: Vec<u8>,
    /// Arbiters with a request this cycle.
    pub requested: ActiveSet,
}

impl Arbiters {
    /// Arbiters of `net` with no request, each about to grant its first slot.
    pub fn new(net: &Network) -> Arbiters {
        Arbiters {
            arb: net
                .arb_drivers
                .iter()
                .map(|&d| Arb {
                    best: NO_REQUEST,
                    rr: d.saturating_sub(1),
                    drivers: d,
                })
                .collect(),
            drv_rr: vec![0; net.driver_size.len()],
            requested: ActiveSet::new(net.arb_drivers.len()),
        }
    }
}

/// Early free (paper 004 section 3.5), indexed by buffer; empty when off. A buffer whose
/// message's tail has arrived may take the next message's header, which queues behind it.
#[derive(Clone, Default)]
pub(super) struct EarlyFree {
    /// The message queued behind the buffer's message, or NONE.
    pub queued: Vec<u32>,
    /// Its length in flits.
    pub len: Vec<u16>,
    /// Its upstream buffer, or the sentinel `nbuf` once its tail has arrived.
    pub up: Vec<u32>,
}

impl EarlyFree {
    /// Queues for `nbuf` buffers, all empty.
    pub fn new(nbuf: usize) -> EarlyFree {
        EarlyFree {
            queued: vec![NONE; nbuf],
            len: vec![0; nbuf],
            up: vec![nbuf as u32; nbuf],
        }
    }

    /// True when the option is on.
    pub fn on(&self) -> bool {
        !self.queued.is_empty()
    }
}
