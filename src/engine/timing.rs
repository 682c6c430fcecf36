//! Router and link timing beyond the papers' one-cycle hop: the router delay D (`[router]
//! delay`: a header may cross the crossbar D cycles after it reaches the front of its buffer)
//! and the link latency L (`[topology] link_latency`: a flit crossing a network link arrives L
//! cycles later, and its credit takes L cycles back). Zero-load network latency is then
//! M + h + (h + 1)·D + h·(L − 1) for an h-hop message of M flits: h + 1 routers each hold the
//! header D cycles more, and each of h links takes L − 1 cycles more.
//!
//! With L > 1 a buffer of a network link is seen two ways. Its own state (`cnt`) counts the
//! flits that have arrived; the upstream router's view (`held`, its credit count) counts the
//! flits sent into it whose credit has not come back, and a body flit is sent only while
//! `held < depth`. A flit sent in cycle s over a link arrives at the end of cycle s + L − 1 and
//! can leave the next cycle; a flit leaving in cycle s returns its credit at the end of cycle
//! s + L − 1, usable from s + L. The round trip is 2L cycles, so a buffer of fewer than 2L flits
//! throttles a message to depth / (2L) flits per cycle (L = 1: 1-flit buffers pass a flit every
//! other cycle, as the engine's module doc says). The tail's credit also frees the virtual
//! channel for a new header: upstream learns of the free buffer with it. With L = 1 every event
//! is due in the cycle it is made, and the engine applies it at once (no pipe).
//!
//! A dragonfly's global channels may take G cycles (`[topology] global_latency`) while its local
//! ones take L: each link's events are then due after its own latency, in a wheel of max(L, G)
//! slots, and an h-hop message crossing g global channels has zero-load network latency
//! M + h + (h − g)·(L − 1) + g·(G − 1) (with D = 0).

use super::parts::{Buf, Chan};
use super::step::Working;
use crate::network::Network;
use crate::stats::VcOccupancy;

/// A flit arriving in a buffer, or a credit returning from it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Event {
    /// A flit arrives in buffer `0`; `1`: it is the header.
    Arrive(u32, bool),
    /// A flit left buffer `0`: a credit reaches its upstream router; `1`: the tail's, which
    /// frees the virtual channel.
    Credit(u32, bool),
}

/// Flits and credits in flight on the network links (L > 1), in a wheel of L slots indexed by
/// the cycle they are due in; empty when L = 1.
#[derive(Clone, Default)]
pub(super) struct LinkPipe {
    /// L, the link latency in cycles.
    pub latency: u64,
    /// Each link's latency where links differ (a dragonfly's global channels); empty when
    /// every link takes L.
    per_link: Vec<u8>,
    /// Virtual channels per link, to find an event's link from its buffer.
    vcs: u32,
    /// Events due at the end of cycle c, in slot c mod (the longest latency).
    slots: Vec<Vec<Event>>,
    /// Per buffer: flits sent into it whose credit has not returned (the upstream's view).
    pub held: Vec<u16>,
}

impl LinkPipe {
    /// Bytes of the wheel and the credit counts.
    pub fn heap_bytes(&self) -> u64 {
        use super::memory::vec_bytes;
        vec_bytes(&self.held)
            + vec_bytes(&self.slots)
            + self.slots.iter().map(vec_bytes).sum::<u64>()
    }

    /// A pipe for `net`'s links of `latency` cycles, a dragonfly's global channels of
    /// `global` (none when both are 1).
    pub fn new(latency: u32, global: u32, net: &Network) -> LinkPipe {
        let longest = latency.max(global);
        if longest <= 1 {
            return LinkPipe::default();
        }
        let per_link = match &net.topology {
            crate::topology::Topology::Dragonfly(_) if global != latency => net
                .topology
                .links()
                .iter()
                .map(|l| match l.dim {
                    crate::topology::Dragonfly::GLOBAL => global as u8,
                    _ => latency as u8,
                })
                .collect(),
            _ => Vec::new(),
        };
        LinkPipe {
            latency: latency as u64,
            per_link,
            vcs: net.vcs,
            slots: vec![Vec::new(); longest as usize],
            held: vec![0; net.buffers()],
        }
    }

    /// True when links take more than one cycle.
    #[inline]
    pub fn on(&self) -> bool {
        !self.slots.is_empty()
    }

    /// Flits in flight on the links: arrivals not yet due.
    pub fn arriving(&self) -> u64 {
        let count = |slot: &Vec<Event>| {
            slot.iter()
                .filter(|e| matches!(e, Event::Arrive(..)))
                .count() as u64
        };
        self.slots.iter().map(count).sum()
    }

    /// True when no flit or credit is in flight.
    pub fn empty(&self) -> bool {
        self.slots.iter().all(Vec::is_empty)
    }

    /// Schedules `e`, made in cycle `now`, for the end of cycle now + L − 1, L the latency
    /// of the link into its buffer.
    #[inline]
    pub fn schedule(&mut self, now: u64, e: Event) {
        let latency = match (self.per_link.is_empty(), e) {
            (true, _) => self.latency,
            (false, Event::Arrive(b, _) | Event::Credit(b, _)) => {
                self.per_link[(b / self.vcs) as usize] as u64
            }
        };
        let due = (now + latency - 1) % self.slots.len() as u64;
        self.slots[due as usize].push(e);
    }
}

/// What the flits and credits due at the end of a cycle change: the buffer records, their
/// working sets, the channels' arbiters (a freed buffer's waiting headers) and the occupancy
/// accounts.
pub(super) struct Landing<'a> {
    /// The wired network.
    pub net: &'a Network,
    /// The buffer records.
    pub buf: &'a mut [Buf],
    /// The one thread's working sets.
    pub work: &'a mut Working,
    /// The channels' records.
    pub chans: &'a mut [Chan],
    /// The virtual channels' occupancy accounts.
    pub occupancy: &'a mut VcOccupancy,
}

impl LinkPipe {
    /// End of cycle `now`: the flits and credits due now arrive (L > 1: the pipe is on).
    pub(super) fn land(&mut self, now: u64, mut at: Landing) {
        let slot = (now % self.slots.len() as u64) as usize;
        let mut due = std::mem::take(&mut self.slots[slot]);
        let after = now + 1;
        for &e in &due {
            match e {
                Event::Arrive(t, header) => {
                    let tb = &mut at.buf[t as usize];
                    tb.cnt += 1;
                    if header {
                        // The header arrived: the router delay and the watchdog count from here.
                        tb.last = now as u32;
                    }
                    at.work.track(at.buf, t);
                }
                Event::Credit(b, tail) => {
                    let bu = b as usize;
                    self.held[bu] -= 1;
                    let up = at.buf[bu].up;
                    // The upstream buffer of its message may send again.
                    at.work.wake(at.buf, up);
                    if tail {
                        free_buffer(&mut at, b, after);
                    }
                }
            }
        }
        due.clear();
        self.slots[slot] = due;
    }
}

/// The tail's credit: buffer `b` is free for a new header from cycle `after`.
fn free_buffer(at: &mut Landing, b: u32, after: u64) {
    let freed = at.net.buf_channel(b);
    at.buf[b as usize].msg = crate::network::NONE;
    at.occupancy.change(freed as usize, false, after);
    // Headers waiting for a buffer of this channel may take it.
    let work = &mut *at.work;
    work.waits
        .wake_all::<false>(freed as usize, at.buf, &mut work.active, at.chans);
}
