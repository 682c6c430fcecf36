//! The partitions on the two sides of each buffered channel: the one holding its buffers (the
//! router it enters) and the one owning it (the router it leaves, which holds the upstream
//! buffers and the channel's arbiter and wait list). Most channels have one partition on both
//! sides; a bit per channel says which do not, so that a grant or a request asks a 1.25 MB
//! bitmap on a 1 M-node torus rather than two arrays of a byte per channel (20 MB, most of a
//! last-level cache).

use crate::engine::memory::vec_bytes;

/// Both sides of every buffered channel.
#[derive(Clone)]
pub(super) struct Sides {
    /// The partition holding each buffered channel's buffers.
    holder: Vec<u8>,
    /// The partition owning each buffered channel.
    feeder: Vec<u8>,
    /// Bit c: channel c's two sides are different partitions.
    cross: Vec<u64>,
}

impl Sides {
    /// The sides of channels `0..holder.len()`, from each channel's holder and owner.
    pub fn new(holder: Vec<u8>, feeder: Vec<u8>) -> Sides {
        let mut cross = vec![0u64; holder.len().div_ceil(64)];
        for (c, (h, f)) in holder.iter().zip(&feeder).enumerate() {
            cross[c / 64] |= ((h != f) as u64) << (c % 64);
        }
        Sides {
            holder,
            feeder,
            cross,
        }
    }

    /// True when channel `c` joins two partitions.
    #[inline(always)]
    fn crosses(&self, c: u32) -> bool {
        self.cross[(c / 64) as usize] >> (c % 64) & 1 != 0
    }

    /// The partition holding channel `c`'s buffers.
    #[inline(always)]
    pub fn holder(&self, c: u32) -> u8 {
        self.holder[c as usize]
    }

    /// The partition holding the buffers of channel `c`, which partition `me` owns.
    #[inline(always)]
    pub fn holder_from(&self, c: u32, me: u8) -> u8 {
        debug_assert_eq!(self.feeder[c as usize], me);
        if self.crosses(c) {
            self.holder[c as usize]
        } else {
            me
        }
    }

    /// The partition owning channel `c`, whose buffers partition `me` holds.
    #[inline(always)]
    pub fn feeder_into(&self, c: u32, me: u8) -> u8 {
        debug_assert_eq!(self.holder[c as usize], me);
        if self.crosses(c) {
            self.feeder[c as usize]
        } else {
            me
        }
    }

    /// Heap bytes.
    pub fn heap_bytes(&self) -> u64 {
        vec_bytes(&self.holder) + vec_bytes(&self.feeder) + vec_bytes(&self.cross)
    }
}

#[cfg(test)]
mod tests {
    use super::Sides;

    #[test]
    fn a_channel_crossing_partitions_names_both_sides() {
        // 130 channels over three words; channels 3 and 129 join partitions 0 and 1.
        let mut holder = vec![0u8; 130];
        let mut feeder = vec![0u8; 130];
        holder[3] = 1;
        feeder[129] = 1;
        (holder[70], feeder[70]) = (2, 2);
        let s = Sides::new(holder, feeder);
        assert_eq!(s.holder_from(3, 0), 1);
        assert_eq!(s.feeder_into(3, 1), 0);
        assert_eq!(s.holder_from(129, 1), 0);
        assert_eq!(s.feeder_into(129, 0), 1);
        assert_eq!((s.holder_from(70, 2), s.feeder_into(70, 2)), (2, 2));
        assert_eq!((s.holder_from(64, 0), s.feeder_into(0, 0)), (0, 0));
        assert_eq!(s.holder(3), 1);
    }
}
