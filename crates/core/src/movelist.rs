//! A fixed-capacity move list on the stack.

use std::fmt;
use std::ops::{Deref, DerefMut};

/// Upper bound on the legal moves of any position of any game here.
///
/// Duck Chess stays under 130; a 12×12 Surakarta position has at most 24 pieces with 8 steps and
/// 4 capture directions each (288); RC-02 at most 18 × 4.
pub const MAX_MOVES: usize = 512;

/// A move list that lives on the stack, so move generation never allocates.
///
/// Besides `push`, generators can write a fixed block of candidate moves and keep only the first
/// `count` of them ([`MoveList::push_block`]): a branch-free way to add "those of these eight
/// neighbours that are empty" with one copy.
#[derive(Clone)]
pub struct MoveList<M> {
    items: [M; MAX_MOVES],
    len: usize,
}

impl<M: Copy + Default> MoveList<M> {
    pub fn new() -> Self {
        MoveList {
            items: [M::default(); MAX_MOVES],
            len: 0,
        }
    }

    #[inline]
    pub fn push(&mut self, mv: M) {
        self.items[self.len] = mv;
        self.len += 1;
    }

    /// Writes all of `block` after the current moves and keeps the first `count` (at most `K`)
    /// of them.
    #[inline]
    pub fn push_block<const K: usize>(&mut self, block: &[M; K], count: usize) {
        debug_assert!(count <= K);
        self.items[self.len..self.len + K].copy_from_slice(block);
        self.len += count;
    }

    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Keeps the first `len` moves.
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Removes the moves for which `keep` is false, keeping the order of the others.
    pub fn retain(&mut self, mut keep: impl FnMut(&M) -> bool) {
        let mut kept = 0;
        for i in 0..self.len {
            if keep(&self.items[i]) {
                self.items[kept] = self.items[i];
                kept += 1;
            }
        }
        self.len = kept;
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
        &self.items[..self.len]
    }
}

impl<M> DerefMut for MoveList<M> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [M] {
        &mut self.items[..self.len]
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
