//! The transposition table: buckets of two entries, so a deep result is not pushed out by the
//! many shallow ones that follow it, and a generation stamp, so what earlier searches left
//! behind makes room first.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry<M> {
    pub key: u64,
    pub mv: Option<M>,
    pub score: i32,
    pub depth: i16,
    pub bound: Bound,
    generation: u8,
}

/// How many plies of depth one search of age outweighs when choosing what to replace.
const AGE_WEIGHT: i32 = 4;

pub(crate) struct Table<M> {
    entries: Vec<Option<Entry<M>>>,
    generation: u8,
}

impl<M: Copy> Table<M> {
    /// A table of `2^bits` entries (at least one bucket).
    pub fn new(bits: u32) -> Table<M> {
        Table {
            entries: vec![None; 1 << bits.max(1)],
            generation: 0,
        }
    }

    pub fn clear(&mut self) {
        self.entries.iter_mut().for_each(|e| *e = None);
        self.generation = 0;
    }

    /// Marks what is stored from now on as this search's.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    fn bucket(&self, key: u64) -> usize {
        (key as usize) & (self.entries.len() - 2)
    }

    /// Asks the processor to start loading `key`'s bucket, so the probe a little later finds it
    /// in cache: the table is megabytes, and waiting on memory was a fifth of Surakarta's search.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let bucket = self.entries[self.bucket(key)..].as_ptr();
            // SAFETY: a prefetch is only a hint; it never faults, whatever the address.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub fn get(&self, key: u64) -> Option<Entry<M>> {
        let b = self.bucket(key);
        self.entries[b..b + 2]
            .iter()
            .flatten()
            .find(|e| e.key == key)
            .copied()
    }

    /// Stores a result: over the same position's entry unless that one is from this search and
    /// deeper, else over the bucket's shallowest, oldest entry.
    pub fn store(&mut self, key: u64, mv: Option<M>, score: i32, depth: i32, bound: Bound) {
        let b = self.bucket(key);
        let generation = self.generation;
        let worth = |e: &Option<Entry<M>>| match e {
            None => i32::MIN,
            Some(e) => {
                let age = i32::from(generation.wrapping_sub(e.generation));
                i32::from(e.depth) - AGE_WEIGHT * age
            }
        };
        let same = (b..b + 2).find(|&i| self.entries[i].is_some_and(|e| e.key == key));
        let slot = match same {
            Some(i) => {
                let old = self.entries[i].expect("found above");
                let keep = old.generation == generation
                    && i32::from(old.depth) > depth
                    && bound != Bound::Exact;
                if keep {
                    return;
                }
                i
            }
            None if worth(&self.entries[b]) <= worth(&self.entries[b + 1]) => b,
            None => b + 1,
        };
        self.entries[slot] = Some(Entry {
            key,
            mv: mv.or_else(|| same.and_then(|i| self.entries[i]).and_then(|e| e.mv)),
            score,
            depth: depth as i16,
            bound,
            generation,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deep_entry_survives_shallow_ones_in_its_bucket() {
        let mut table = Table::<u8>::new(4);
        table.store(0, Some(1), 10, 8, Bound::Exact);
        // Keys 16, 32, … share bucket 0.
        for k in 1..5u64 {
            table.store(k * 16, Some(2), 0, 1, Bound::Lower);
        }
        assert_eq!(table.get(0).map(|e| e.depth), Some(8));
        assert_eq!(table.get(64).map(|e| e.mv), Some(Some(2)));
        assert!(table.get(48).is_none());
    }

    #[test]
    fn old_searches_make_room_and_a_move_is_not_forgotten() {
        let mut table = Table::<u8>::new(4);
        table.store(0, Some(1), 10, 8, Bound::Exact);
        table.store(16, Some(2), 10, 6, Bound::Exact);
        for _ in 0..3 {
            table.new_search();
        }
        table.store(32, Some(3), 0, 2, Bound::Upper);
        assert!(
            table.get(16).is_none(),
            "the shallower of the two old entries goes"
        );
        table.store(48, Some(4), 0, 2, Bound::Upper);
        assert!(
            table.get(32).is_some(),
            "this search's entry outweighs an old deeper one"
        );
        assert!(table.get(0).is_none());
        table.store(48, None, 5, 3, Bound::Upper);
        assert_eq!(
            table.get(48).and_then(|e| e.mv),
            Some(4),
            "a result without a move keeps the old move"
        );
    }
}
