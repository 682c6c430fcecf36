//! The per-message hop probe: what the grant of a header records of each hop it makes (the
//! buffer class it takes, as the routing names its classes), read once at the message's
//! delivery. A new per-message counter is a column here and a line where it is recorded.

use crate::records::{Records, Shared};

/// The routing's classes of buffers, by virtual channel: `0..adaptive` form its adaptive
/// class (class a of Duato's routings); every other virtual channel is an escape (or, for a
/// deterministic routing, the only) class. A non-minimal routing also names its detour
/// buffers: those a message enters only on a non-minimal route (the first global class of
/// the dragonfly's Valiant and UGAL routings), one hop each.
/// (Eight bytes: the grants pass it by value on their hot path.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferClasses {
    /// Virtual channels `0..adaptive` are the adaptive class.
    adaptive: u8,
    /// Detour buffers: virtual channels `0..detour_vcs` of the network links from
    /// `detour_from` on (`u32::MAX`: none).
    detour_vcs: u8,
    detour_from: u32,
    /// First virtual channel of the reply class, whose virtual channels count as the request
    /// class's from 0 (`u8::MAX`: one class).
    reply: u8,
}

impl Default for BufferClasses {
    fn default() -> Self {
        BufferClasses::new(0)
    }
}

impl BufferClasses {
    /// Virtual channels `0..adaptive` adaptive, the others escape; no detour buffers.
    pub fn new(adaptive: u32) -> BufferClasses {
        BufferClasses {
            adaptive: adaptive as u8,
            detour_vcs: 0,
            detour_from: u32::MAX,
            reply: u8::MAX,
        }
    }

    /// The same classes in each of two protocol classes, the reply class's virtual channels
    /// from `first` on.
    pub fn with_replies(self, first: u32) -> BufferClasses {
        BufferClasses {
            reply: first as u8,
            ..self
        }
    }

    /// Virtual channel `vc` as its protocol class numbers it.
    #[inline(always)]
    fn in_class(&self, vc: u32) -> u32 {
        let reply = self.reply as u32;
        if vc >= reply { vc - reply } else { vc }
    }

    /// The same classes with virtual channels `0..vcs` of the network links from `first` on
    /// as detour buffers.
    pub fn with_detour(self, first: u32, vcs: u32) -> BufferClasses {
        BufferClasses {
            detour_from: first,
            detour_vcs: vcs as u8,
            ..self
        }
    }

    /// Whether a hop on virtual channel `vc` is an escape (or deterministic) hop.
    #[inline(always)]
    pub fn escape(&self, vc: u32) -> bool {
        self.in_class(vc) >= self.adaptive as u32
    }

    /// Whether a hop over network link `c` into its virtual channel `vc` enters a detour
    /// buffer.
    #[inline(always)]
    pub fn detour(&self, c: u32, vc: u32) -> bool {
        c >= self.detour_from && self.in_class(vc) < self.detour_vcs as u32
    }
}

/// The hops a message made: links crossed, of those escape (or deterministic) hops, and
/// hops into detour buffers (a non-minimal route makes one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hops {
    /// Network links its header crossed.
    pub links: u16,
    /// Of those, links crossed outside the routing's adaptive class.
    pub escape: u16,
    /// Of those, links crossed into the routing's detour buffers.
    pub detour: u16,
}

/// Each message's hops so far, indexed by message id.
#[derive(Clone, Default)]
pub struct HopProbe {
    classes: BufferClasses,
    hops: Vec<Hops>,
}

impl HopProbe {
    /// A probe of a routing with buffer classes `classes`.
    pub fn new(classes: BufferClasses) -> HopProbe {
        HopProbe {
            classes,
            hops: Vec::new(),
        }
    }

    /// Room for `messages` message ids.
    #[inline]
    pub fn fit(&mut self, messages: usize) {
        if self.hops.len() < messages {
            self.hops.resize(messages, Hops::default());
        }
    }

    /// Message `m`'s header crossed link `c` into its virtual channel `vc` (called once per
    /// header hop, by the grant that moves it).
    #[inline(always)]
    pub fn hop(&mut self, m: u32, c: u32, vc: u32) {
        hop(&mut self.hops[..], self.classes, m, c, vc);
    }

    /// Message `m`'s hops so far.
    pub fn of(&self, m: u32) -> Hops {
        self.hops[m as usize]
    }

    /// Message `m`'s hops, its counters cleared for the id's next message (at its delivery).
    #[inline]
    pub fn take(&mut self, m: u32) -> Hops {
        std::mem::take(&mut self.hops[m as usize])
    }

    /// The column, for the one thread's grants.
    pub(crate) fn columns(&mut self) -> (&mut [Hops], BufferClasses) {
        (&mut self.hops, self.classes)
    }

    /// The columns, shared by the partitions of a split cycle's grants: a message's hops are
    /// recorded by the partition that grants its header, one at a time.
    pub(crate) fn share(&mut self) -> (Shared<'_, Hops>, BufferClasses) {
        (Shared::new(&mut self.hops), self.classes)
    }

    /// Bytes of its columns.
    pub fn heap_bytes(&self) -> u64 {
        (self.hops.capacity() * std::mem::size_of::<Hops>()) as u64
    }
}

/// Records a hop of message `m` over link `c` into its virtual channel `vc` in `hops`.
#[inline(always)]
pub(crate) fn hop<R: Records<Hops> + ?Sized>(
    hops: &mut R,
    classes: BufferClasses,
    m: u32,
    c: u32,
    vc: u32,
) {
    let h = &mut hops.at(m as usize);
    h.links += 1;
    h.escape += classes.escape(vc) as u16;
    h.detour += classes.detour(c, vc) as u16;
}
