//! A cache of static values by position hash, for games whose evaluation costs more than a
//! memory lookup (Duck Chess: half of a search's time was its evaluation). Iterative deepening
//! and re-searches visit the same positions again, and a position's value never changes within
//! one player (its weights are fixed), so the last value stored for a hash is its value.

/// `2^bits` slots of (hash, value); a new value replaces whatever shared its slot.
pub(super) struct EvalCache {
    slots: Vec<(u64, i32)>,
}

impl EvalCache {
    /// A cache of `2^bits` slots; `bits == 0` is no cache at all (every lookup misses).
    pub fn new(bits: u32) -> EvalCache {
        let size = if bits == 0 { 0 } else { 1usize << bits };
        EvalCache {
            // Slot `i` starts with a key whose low bits are not `i`, so no position's hash can
            // match it before a value is stored there.
            slots: (0..size).map(|i| (i as u64 ^ 1, 0)).collect(),
        }
    }

    /// The value stored for `key`, else `evaluate()`'s, remembered.
    #[inline]
    pub fn get_or_insert(&mut self, key: u64, evaluate: impl FnOnce() -> i32) -> i32 {
        if self.slots.is_empty() {
            return evaluate();
        }
        let mask = self.slots.len() - 1;
        let slot = &mut self.slots[key as usize & mask];
        if slot.0 != key {
            *slot = (key, evaluate());
        }
        slot.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_computed_once_until_another_key_takes_its_slot() {
        let mut cache = EvalCache::new(4);
        let mut calls = 0;
        let mut ask = |cache: &mut EvalCache, key: u64, value: i32| {
            cache.get_or_insert(key, || {
                calls += 1;
                value
            })
        };
        assert_eq!(ask(&mut cache, 3, 7), 7);
        assert_eq!(ask(&mut cache, 3, 99), 7);
        assert_eq!(ask(&mut cache, 3 + 16, 5), 5);
        assert_eq!(ask(&mut cache, 3, 8), 8);
        assert_eq!(calls, 3);
    }

    #[test]
    fn a_fresh_cache_matches_no_key_not_even_zero() {
        let mut cache = EvalCache::new(2);
        for key in 0..4 {
            assert_eq!(cache.get_or_insert(key, || 42), 42);
        }
        let mut none = EvalCache::new(0);
        assert_eq!(none.get_or_insert(0, || 1), 1);
        assert_eq!(none.get_or_insert(0, || 2), 2);
    }
}
