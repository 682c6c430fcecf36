//! Record arrays (buffers, channels, per-message columns) as a step of the cycle sees them.
//! One thread holds every record, as a slice. A split cycle's partition holds some: it sees
//! the shared array through a [`View`], which hands out one element at a time, never a slice,
//! so that no thread holds a reference to memory another may touch in the same phase. In a
//! debug build every element a view hands out is checked against the ownership rule of the
//! phase (`partition.rs`): the writer's partition holds it, and a read of another partition's
//! record is of a field no thread writes in that phase.

use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// An array of records a step reads and writes by index: a slice (one thread) or a view of a
/// shared array (one partition of a split cycle).
pub(crate) trait Records<T>: IndexMut<usize, Output = T> {
    /// Records in the array.
    fn len(&self) -> usize;

    /// Record `i`, to write.
    #[inline(always)]
    fn at(&mut self, i: usize) -> &mut T {
        &mut self[i]
    }

    /// Field `field` of record `i`, which another partition may hold: only a field that no
    /// thread writes in this phase may be read so.
    #[inline(always)]
    fn peek<F: Copy>(&self, i: usize, field: Field<T, F>) -> F {
        let record: *const T = &self[i];
        // SAFETY: `field` is a field of type F at its offset in T (`Field::new`'s contract),
        // inside the record `&self[i]` this array holds.
        let at = record.wrapping_byte_add(field.offset).cast::<F>();
        // SAFETY: as above: `at` is the record's F, in bounds and aligned.
        unsafe { at.read() }
    }

    /// The address of record `i`, for a prefetch (None out of range).
    #[inline(always)]
    fn address(&self, i: usize) -> Option<*const T> {
        (i < self.len()).then(|| std::ptr::from_ref(&self[i]))
    }
}

/// A field of records of type `T`, of type `F`: what [`Records::peek`] reads.
pub(crate) struct Field<T, F> {
    offset: usize,
    _types: PhantomData<fn(&T) -> F>,
}

impl<T, F> Clone for Field<T, F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, F> Copy for Field<T, F> {}

impl<T, F> Field<T, F> {
    /// The field at byte `offset` of a `T` (from `std::mem::offset_of!`).
    ///
    /// # Safety
    /// A `T` holds an `F` at byte `offset`.
    pub const unsafe fn new(offset: usize) -> Field<T, F> {
        Field {
            offset,
            _types: PhantomData,
        }
    }
}

impl<T> Records<T> for [T] {
    #[inline(always)]
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
}

impl<T> Records<T> for Vec<T> {
    #[inline(always)]
    fn len(&self) -> usize {
        Vec::len(self)
    }
}

/// An array shared by the partitions of a split cycle for one phase; each partition reaches
/// it through its own [`View`].
pub(crate) struct Shared<'a, T> {
    ptr: *mut T,
    len: usize,
    _array: PhantomData<&'a mut [T]>,
}

impl<T> Clone for Shared<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Shared<'_, T> {}

// SAFETY: a `Shared` hands its elements out only through views, one partition each, which
// touch only what the phase's ownership rule gives them (checked in debug builds).
unsafe impl<T: Send> Send for Shared<'_, T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Send> Sync for Shared<'_, T> {}

impl<'a, T> Shared<'a, T> {
    /// Shares `s` for one phase of the cycle.
    pub fn new(s: &'a mut [T]) -> Shared<'a, T> {
        Shared {
            ptr: s.as_mut_ptr(),
            len: s.len(),
            _array: PhantomData,
        }
    }

    /// Elements in the array.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Partition `me`'s view, its accesses checked in debug builds against `owners` (each
    /// element's partition; none: unchecked), other partitions' fields readable with
    /// [`Records::peek`] when `peeks` says no thread writes them in this phase.
    ///
    /// # Safety
    /// While the view lives, no two views (on any threads) touch the same element, except
    /// `peek` reads of a field no view writes.
    pub unsafe fn view(&self, me: u8, owners: Owners<'a>) -> View<'a, T> {
        let _ = (me, owners);
        View {
            ptr: self.ptr,
            len: self.len,
            #[cfg(debug_assertions)]
            me,
            #[cfg(debug_assertions)]
            owners,
            _array: PhantomData,
        }
    }
}

/// Which partition may touch each element of a shared array in a phase, for the debug build's
/// check: element i's partition is `of[i / per]` (`per` elements to an entry: a channel's
/// buffers share their holder), any partition's past the table's end (the sentinel buffer,
/// which no one writes, and the channels no table covers); and whether other partitions'
/// elements may be peeked at.
#[derive(Clone, Copy)]
#[cfg_attr(not(debug_assertions), allow(dead_code))]
pub(crate) struct Owners<'a> {
    /// Each entry's partition, or empty: not checked.
    pub of: &'a [u8],
    /// Elements to an entry.
    pub per: u32,
    /// Other partitions' elements may be read with [`Records::peek`] (no thread writes the
    /// fields peeked at in this phase).
    pub peeks: bool,
}

#[cfg_attr(not(debug_assertions), allow(dead_code))]
impl Owners<'_> {
    /// An element any partition may touch.
    pub const ANYONE: u8 = u8::MAX;

    /// Not checked.
    pub const UNCHECKED: Owners<'static> = Owners {
        of: &[],
        per: 1,
        peeks: false,
    };

    /// The partition that may touch element `i` (`ANYONE` past the table).
    #[inline(always)]
    fn of(&self, i: usize) -> u8 {
        let entry = i / self.per as usize;
        self.of.get(entry).copied().unwrap_or(Owners::ANYONE)
    }
}

