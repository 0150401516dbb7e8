//! Capture generation along the circuits: where each point lies on the tracks, and the tables
//! that pair the pieces meeting along a circuit.

use super::MAX_CIRCUITS;

/// `NEXT_LINE[non_empty][i]`: the first line after `i` (cyclically, possibly `i` itself) whose
/// bit is set in the 4-bit set `non_empty`.
pub(crate) const NEXT_LINE: [[u8; 4]; 16] = {
    let mut table = [[0u8; 4]; 16];
    let mut set = 1;
    while set < 16 {
        let mut i = 0;
        while i < 4 {
            let mut j = (i + 1) % 4;
            while set >> j & 1 == 0 {
                j = (j + 1) % 4;
            }
            table[set][i] = j as u8;
            i += 1;
        }
        set += 1;
    }
    table
};

/// `TRACK_PLACES[n/2 - 3][code(p)]`: the two places `(circuit, track index)` of point
/// `p` on an `n × n` board, `(MAX_CIRCUITS, 0)` (the spare track) where there are fewer.
///
/// Row `y` is line 0 of circuit `y` (from the left) or line 2 of circuit `n-1-y` (from the
/// right); column `x` is line 1 of circuit `n-1-x` (upwards) or line 3 of circuit `x`
/// (downwards), circuits counted from 1 (see [`crate::geometry`]). Edge lines lie on no circuit.
pub(crate) const TRACK_PLACES: [[[(u8, u8); 2]; 256]; 4] = {
    let spare = (MAX_CIRCUITS as u8, 0);
    let mut table = [[[spare; 2]; 256]; 4];
    let mut size = 0;
    while size < 4 {
        let n = 6 + 2 * size;
        let (half, m) = (n / 2, n - 1);
        let mut y = 0;
        while y < n {
            let mut x = 0;
            while x < n {
                let entry = &mut table[size][y << 4 | x];
                if y >= 1 && y < half {
                    entry[0] = ((y - 1) as u8, x as u8);
                } else if y >= half && y < m {
                    entry[0] = ((m - 1 - y) as u8, (2 * n + m - x) as u8);
                }
                if x >= half && x < m {
                    entry[1] = ((m - 1 - x) as u8, (n + y) as u8);
                } else if x >= 1 && x < half {
                    entry[1] = ((x - 1) as u8, (3 * n + m - y) as u8);
                }
                x += 1;
            }
            y += 1;
        }
        size += 1;
    }
    table
};

/// When one piece is both the last of line `i` (at bit `last`) and the first of line `j` of a
/// circuit (it stands on their crossing), its travel passes over itself: the track indices
/// of the pieces it meets then, onwards along line `j` and backwards along line `i`.
#[inline(always)]
pub(super) fn pieces_past_crossing(
    lines: &[u64; 4],
    i: usize,
    j: usize,
    last: usize,
    n: usize,
) -> [Option<usize>; 2] {
    let onwards = lines[j] & (lines[j] - 1);
    let backwards = lines[i] & !(1u64 << last);
    [
        (onwards != 0).then(|| j * n + onwards.trailing_zeros() as usize),
        (backwards != 0).then(|| i * n + 63 - backwards.leading_zeros() as usize),
    ]
}

/// `LINE_PAIR_ENTRIES[summary]`: how many pairs of a circuit have owners that differ, where
/// `summary` has three bits for each line `i` of the circuit: bit `3i` when the line holds a
/// piece, bit `3i + 1` when its first piece is black and bit `3i + 2` when its last piece is
/// black. Each non-empty line's last piece is paired with the first piece of the next non-empty
/// line (itself when it is alone).
pub(crate) const LINE_PAIR_ENTRIES: [u8; 1 << 12] = {
    let mut table = [0u8; 1 << 12];
    let mut summary = 0;
    while summary < 1 << 12 {
        let mut non_empty = 0;
        let mut i = 0;
        while i < 4 {
            non_empty |= (summary >> (3 * i) & 1) << i;
            i += 1;
        }
        let mut i = 0;
        while i < 4 {
            if non_empty >> i & 1 != 0 {
                let j = NEXT_LINE[non_empty][i] as usize;
                let last_black = summary >> (3 * i + 2) & 1;
                let first_black = summary >> (3 * j + 1) & 1;
                table[summary] += (last_black != first_black) as u8;
            }
            i += 1;
        }
        summary += 1;
    }
    table
};

