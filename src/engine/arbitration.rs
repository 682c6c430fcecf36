//! Round-robin arbitration of a channel (or a shared m-way channel): a request keeps the
//! requester that comes first after the last grant, a grant takes it and moves the turn on.
//! Shared by the one-thread cycle and a split cycle's partitions.

use super::parts::{Buf, Chan, NO_REQUEST};
use crate::network::Network;
use crate::records::Records;

/// Where driver slot `slot` comes in round-robin order after a grant to slot `rr`, as a key
/// that sorts in that order: the slots after `rr` first, by slot, then those up to `rr`, by
/// slot. (The same order as `(slot - rr - 1) mod drivers`, without the arbiter's driver count.)
#[inline(always)]
pub(super) fn turn_key(slot: u16, rr: u16) -> u64 {
    ((slot <= rr) as u64) << 16 | slot as u64
}

/// The network's tables of shared channels' arbitration, read once per step (so that their
/// pointers stay in registers).
#[derive(Clone, Copy)]
pub(super) struct Drivers<'a> {
    /// Each channel's arbiter.
    pub arb_of: &'a [u32],
    /// Each buffer's driver and its turn within it, and each driver's size.
    pub buf_driver: &'a [u32],
    pub buf_sub: &'a [u8],
    pub driver_size: &'a [u8],
}

impl<'a> Drivers<'a> {
    /// `net`'s.
    pub fn of(net: &'a Network) -> Drivers<'a> {
        Drivers {
            arb_of: &net.arb_of,
            buf_driver: &net.buf_driver,
            buf_sub: &net.buf_sub,
            driver_size: &net.driver_size,
        }
    }
}

/// Buffer `b` (driver slot `slot`) asks channel `ch`'s arbiter for it, which keeps the
/// request that comes first in round-robin order after its last grant; returns the arbiter.
#[inline(always)]
pub(super) fn ask_arbiter<const SHARED: bool>(
    net: Drivers,
    chans: &mut (impl Records<Chan> + ?Sized),
    drv_rr: &(impl Records<u8> + ?Sized),
    ch: u32,
    b: usize,
    slot: u16,
) -> u32 {
    let a = if SHARED { net.arb_of[ch as usize] } else { ch };
    let arb = &mut chans[a as usize];
    let mut key = turn_key(slot, arb.rr);
    if SHARED {
        // Then, within the driver, the first turn after its last grant.
        let d = net.buf_driver[b] as usize;
        let size = net.driver_size[d] as u32;
        let sub = net.buf_sub[b] as u32;
        key = key * 256 + ((sub + size - drv_rr[d] as u32 - 1) % size) as u64;
    }
    arb.best = arb.best.min(key << 32 | b as u64);
    a
}

/// Arbiter `a` grants its best request: clears it, notes the winner's slot (its record's slot
/// under `slot_bits`: a split cycle's mark masked off) and, on a shared channel, its turn
/// within its driver, for round-robin; returns the winning buffer.
#[inline(always)]
pub(super) fn grant_arbiter<const SHARED: bool>(
    net: Drivers,
    chans: &mut (impl Records<Chan> + ?Sized),
    drv_rr: &mut (impl Records<u8> + ?Sized),
    buf: &(impl Records<Buf> + ?Sized),
    a: u32,
    slot_bits: u16,
) -> usize {
    let arb = &mut chans[a as usize];
    let b = arb.best as u32 as usize;
    arb.best = NO_REQUEST;
    arb.rr = buf[b].slot & slot_bits;
    if SHARED {
        drv_rr[net.buf_driver[b] as usize] = net.buf_sub[b];
    }
    b
}

#[cfg(test)]
mod tests {
    use super::turn_key;

    /// Every arbiter size, last grant and pair of slots: `turn_key` orders two requesters as
    /// their round-robin distance after the last grant does.
    #[test]
    fn turn_keys_order_slots_as_their_distance_after_the_last_grant() {
        for drivers in 1u16..=40 {
            let distance = |slot: u16, rr: u16| (slot + drivers - rr - 1) % drivers;
            for rr in 0..drivers {
                for s in 0..drivers {
                    for t in 0..drivers {
                        assert_eq!(
                            turn_key(s, rr).cmp(&turn_key(t, rr)),
                            distance(s, rr).cmp(&distance(t, rr)),
                            "{drivers} slots, last grant {rr}, slots {s} and {t}"
                        );
                    }
                }
            }
        }
    }
}