/// One partition's access to a [`Shared`] array: element by element, checked in debug builds.
pub(crate) struct View<'a, T> {
    ptr: *mut T,
    len: usize,
    /// The partition, and who may touch what: for the check (debug builds only, so that a
    /// view is a slice's two words otherwise).
    #[cfg(debug_assertions)]
    me: u8,
    #[cfg(debug_assertions)]
    owners: Owners<'a>,
    _array: PhantomData<&'a mut [T]>,
}

impl<'a, T> View<'a, T> {
    /// The whole of `s`, for the one thread, which holds every record.
    pub fn whole(s: &'a mut [T]) -> View<'a, T> {
        View {
            ptr: s.as_mut_ptr(),
            len: s.len(),
            #[cfg(debug_assertions)]
            me: 0,
            #[cfg(debug_assertions)]
            owners: Owners::UNCHECKED,
            _array: PhantomData,
        }
    }

    /// This view again, for as long as it is borrowed: to hand a callee a view of its own
    /// (so that this one's place never escapes and its pointer stays in a register).
    #[inline(always)]
    pub fn reborrow(&mut self) -> View<'_, T> {
        View {
            ptr: self.ptr,
            len: self.len,
            #[cfg(debug_assertions)]
            me: self.me,
            #[cfg(debug_assertions)]
            owners: self.owners,
            _array: PhantomData,
        }
    }

    /// Checks that partition `me` may touch element `i` wholly (debug builds).
    #[inline(always)]
    fn check(&self, i: usize) {
        if i >= self.len {
            out_of_range(i, self.len);
        }
        #[cfg(debug_assertions)]
        if !self.owners.of.is_empty() {
            let owner = self.owners.of(i);
            assert!(
                owner == self.me || owner == Owners::ANYONE,
                "partition {} touched element {i}, which partition {owner} holds in this phase",
                self.me
            );
        }
    }
}

impl<T> Index<usize> for View<'_, T> {
    type Output = T;

    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        self.check(i);
        let at = self.ptr.wrapping_add(i);
        // SAFETY: in range (checked), and element i is this partition's in this phase (the
        // view's contract, checked in debug builds): no other thread touches it.
        unsafe { &*at }
    }
}

impl<T> IndexMut<usize> for View<'_, T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        self.check(i);
        let at = self.ptr.wrapping_add(i);
        // SAFETY: as for `index`: element i is this partition's alone in this phase.
        unsafe { &mut *at }
    }
}

impl<T> Records<T> for View<'_, T> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    fn peek<F: Copy>(&self, i: usize, field: Field<T, F>) -> F {
        if i >= self.len {
            out_of_range(i, self.len);
        }
        #[cfg(debug_assertions)]
        if !self.owners.of.is_empty() {
            let owner = self.owners.of(i);
            assert!(
                self.owners.peeks || owner == self.me || owner == Owners::ANYONE,
                "partition {} read element {i} of partition {owner}, whose fields are written in this phase",
                self.me
            );
        }
        let at = self
            .ptr
            .wrapping_add(i)
            .wrapping_byte_add(field.offset)
            .cast::<F>();
        // SAFETY: in range, an F inside element i (`Field::new`'s contract), that no thread
        // writes in this phase (the view's contract): one read, no reference to the record.
        unsafe { at.read() }
    }

    #[inline(always)]
    fn address(&self, i: usize) -> Option<*const T> {
        // A prefetch reads nothing: the address alone, no reference.
        (i < self.len).then(|| self.ptr.wrapping_add(i).cast_const())
    }
}

/// Index `i` is past the `len` elements of a shared array.
#[cold]
#[inline(never)]
fn out_of_range(i: usize, len: usize) -> ! {
    panic!("index {i} out of a shared array of {len}")
}

#[cfg(test)]
mod tests {
    use super::{Owners, Records, Shared};

    /// A view hands out its partition's elements and the shared sentinel past the table, and
    /// lets it peek at another's only where the phase allows.
    #[test]
    fn a_view_touches_its_own_elements_and_peeks_where_allowed() {
        let mut a = [10u32, 11, 12, 13, 14];
        let owners = [0u8, 1];
        let shared = Shared::new(&mut a);
        let allowed = Owners {
            of: &owners,
            per: 2,
            peeks: true,
        };
        // SAFETY: one view at a time in this test.
        let mut mine = unsafe { shared.view(0, allowed) };
        mine[1] += 1;
        assert_eq!(mine[1], 12);
        assert_eq!(mine[4], 14, "the sentinel past the table is anyone's");
        // SAFETY: a u32 at offset 0 of a u32.
        let whole = unsafe { super::Field::<u32, u32>::new(0) };
        assert_eq!(mine.peek(2, whole), 12);
    }

    /// In a debug build a view refuses an element another partition holds.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "which partition 1 holds in this phase")]
    fn a_view_refuses_another_partitions_element() {
        let mut a = [0u32; 4];
        let owners = [0u8, 1];
        let shared = Shared::new(&mut a);
        let checked = Owners {
            of: &owners,
            per: 2,
            peeks: false,
        };
        // SAFETY: one view at a time in this test.
        let mut mine = unsafe { shared.view(0, checked) };
        mine[2] = 1;
    }

    /// In a debug build a view refuses to peek at another partition's element in a phase
    /// whose fields its holder writes.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "whose fields are written in this phase")]
    fn a_view_refuses_a_peek_where_the_phase_writes() {
        let mut a = [0u32; 4];
        let owners = [0u8, 1];
        let shared = Shared::new(&mut a);
        let checked = Owners {
            of: &owners,
            per: 2,
            peeks: false,
        };
        // SAFETY: one view at a time in this test.
        let mine = unsafe { shared.view(0, checked) };
        // SAFETY: a u32 at offset 0 of a u32.
        let _ = mine.peek(3, unsafe { super::Field::<u32, u32>::new(0) });
    }
}
