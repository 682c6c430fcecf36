//! The partitions on the two sides of each buffered channel: the one holding its buffers (the
//! router it enters) and the one owning it (the router it leaves, which holds the upstream
//! buffers and the channel's arbiter and wait list). Most channels have one partition on both
//! sides; each buffer's record holds the two sides xored ([`Buf::sides_xor`]), and so does each
//! channel's ([`Chan::sides`]), so that a grant or a request finds the other side of a channel
//! from a record it reads anyway, and never reads the arrays (a byte per channel each, 20 MB
//! on a 1 M-node torus, most of a last-level cache: a crossing channel's lookup there missed
//! every cache). The channel's owner reads its record, not the downstream buffer's: that
//! buffer is the other partition's, whose thread writes its line in the same step.

use crate::engine::memory::vec_bytes;
use crate::engine::parts::{Buf, Chan};
use crate::records::Owners;

/// Both sides of every buffered channel.
#[derive(Clone)]
pub(in crate::engine) struct Sides {
    /// The partition holding each buffered channel's buffers.
    holder: Vec<u8>,
    /// The partition owning each buffered channel.
    feeder: Vec<u8>,
}

impl Sides {
    /// The sides of channels `0..holder.len()`, from each channel's holder and owner.
    pub fn new(holder: Vec<u8>, feeder: Vec<u8>) -> Sides {
        Sides { holder, feeder }
    }

    /// Marks in each buffer's record (the `vcs` buffers of each channel; the sentinel record
    /// past them stays unmarked) and in each buffered channel's the two partitions the channel
    /// joins, xored.
    pub fn mark(&self, buf: &mut [Buf], chans: &mut [Chan], vcs: u32) {
        for c in 0..self.holder.len() {
            self.mark_channel(c as u32, buf, chans, vcs);
        }
    }

    /// [`Sides::mark`] for channel `c` alone.
    pub fn mark_channel(&self, c: u32, buf: &mut [Buf], chans: &mut [Chan], vcs: u32) {
        let xor = self.holder[c as usize] ^ self.feeder[c as usize];
        for b in c * vcs..(c + 1) * vcs {
            buf[b as usize].mark_sides(xor);
        }
        chans[c as usize].sides = xor;
    }

    /// The partition holding channel `c`'s buffers.
    #[inline(always)]
    pub fn holder(&self, c: u32) -> u8 {
        self.holder[c as usize]
    }

    /// The partition holding each channel's buffers.
    pub fn holders(&self) -> &[u8] {
        &self.holder
    }

    /// The partition owning channel `c`.
    pub fn feeder(&self, c: u32) -> u8 {
        self.feeder[c as usize]
    }

    /// The buffered channels.
    pub fn channels(&self) -> usize {
        self.holder.len()
    }

    /// Channel `c` now joins partitions `holder` and `feeder` (its buffers' marks are the
    /// caller's to renew).
    pub fn set(&mut self, c: u32, holder: u8, feeder: u8) {
        self.holder[c as usize] = holder;
        self.feeder[c as usize] = feeder;
    }

    /// The partition holding the buffers of buffered channel `c`, which partition `me` owns,
    /// `ch` being its record.
    #[inline(always)]
    pub(in crate::engine) fn holder_from(&self, c: u32, ch: &Chan, me: u8) -> u8 {
        debug_assert_eq!(self.feeder[c as usize], me);
        debug_assert_eq!(self.holder[c as usize], me ^ ch.sides);
        me ^ ch.sides
    }

    /// Whether buffered channel `c`, which partition `me` owns, enters another partition, `ch`
    /// being its record.
    #[inline(always)]
    pub(in crate::engine) fn leaves(&self, c: u32, ch: &Chan, me: u8) -> bool {
        debug_assert_eq!(self.feeder[c as usize], me);
        debug_assert_eq!(self.holder[c as usize] != me, ch.sides != 0);
        ch.sides != 0
    }

    /// The partition owning channel `c`, whose buffers partition `me` holds, `b` being the
    /// record of one of them.
    #[inline(always)]
    pub(in crate::engine) fn feeder_into(&self, c: u32, b: &Buf, me: u8) -> u8 {
        debug_assert_eq!(self.holder[c as usize], me);
        debug_assert_eq!(self.feeder[c as usize], me ^ b.sides_xor());
        me ^ b.sides_xor()
    }

    /// Heap bytes.
    pub fn heap_bytes(&self) -> u64 {
        vec_bytes(&self.holder) + vec_bytes(&self.feeder)
    }
}

impl Sides {
    /// Who holds each record in a split cycle's step, for the debug build's ownership check of
    /// every shared access (`records::View`): each buffer's partition is its channel's holder
    /// (the router it enters), each buffered channel's its feeder (the router it leaves: its
    /// arbiter, counters and wait list), each router's stream its partition's (`routers`).
    /// Other partitions' buffers may be peeked at (their messages and counts) when `peeks`.
    /// Ejection channels, and every channel of a network of shared channels (whose arbiters
    /// are numbered apart from its channels), go unchecked.
    pub fn owners<'a>(
        &'a self,
        vcs: u32,
        shared: bool,
        routers: &'a [u8],
        peeks: bool,
    ) -> [Owners<'a>; 3] {
        let (bufs, chans, routers) = match cfg!(debug_assertions) {
            true => (&self.holder[..], &self.feeder[..], routers),
            false => (&[][..], &[][..], &[][..]),
        };
        [
            Owners {
                of: bufs,
                per: vcs,
                peeks,
            },
            Owners {
                of: if shared { &[] } else { chans },
                per: 1,
                peeks: false,
            },
            Owners {
                of: routers,
                per: 1,
                peeks: false,
            },
        ]
    }
}
