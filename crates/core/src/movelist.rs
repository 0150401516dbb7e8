//! A fixed-capacity move list on the stack.

use std::fmt;
use std::mem::MaybeUninit;
use std::ops::{Deref, DerefMut};

/// Upper bound on the legal moves of any position of any game here.
///
/// Duck Chess stays under 130; a 12×12 Surakarta position has at most 24 pieces with 8 steps and
/// 4 capture directions each (288); RC-02 at most 18 × 4.
pub const MAX_MOVES: usize = 512;

/// A move list that lives on the stack, so move generation never allocates.
///
/// Its slots start uninitialised: a search makes one list per node, and writing all
/// [`MAX_MOVES`] slots first cost more than generating the moves (it showed as `memset` in
/// profiles). Only `items[..len]` is ever read.
///
/// Besides `push`, generators can write a fixed block of candidate moves and keep only the first
/// `count` of them ([`MoveList::push_block`]): a branch-free way to add "those of these eight
/// neighbours that are empty" with one copy.
pub struct MoveList<M> {
    items: [MaybeUninit<M>; MAX_MOVES],
    len: usize,
}

impl<M: Copy + Default> MoveList<M> {
    #[inline]
    pub fn new() -> Self {
        MoveList {
            items: [MaybeUninit::uninit(); MAX_MOVES],
            len: 0,
        }
    }

    /// Appends `mv`.
    ///
    /// # Panics
    /// When the list is full (no position of any game here has that many moves).
    #[inline]
    pub fn push(&mut self, mv: M) {
        self.items[self.len] = MaybeUninit::new(mv);
        self.len += 1;
    }

    /// Writes all of `block` after the current moves and keeps the first `count` (at most `K`)
    /// of them.
    #[inline]
    pub fn push_block<const K: usize>(&mut self, block: &[M; K], count: usize) {
        assert!(count <= K);
        let slots = &mut self.items[self.len..self.len + K];
        for (slot, &mv) in slots.iter_mut().zip(block) {
            *slot = MaybeUninit::new(mv);
        }
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
            let mv = self[i];
            if keep(&mv) {
                self.items[kept] = MaybeUninit::new(mv);
                kept += 1;
            }
        }
        self.len = kept;
    }
}

impl<M: Copy> Clone for MoveList<M> {
    fn clone(&self) -> Self {
        MoveList {
            items: self.items,
            len: self.len,
        }
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
        let init = &self.items[..self.len];
        // SAFETY: every slot below `len` was written by `push`, `push_block` or `retain` (the
        // only ways `len` grows or slots move), and `MaybeUninit<M>` has `M`'s layout.
        unsafe { &*(init as *const [MaybeUninit<M>] as *const [M]) }
    }
}

impl<M> DerefMut for MoveList<M> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [M] {
        let init = &mut self.items[..self.len];
        // SAFETY: as in `deref`.
        unsafe { &mut *(init as *mut [MaybeUninit<M>] as *mut [M]) }
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
