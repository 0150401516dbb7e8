//! Step generation: the tables and bit tricks that find every piece's empty neighbours.

use super::{Move, Point, MAX_SIZE};

/// The eight neighbours in the bit order of [`STEP_TABLE`]'s index: the row below, the two
/// sides, the row above.
pub(super) const NEIGHBOURS: [(i8, i8); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// For each set of empty neighbours (bit `i` for `NEIGHBOURS[i]`), how many there are and the
/// offsets to add to a packed move `from → from` (see [`Move`]) to reach them, those
/// first. Adding wraps, which is exact whenever the target is on the board.
#[derive(Clone, Copy)]
pub(super) struct StepEntry {
    pub(super) count: u8,
    pub(super) offsets: [u32; 8],
}

pub(super) const STEP_TABLE: [StepEntry; 256] = {
    let mut table = [StepEntry {
        count: 0,
        offsets: [0; 8],
    }; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut i = 0;
        while i < 8 {
            if mask >> i & 1 != 0 {
                let entry = &mut table[mask];
                let (dx, dy) = NEIGHBOURS[i];
                entry.offsets[entry.count as usize] =
                    (((dx as i32) << 16) + ((dy as i32) << 24)) as u32;
                entry.count += 1;
            }
            i += 1;
        }
        mask += 1;
    }
    table
};

/// Words of [`Board::packed`] rows: four 16-bit rows each, `MAX_SIZE` rows.
pub(super) const PACKED_WORDS: usize = MAX_SIZE / 4;

/// `BOARD_WORDS[n / 2 - 3]`: the points of an `n × n` board, packed like [`Board::packed`].
pub(super) const BOARD_WORDS: [[u64; PACKED_WORDS]; 4] = {
    let mut table = [[0; PACKED_WORDS]; 4];
    let mut size = 0;
    while size < 4 {
        let n = 6 + 2 * size;
        let mut y = 0;
        while y < n {
            table[size][y / 4] |= ((1u64 << n) - 1) << (16 * (y % 4));
            y += 1;
        }
        size += 1;
    }
    table
};

/// The eight step directions `(dx, dy)` in the order of [`step_sets`].
pub(super) const STEP_DIRECTIONS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (-1, -1),
    (0, -1),
    (1, -1),
];

/// Where the steps of the `own` pieces land in word `k` of the `empty` points (both packed like
/// [`Board::packed`]), one set per direction of [`STEP_DIRECTIONS`]: the pieces shifted one
/// point that way. Shifts across a row's end land on bits no board point uses.
#[inline(always)]
pub(super) fn step_sets(
    own: &[u64; PACKED_WORDS],
    empty: &[u64; PACKED_WORDS],
    k: usize,
) -> [u64; 8] {
    let (below, above) = neighbour_words(own, k);
    let up = own[k] << 16 | below >> 48;
    let down = own[k] >> 16 | above << 48;
    [
        own[k] << 1,
        own[k] >> 1,
        up >> 1,
        up,
        up << 1,
        down >> 1,
        down,
        down << 1,
    ]
    .map(|set| set & empty[k])
}

/// The words before and after word `k` of a packed board, empty beyond its ends.
#[inline(always)]
pub(super) fn neighbour_words(words: &[u64; PACKED_WORDS], k: usize) -> (u64, u64) {
    let below = if k > 0 { words[k - 1] } else { 0 };
    let above = if k + 1 < PACKED_WORDS {
        words[k + 1]
    } else {
        0
    };
    (below, above)
}

/// The number of steps of the `own` pieces onto `empty` points on an `n × n` board.
#[inline(always)]
pub(super) fn count_steps_packed(
    own: &[u64; PACKED_WORDS],
    empty: &[u64; PACKED_WORDS],
    n: u8,
) -> u32 {
    (0..(n as usize).div_ceil(4))
        .map(|k| {
            step_sets(own, empty, k)
                .iter()
                .map(|set| set.count_ones())
                .sum::<u32>()
        })
        .sum()
}

/// The step with number `index` (below [`count_steps_packed`]), counting the landing points
/// direction by direction, and within a direction point by point (row by row).
#[inline(always)]
pub(super) fn nth_step_packed(
    own: &[u64; PACKED_WORDS],
    empty: &[u64; PACKED_WORDS],
    n: u8,
    index: u32,
) -> Option<Move> {
    let words = (n as usize).div_ceil(4);
    let sets: [[u64; 8]; PACKED_WORDS] = std::array::from_fn(|k| {
        if k < words {
            step_sets(own, empty, k)
        } else {
            [0; 8]
        }
    });
    let mut rest = index;
    for (d, &(dx, dy)) in STEP_DIRECTIONS.iter().enumerate() {
        for (k, word_sets) in sets.iter().enumerate().take(words) {
            let mut set = word_sets[d];
            let count = set.count_ones();
            if rest >= count {
                rest -= count;
                continue;
            }
            for _ in 0..rest {
                set &= set - 1;
            }
            // A packed bit's index counted over all words is the point's code, `16 y + x`.
            let to = 64 * k as i32 + set.trailing_zeros() as i32;
            let from = to - dx - 16 * dy;
            let point = |code: i32| Point::new((code & 15) as u8, (code >> 4) as u8);
            return Some(Move::new(point(from), point(to)));
        }
    }
    None
}

/// The steps of the piece with code `piece`: its entry in [`STEP_TABLE`] and the packed move
/// `piece → piece` its offsets are added to. `padded` is [`Board::padded_empty_rows`].
#[inline(always)]
pub(super) fn piece_steps(padded: &[u16; 16 + 2], piece: u8) -> (&'static StepEntry, u32) {
    let (x, y) = ((piece & 15) as usize, (piece >> 4) as usize);
    let below = (padded[y] >> x) & 7;
    let middle = (padded[y + 1] >> x) & 7;
    let above = (padded[y + 2] >> x) & 7;
    let mask = (below | (middle & 1) << 3 | (middle >> 2) << 4 | above << 5) as u8;
    let from = x as u32 | (y as u32) << 8;
    (&STEP_TABLE[mask as usize], from | from << 16)
}
