//! The set of buffers visited each cycle, as a two-level bitset: iteration runs in buffer-id
//! order (deterministic, and memory-local since neighbouring ids are neighbouring links), and
//! an idle network costs one scan of the summary words. A summary bit is set when its word
//! gains a member and cleared by the next walk that finds the word empty, so that a removal
//! writes one word.
//!
//! A one-pass cycle (a network larger than the caches) keeps its buffers' set as a list
//! instead (`listing`): next cycle's members in the order they joined, none twice. There a
//! word of the set is a cache miss of its own for each member, while the list is read and
//! written in order: a buffer joins when it starts to hold a flit or wakes
//! ([`ActiveSet::join`]), a visit puts back a member that stays ([`ActiveSet::keep`]), and a
//! member leaves by not being put back, its record's state saying which it is. The results do
//! not depend on the order of the visits (a decision reads the state at the start of the cycle).

#[derive(Clone, Default)]
pub struct ActiveSet {
    words: Vec<u64>,
    summary: Vec<u64>,
    /// The words with members, listed by `collect` (reused).
    listed: Vec<u32>,
    /// The members are kept in `list`, not in the words.
    listing: bool,
    /// In list mode, the members for the next walk, each once.
    list: Vec<u32>,
}

impl ActiveSet {
    pub fn new(n: usize) -> ActiveSet {
        let words = n.div_ceil(64);
        ActiveSet {
            words: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
            listed: Vec::new(),
            listing: false,
            list: Vec::new(),
        }
    }

    #[inline]
    pub fn insert(&mut self, b: u32) {
        let w = (b >> 6) as usize;
        self.words[w] |= 1 << (b & 63);
        self.summary[w >> 6] |= 1 << (w & 63);
    }

    #[inline]
    pub fn remove(&mut self, b: u32) {
        self.words[(b >> 6) as usize] &= !(1 << (b & 63));
    }

    /// Inserts `b` if `cond`, without a branch.
    #[inline]
    pub fn insert_if(&mut self, b: u32, cond: bool) {
        let w = (b >> 6) as usize;
        self.words[w] |= (cond as u64) << (b & 63);
        self.summary[w >> 6] |= (cond as u64) << (w & 63);
    }

    /// Removes `b` if `cond`, without a branch.
    #[inline]
    pub fn remove_if(&mut self, b: u32, cond: bool) {
        self.words[(b >> 6) as usize] &= !((cond as u64) << (b & 63));
    }

    /// Asks for the cache line of `b`'s word (a hint: prefetching never changes the set).
    #[inline(always)]
    pub fn prefetch(&self, b: u32) {
        super::prefetch::prefetch(&self.words, b >> 6);
    }

    /// True when the set has room for members (a default set has none).
    #[inline]
    pub fn on(&self) -> bool {
        !self.words.is_empty()
    }

    /// True when `b` is a member (of the words: a list is not searched).
    #[inline]
    pub fn contains(&self, b: u32) -> bool {
        debug_assert!(!self.listing);
        self.words[(b >> 6) as usize] >> (b & 63) & 1 == 1
    }

    /// Calls `f` on every member in increasing order. Each word is read when the walk reaches
    /// it: a member that `f` removes from a later word is not visited, and one that it inserts
    /// into a later word may be (the cycle's visits only remove).
    #[inline(always)]
    pub fn for_each(&mut self, mut f: impl FnMut(&mut Self, u32)) {
        debug_assert!(!self.listing);
        for s in 0..self.summary.len() {
            let mut sw = self.summary[s];
            while sw != 0 {
                let w = s * 64 + sw.trailing_zeros() as usize;
                sw &= sw - 1;
                let mut bits = self.words[w];
                if bits == 0 {
                    // An emptied word's summary bit is cleared here (an insertion sets it again).
                    self.summary[s] &= !(1 << (w & 63));
                }
                while bits != 0 {
                    let b = (w * 64) as u32 + bits.trailing_zeros();
                    bits &= bits - 1;
                    f(self, b);
                }
            }
        }
    }

