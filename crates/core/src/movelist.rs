//! A fixed-capacity move list on the stack.

use std::fmt;
use std::ops::{Deref, DerefMut};

use arrayvec::ArrayVec;

/// Upper bound on the legal moves of any position of any game here.
///
/// Duck Chess stays under 130; a 12×12 Surakarta position has at most 24 pieces with 8 steps and
/// 4 capture directions each (288); RC-02 at most 18 × 4.
pub const MAX_MOVES: usize = 512;

/// A move list that lives on the stack, so move generation never allocates.
///
/// An [`ArrayVec`]: its slots start uninitialised (a search makes one list per node, and
/// writing all [`MAX_MOVES`] slots first cost more than generating the moves — it showed as
/// `memset` in profiles), and only the moves pushed are ever read. It replaced a hand-made
/// `MaybeUninit` array with `unsafe` slice casts at no measured cost (perft 6 of Duck Chess, perft
/// 7 of Surakarta and RC-02, and random playouts equal within noise, issue 26).
///
/// Besides `push`, generators can offer a fixed block of candidate moves and keep only the
/// first `count` of them ([`MoveList::push_block`]): "those of these eight neighbours that are
/// empty" with one copy.
#[derive(Clone)]
pub struct MoveList<M> {
    items: ArrayVec<M, MAX_MOVES>,
}

impl<M: Copy + Default> MoveList<M> {
    #[inline]
    pub fn new() -> Self {
        MoveList {
            items: ArrayVec::new(),
        }
    }

    /// Appends `mv`.
    ///
    /// # Panics
    /// When the list is full (no position of any game here has that many moves).
    #[inline]
    pub fn push(&mut self, mv: M) {
        self.items.push(mv);
    }

    /// Appends the first `count` (at most `K`) moves of `block`.
    #[inline]
    pub fn push_block<const K: usize>(&mut self, block: &[M; K], count: usize) {
        self.items
            .try_extend_from_slice(&block[..count])
            .expect("no position of any game here has MAX_MOVES moves");
    }

    #[inline]
    pub fn clear(&mut self) {
        self.items.clear();
    }

    /// Keeps the first `len` moves.
    pub fn truncate(&mut self, len: usize) {
        self.items.truncate(len);
    }

    /// Removes the moves for which `keep` is false, keeping the order of the others.
    pub fn retain(&mut self, mut keep: impl FnMut(&M) -> bool) {
        self.items.retain(|mv| keep(mv));
    }
}

impl<M: Copy + Default> Default for MoveList<M> {
    fn default() -> Self {
        MoveList::new()
    }
}

impl<M> Deref for MoveList<M> {
    type Target = [M];
    #[inline]
    fn deref(&self) -> &[M] {
        &self.items
    }
}

impl<M> DerefMut for MoveList<M> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [M] {
        &mut self.items
    }
}

impl<M: fmt::Debug> fmt::Debug for MoveList<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a, M> IntoIterator for &'a MoveList<M> {
    type Item = &'a M;
    type IntoIter = std::slice::Iter<'a, M>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<M: Copy + Default> Extend<M> for MoveList<M> {
    fn extend<I: IntoIterator<Item = M>>(&mut self, iter: I) {
        for mv in iter {
            self.push(mv);
        }
    }
}

impl<M: Copy + Default> FromIterator<M> for MoveList<M> {
    fn from_iter<I: IntoIterator<Item = M>>(iter: I) -> Self {
        let mut list = MoveList::new();
        list.extend(iter);
        list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_block_keeps_the_first_count() {
        let mut list: MoveList<u32> = MoveList::new();
        list.push(7);
        list.push_block(&[1, 2, 3, 4], 2);
        assert_eq!(&list[..], &[7, 1, 2]);
        list.push(9);
        assert_eq!(&list[..], &[7, 1, 2, 9]);
        list.retain(|&m| m != 1);
        assert_eq!(&list[..], &[7, 2, 9]);
        list.truncate(1);
        assert_eq!(list.len(), 1);
        list.clear();
        assert!(list.is_empty());
    }

    #[test]
    #[should_panic]
    fn overflowing_the_capacity_panics_instead_of_corrupting() {
        let mut list: MoveList<u8> = MoveList::new();
        for _ in 0..=MAX_MOVES {
            list.push(0);
        }
    }
}