/// A circuit's track occupancy (bit `t` for track index `t`, lines of `N` points) with line
/// `i` moved to bits `16 i ..`, so one subtraction works on all four lines at once.
#[inline(always)]
pub(super) fn line_lanes<const N: usize>(track: u64) -> u64 {
    let line = (1u64 << N) - 1;
    (track & line)
        | (track >> N & line) << 16
        | (track >> (2 * N) & line) << 32
        | (track >> (3 * N) & line) << 48
}

/// The [`LINE_PAIR_ENTRIES`] summary of a circuit from its sides' [`line_lanes`]. Of two
/// disjoint bit sets the larger holds the highest bit, so a line's last piece is black exactly
/// when its black lane is at least its white lane (and the line is not empty); its first piece
/// is the lowest bit, `x & !(x - 1)`. With a spare top bit in each lane, no subtraction borrows
/// from the next lane.
#[inline(always)]
pub(super) fn line_summary(black: u64, white: u64) -> usize {
    const ONES: u64 = 0x0001_0001_0001_0001;
    const TOPS: u64 = 0x8000_8000_8000_8000;
    let occupied = black | white;
    let non_empty = ((occupied | TOPS) - ONES) & TOPS;
    let last_black = ((black | TOPS) - white) & non_empty;
    let lowest = occupied & !((occupied | TOPS) - ONES);
    let first_black = (((black & lowest) | TOPS) - ONES) & TOPS;
    // Lane i's three flags sit at bits 16i, 16i + 1, 16i + 2; the multiply moves them all to
    // bits 39 + 3i (each product term lands on its own bit, so nothing carries).
    let flags = non_empty >> 15 | first_black >> 14 | last_black >> 13;
    let gather: u64 = 1 | 1 << 13 | 1 << 26 | 1 << 39;
    (flags.wrapping_mul(gather) >> 39) as usize & 0xFFF
}

/// The track indices, within their lines, of circuit `c`'s crossing next to each arc: the
/// crossing is point `n-1-k` of line `i` and point `k` of line `i + 1`, where `k = c + 1`
/// (see [`crate::geometry`]; the same for all four arcs by symmetry).
#[inline(always)]
pub(super) const fn crossing_indices(n: usize, c: usize) -> (usize, usize) {
    (n - 2 - c, c + 1)
}

/// Where a line's last piece and the next non-empty line's first piece are one piece on a
/// crossing, so the pair the capture list makes there is a piece and itself: bit `i` when the
/// crossing next to arc `i` (between lines `i` and `i + 1`) is line `i`'s last piece and line
/// `i + 1`'s first (the short way, over one arc), bit `4 + i` when it is line `i + 1`'s last
/// piece and, with the two lines beyond empty, line `i`'s first (the long way round, over
/// three arcs).
#[inline(always)]
pub(super) fn lone_crossings<const N: usize>(c: usize, occupied: u64) -> u32 {
    let masks = &LONE_CROSSING_MASKS[N / 2 - 3][c];
    let mut lone = 0;
    for (k, &(window, crossing)) in masks.iter().enumerate() {
        lone |= u32::from(occupied & window == crossing) << k;
    }
    lone
}

/// `LONE_CROSSING_MASKS[n/2 - 3][c][k]`: for bit `k` of [`lone_crossings`] on circuit `c` of
/// an `n × n` board, the track bits that must hold exactly the crossing's bit, and that bit.
pub(super) const LONE_CROSSING_MASKS: [[[(u64, u64); 8]; MAX_CIRCUITS]; 4] = {
    let mut table = [[[(0, 0); 8]; MAX_CIRCUITS]; 4];
    let mut size = 0;
    while size < 4 {
        let n = 6 + 2 * size;
        let line = (1u64 << n) - 1;
        let mut c = 0;
        while c < n / 2 - 1 {
            let (end, start) = crossing_indices(n, c);
            let mut i = 0;
            while i < 4 {
                let (here, next) = (i * n, (i + 1) % 4 * n);
                let crossing = 1u64 << (here + end);
                let after_end = line & !((1u64 << end) - 1);
                let before_start = (1u64 << start) - 1;
                let short = after_end << here | before_start << next;
                let beyond = line << ((i + 2) % 4 * n) | line << ((i + 3) % 4 * n);
                let after_start = line & !((2u64 << start) - 1);
                let before_end = crossing - (1 << here);
                let long = after_start << next | beyond | before_end | crossing;
                table[size][c][i] = (short, crossing);
                table[size][c][4 + i] = (long, crossing);
                i += 1;
            }
            c += 1;
        }
        size += 1;
    }
    table
};