    /// Appends every member to `out`, in increasing order (clearing the summary bits of
    /// emptied words). The words with members are listed first, from the summary, and then
    /// read, each asked for a few words ahead: a large set's words are far apart in memory.
    #[inline]
    pub fn collect(&mut self, out: &mut Vec<u32>) {
        debug_assert!(!self.listing);
        let mut listed = std::mem::take(&mut self.listed);
        listed.clear();
        for (s, &sw) in self.summary.iter().enumerate() {
            let mut sw = sw;
            while sw != 0 {
                listed.push((s * 64) as u32 + sw.trailing_zeros());
                sw &= sw - 1;
            }
        }
        for (i, &w) in listed.iter().enumerate() {
            if let Some(&ahead) = listed.get(i + super::prefetch::AHEAD) {
                super::prefetch::prefetch(&self.words, ahead);
            }
            let w = w as usize;
            let mut bits = self.words[w];
            if bits == 0 {
                self.summary[w >> 6] &= !(1 << (w & 63));
            }
            while bits != 0 {
                out.push((w * 64) as u32 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
        self.listed = listed;
    }

    /// Appends every member to `out`, in increasing order, and empties the set.
    #[inline]
    pub fn drain_into(&mut self, out: &mut Vec<u32>) {
        self.drain(|b| out.push(b));
    }

    /// Calls `f` on every member in increasing order and empties the set (of words).
    #[inline(always)]
    pub fn drain(&mut self, mut f: impl FnMut(u32)) {
        debug_assert!(!self.listing);
        for s in 0..self.summary.len() {
            let mut sw = std::mem::take(&mut self.summary[s]);
            while sw != 0 {
                let w = s * 64 + sw.trailing_zeros() as usize;
                sw &= sw - 1;
                let mut bits = std::mem::take(&mut self.words[w]);
                while bits != 0 {
                    f((w * 64) as u32 + bits.trailing_zeros());
                    bits &= bits - 1;
                }
            }
        }
    }

    /// Bytes of the two levels of words and of the lists.
    pub fn words_bytes(&self) -> u64 {
        ((self.words.capacity() + self.summary.capacity()) * 8
            + (self.listed.capacity() + self.list.capacity()) * 4) as u64
    }

    /// True when the members are kept as a list.
    pub fn listing(&self) -> bool {
        self.listing
    }

    /// Keeps the members as a list (`on`) or in the words, moving them if that changes.
    #[inline(always)]
    pub fn keep_listing(&mut self, on: bool) {
        if on != self.listing {
            self.switch_listing(on);
        }
    }

    /// [`ActiveSet::keep_listing`] when the cycle changes kind.
    #[cold]
    fn switch_listing(&mut self, on: bool) {
        let members = self.take_members();
        self.listing = on;
        for b in members {
            self.add(b);
        }
    }

    /// `b` joins the set (a list's caller makes sure it is not a member yet): `LIST` says, at
    /// compile time, how the members are kept.
    #[inline(always)]
    pub fn join<const LIST: bool>(&mut self, b: u32) {
        debug_assert_eq!(LIST, self.listing);
        if LIST {
            self.list.push(b);
        } else {
            self.insert(b);
        }
    }

    /// `b` joins the set if `cond` (without a branch in the words).
    #[inline(always)]
    pub fn join_if<const LIST: bool>(&mut self, b: u32, cond: bool) {
        debug_assert_eq!(LIST, self.listing);
        if LIST {
            if cond {
                self.list.push(b);
            }
        } else {
            self.insert_if(b, cond);
        }
    }

    /// `b` leaves the set: from the words; a list's member leaves by not being kept.
    #[inline(always)]
    pub fn leave<const LIST: bool>(&mut self, b: u32) {
        if !LIST {
            self.remove(b);
        }
    }

    /// `b` leaves the set if `cond`: from the words; a list's member by not being kept.
    #[inline(always)]
    pub fn leave_if<const LIST: bool>(&mut self, b: u32, cond: bool) {
        if !LIST {
            self.remove_if(b, cond);
        }
    }

    /// A member has sent a flit: it leaves when `empty`, else it stays.
    #[inline(always)]
    pub fn sent<const LIST: bool>(&mut self, b: u32, empty: bool) {
        self.leave_if::<LIST>(b, empty);
        if !empty {
            self.keep::<LIST>(b);
        }
    }

    /// A visited member stays for the next walk: put back on the list (the words keep it).
    #[inline(always)]
    pub fn keep<const LIST: bool>(&mut self, b: u32) {
        if LIST {
            self.list.push(b);
        }
    }

    /// Asks for the line of `b`'s word (the list has none to ask for).
    #[inline(always)]
    pub fn hint<const LIST: bool>(&self, b: u32) {
        if !LIST {
            self.prefetch(b);
        }
    }

    /// `b` joins the set, kept either way (a list's caller makes sure it is not a member yet).
    #[inline]
    pub fn add(&mut self, b: u32) {
        if self.listing {
            self.list.push(b);
        } else {
            self.insert(b);
        }
    }

    /// Moves the list's members, in list order, to `out` for a walk (list mode).
    #[inline]
    pub fn take_list(&mut self, out: &mut Vec<u32>) {
        debug_assert!(self.listing && out.is_empty());
        std::mem::swap(out, &mut self.list);
    }

    /// Empties the set, returning its members: in increasing order, or in list order.
    pub fn take_members(&mut self) -> Vec<u32> {
        if self.listing {
            return std::mem::take(&mut self.list);
        }
        let mut members = Vec::new();
        self.drain_into(&mut members);
        members
    }

    /// Calls `f` on every member: in increasing order, or in list order.
    pub fn members(&self, mut f: impl FnMut(u32)) {
        if self.listing {
            self.list.iter().for_each(|&b| f(b));
            return;
        }
        for (w, &bits) in self.words.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                f((w * 64) as u32 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        if self.listing {
            return self.list.len();
        }
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_remove_iterate_in_order() {
        let mut a = ActiveSet::new(10_000);
        for b in [9_999u32, 0, 64, 4_095, 4_096, 63, 130] {
            a.insert(b);
        }
        a.remove(64);
        a.remove(130);
        let mut seen = Vec::new();
        a.collect(&mut seen);
        assert_eq!(seen, vec![0, 63, 4_095, 4_096, 9_999]);
        assert!(!a.contains(130) && a.contains(4_096));
        assert_eq!(a.len(), 5);
        let mut drained = Vec::new();
        a.drain_into(&mut drained);
        assert_eq!(drained, vec![0, 63, 4_095, 4_096, 9_999]);
        assert_eq!(a.len(), 0);
    }

    /// In list mode a member joins and is kept by being pushed, and leaves by not being kept;
    /// a walk takes the list in the order of the pushes; switching modes keeps the members.
    #[test]
    fn a_list_keeps_its_members_in_the_order_they_joined() {
        let mut a = ActiveSet::new(10_000);
        for b in [70u32, 3, 9_000] {
            a.insert(b);
        }
        a.keep_listing(true);
        assert!(a.listing() && a.len() == 3);
        a.join::<true>(500);
        a.join_if::<true>(600, false);
        a.leave::<true>(3);
        let mut walk = Vec::new();
        a.take_list(&mut walk);
        assert_eq!(walk, vec![3, 70, 9_000, 500]);
        assert_eq!(a.len(), 0);
        // The walk keeps 9,000 and 70; 3 and 500 leave; 42 joins.
        a.keep::<true>(9_000);
        a.join::<true>(42);
        a.keep::<true>(70);
        let mut seen = Vec::new();
        a.members(|b| seen.push(b));
        assert_eq!(seen, vec![9_000, 42, 70]);
        a.keep_listing(false);
        assert!(!a.listing());
        let mut words = Vec::new();
        a.collect(&mut words);
        assert_eq!(words, vec![42, 70, 9_000]);
        // In the words, keep is nothing and leave removes.
        a.keep::<false>(5);
        a.leave::<false>(42);
        assert_eq!(a.len(), 2);
    }

    /// A removal leaves its word's summary bit set; the next walk clears the bits of empty
    /// words; a member inserted during a walk into a word the walk had no bit for is found by
    /// the next walk.
    #[test]
    fn emptied_words_leave_the_summary_on_the_next_walk() {
        let mut a = ActiveSet::new(1 << 16);
        for b in [5u32, 700, 4_100, 65_000] {
            a.insert(b);
        }
        a.remove(700);
        a.remove_if(65_000, true);
        a.remove_if(5, false);
        assert_eq!(a.summary.iter().map(|s| s.count_ones()).sum::<u32>(), 4);
        let mut seen = Vec::new();
        a.collect(&mut seen);
        assert_eq!(seen, vec![5, 4_100]);
        assert_eq!(a.summary.iter().map(|s| s.count_ones()).sum::<u32>(), 2);
        a.remove(4_100);
        let mut walked = Vec::new();
        a.for_each(|set, b| {
            walked.push(b);
            set.remove(b);
            set.insert(b + 3_000);
        });
        assert_eq!(walked, vec![5]);
        // Word 0 (emptied during the walk) and word 46 (3,005's).
        assert_eq!(a.summary.iter().map(|s| s.count_ones()).sum::<u32>(), 2);
        let mut seen = Vec::new();
        a.collect(&mut seen);
        assert_eq!(seen, vec![3_005]);
        assert_eq!(a.summary.iter().map(|s| s.count_ones()).sum::<u32>(), 1);
        let mut drained = Vec::new();
        a.drain_into(&mut drained);
        assert_eq!(drained, vec![3_005]);
        assert!(a.summary.iter().all(|&s| s == 0));
    }
}
