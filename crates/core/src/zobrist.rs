//! Zobrist key tables, made at compile time from a seed so hashes are the same in every build.

/// One step of SplitMix64: returns the next state and its output.
pub const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// `N` pseudo-random keys from `seed`; use distinct seeds for distinct tables.
pub const fn keys<const N: usize>(seed: u64) -> [u64; N] {
    let mut out = [0u64; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        let (next, value) = splitmix64(state);
        state = next;
        out[i] = value;
        i += 1;
    }
    out
}

/// A key for a number that is part of a state (a counter, a limit): `salt` tells tables apart.
#[inline]
pub const fn number_key(salt: u64, value: u64) -> u64 {
    splitmix64(salt ^ value.wrapping_mul(0xD6E8_FEB8_6659_FD93)).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct_and_seed_dependent() {
        const A: [u64; 256] = keys(1);
        const B: [u64; 256] = keys(2);
        let mut all: Vec<u64> = A.iter().chain(B.iter()).copied().collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 512);
    }
}
