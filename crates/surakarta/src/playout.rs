//! Whole random games on the standard 6×6 board in a compact form: the throughput measure of
//! the move generator (`arbiter bench surakarta`) and what a pure Monte-Carlo player lives on.
//!
//! [`Board`] keeps what a search needs at every node (a hash, piece lists, any size). A random
//! game needs none of it: here each side is two words, its pieces as rows of 8 bits (`8y + x`;
//! the two spare columns catch every step that would leave a row) and the eight lines of the
//! two circuits as lanes of 8 bits. Steps are counted by eight shifts and popcounts, captures by
//! one subtraction trick over all eight lines at once, and a move changes four words.
//!
//! The moves are drawn exactly as [`Board::choose_move`] draws them — the same count, the same
//! order of captures and steps, the same rule for a capture listed twice — so a playout here
//! plays the very game the move-by-move loop plays for the same random numbers (a test plays
//! both).

use arbiter_core::playout::below;
use arbiter_core::Side;
use rand::Rng;

use crate::board::{Board, Point, LINE_PAIR_ENTRIES, NEXT_LINE, TRACK_PLACES};
use crate::geometry::MAX_CIRCUITS;
use crate::rules::{EndReason, Position};

/// The 36 points, bit `8y + x`.
const BOARD: u64 = 0x3F3F_3F3F_3F3F;
/// The lowest and the highest bit of every 8-bit lane.
const ONES: u64 = 0x0101_0101_0101_0101;
const TOPS: u64 = 0x8080_8080_8080_8080;
/// Points per line.
const N: usize = 6;

/// The step directions in [`Board::choose_move`]'s order, as shifts of the bit rows
/// (`dx + 8 dy`): right, left, up-left, up, up-right, down-left, down, down-right.
const STEP_SHIFTS: [i32; 8] = [1, -1, 7, 8, 9, -9, -8, -7];

/// `LANE_BITS[8y + x]`: the lane bits of point `(x, y)` — line `l` of circuit `c` is lane
/// `4c + l`, its track index `6l + p` is bit `p` of the lane — two for a point on two lines,
/// none for a point on no circuit.
const LANE_BITS: [u64; 64] = lane_tables().0;

/// `LANE_SQUARES[c][8l + p]`: the point (`8y + x`) at place `p` of line `l` of circuit `c`
/// (track index `6l + p`), the other way round from [`LANE_BITS`].
const LANE_SQUARES: [[u8; 32]; 2] = lane_tables().1;

/// [`LANE_BITS`] and [`LANE_SQUARES`], from the board's table of track places.
const fn lane_tables() -> ([u64; 64], [[u8; 32]; 2]) {
    let places = &TRACK_PLACES[0];
    let (mut bits, mut squares) = ([0u64; 64], [[0u8; 32]; 2]);
    let mut point = 0;
    while point < N * N {
        let (x, y) = (point % N, point / N);
        let mut k = 0;
        while k < 2 {
            let (circuit, index) = places[y << 4 | x][k];
            if (circuit as usize) < MAX_CIRCUITS {
                let bit = 8 * (index as usize / N) + index as usize % N;
                bits[8 * y + x] |= 1 << (32 * circuit as usize + bit);
                squares[circuit as usize][bit] = (8 * y + x) as u8;
            }
            k += 1;
        }
        point += 1;
    }
    (bits, squares)
}

/// For a circuit's 12-bit summary ([`line_summaries`]): its [`LINE_PAIR_ENTRIES`] count in the
/// low four bits, and bit `4 + i` when lines `i` and `i + 1` hold pieces and the two lines
/// beyond are empty — the only circuits where the crossing next to arc `i` can meet itself the
/// long way round.
const PAIRS_AND_LONG_WAYS: [u8; 1 << 12] = {
    let mut table = [0u8; 1 << 12];
    let mut summary = 0;
    while summary < 1 << 12 {
        // Bit l of `lines` (and of its copy at l + 4) when line l holds a piece.
        let mut lines = 0;
        let mut l = 0;
        while l < 4 {
            lines |= ((summary >> (3 * l) & 1) * 0x11) << l;
            l += 1;
        }
        let mut long_ways = 0;
        let mut i = 0;
        while i < 4 {
            if lines >> i & 0xF == 0b0011 {
                long_ways |= 1 << i;
            }
            i += 1;
        }
        table[summary] = LINE_PAIR_ENTRIES[summary] | long_ways << 4;
        summary += 1;
    }
    table
};

/// Per lane, for the crossing next to the arc after it (circuit 1: track index 4 of the line
/// and 1 of the next; circuit 2: 3 and 2): the crossing's bit, the bits from it to the line's
/// end, the bits from the line's start to it, and the next line's bits before and after it.
const CROSSING: u64 = 0x0808_0808_1010_1010;
const FROM_CROSSING: u64 = 0x3838_3838_3030_3030;
const TO_CROSSING: u64 = 0x0F0F_0F0F_1F1F_1F1F;
const BEFORE_NEXT_CROSSING: u64 = 0x0303_0303_0101_0101;
const AFTER_NEXT_CROSSING: u64 = 0x3838_3838_3C3C_3C3C;

/// The lanes of each circuit (a 32-bit half) turned by one line: lane `i` gets lane `i + 1`.
#[inline(always)]
fn next_lines(lanes: u64) -> u64 {
    const KEEP: u64 = 0x00FF_FFFF_00FF_FFFF;
    (lanes >> 8 & KEEP) | (lanes << 24 & !KEEP)
}

/// The top bit of every lane of `x` that is zero.
#[inline(always)]
fn zero_lanes(x: u64) -> u64 {
    TOPS & !((x | TOPS) - ONES)
}

/// The [`LINE_PAIR_ENTRIES`] summaries of both circuits (see [`crate::board`]'s
/// `line_summary`, here on 8-bit lanes): three flags a line — non-empty, first piece black,
/// last piece black — gathered into 12 bits a circuit.
#[inline(always)]
fn line_summaries(black: u64, white: u64) -> [usize; 2] {
    let occupied = black | white;
    let non_empty = ((occupied | TOPS) - ONES) & TOPS;
    let last_black = ((black | TOPS) - white) & non_empty;
    let lowest = occupied & !((occupied | TOPS) - ONES);
    let first_black = (((black & lowest) | TOPS) - ONES) & TOPS;
    let flags = non_empty >> 7 | first_black >> 6 | last_black >> 5;
    let pairs = (flags | flags >> 5) & 0x003F_003F_003F_003F;
    let circuits = pairs | pairs >> 10;
    [circuits as usize & 0xFFF, (circuits >> 32) as usize & 0xFFF]
}

/// The pieces of both sides, bit rows and circuit lanes.
#[derive(Clone, Copy)]
struct Compact {
    rows: [u64; 2],
    lanes: [u64; 2],
}

impl Compact {
    fn from_board(board: &Board) -> Compact {
        let mut compact = Compact {
            rows: [0; 2],
            lanes: [0; 2],
        };
        for side in Side::BOTH {
            for y in 0..N {
                let mut row = u64::from(board.row_bits(side, y as u8));
                while row != 0 {
                    compact.toggle(side.index(), 8 * y as u32 + row.trailing_zeros());
                    row &= row - 1;
                }
            }
        }
        compact
    }

    fn to_board(self) -> Board {
        let mut board = Board::empty(N as u8).expect("6 is a board size");
        for side in Side::BOTH {
            let mut rows = self.rows[side.index()];
            while rows != 0 {
                board.place(side, point(rows.trailing_zeros()));
                rows &= rows - 1;
            }
        }
        board
    }

    #[inline(always)]
    fn toggle(&mut self, side: usize, square: u32) {
        self.rows[side] ^= 1 << square;
        self.lanes[side] ^= LANE_BITS[square as usize & 63];
    }

    /// `side` moves `from → to`, taking the enemy piece there when `capture`.
    #[inline(always)]
    fn play(&mut self, side: usize, from: u32, to: u32, capture: bool) {
        if capture {
            self.toggle(1 - side, to);
        }
        self.toggle(side, from);
        self.toggle(side, to);
    }

    /// Where `side`'s steps land, one set per direction of [`STEP_SHIFTS`].
    #[inline(always)]
    fn step_sets(&self, side: usize) -> [u64; 8] {
        let own = self.rows[side];
        let empty = BOARD & !(self.rows[0] | self.rows[1]);
        STEP_SHIFTS.map(|shift| {
            let landing = if shift > 0 {
                own << shift
            } else {
                own >> -shift
            };
            landing & empty
        })
    }

    /// A move of `side` as [`Board::choose_move`] draws it, as `(from, to)` bit indices.
    #[inline(always)]
    fn choose(&self, side: usize, mut draw: impl FnMut(u32) -> u32) -> Option<(u32, u32)> {
        let steps = self.step_sets(side);
        let step_count: u32 = steps.iter().map(|set| set.count_ones()).sum();
        let listed = self.listed_capture_count(side);
        let total = listed + step_count;
        if total == 0 {
            return None;
        }
        loop {
            let index = draw(total);
            if index >= listed {
                return Some(nth_step(&steps, index - listed));
            }
            if let Some(capture) = self.drawn_capture(side, index) {
                return Some(capture);
            }
        }
    }

    /// The entries of `side`'s capture list (a capture found by two routes twice): the pairs
    /// of the circuits' lines whose owners differ, by table, and the pieces of `side` that pass
    /// over themselves on a crossing, the short way by lane arithmetic
    /// ([`Compact::entries_past_short_crossings`]), the long way apart
    /// ([`Compact::entries_past_long_crossings`]).
    #[inline(always)]
    fn listed_capture_count(&self, side: usize) -> u32 {
        let [black, white] = self.lanes;
        let [first, second] = line_summaries(black, white);
        let summaries = [PAIRS_AND_LONG_WAYS[first], PAIRS_AND_LONG_WAYS[second]];
        let pairs = u32::from(summaries[0] & 15) + u32::from(summaries[1] & 15);
        let short = self.entries_past_short_crossings(side);
        let long_ways = u32::from(summaries[0] >> 4) | u32::from(summaries[1] >> 4) << 4;
        if long_ways == 0 {
            return pairs + short;
        }
        pairs + short + self.entries_past_long_crossings(side, long_ways)
    }

    /// The capture-list entries of `side`'s pieces alone on a crossing as the last piece of its
    /// line and the first of the next: such a piece meets, beyond itself, the first piece after
    /// it on the next line and the last before it on its own, each an entry when an enemy.
    /// Every lane at once, no branch (a quarter of all plies have such a piece).
    #[inline(always)]
    fn entries_past_short_crossings(&self, side: usize) -> u32 {
        const BELOW_CROSSING: u64 = CROSSING - ONES;
        let (own, enemy) = (self.lanes[side], self.lanes[1 - side]);
        let occupied = own | enemy;
        let alone = zero_lanes(
            ((occupied & FROM_CROSSING) ^ CROSSING) | (next_lines(occupied) & BEFORE_NEXT_CROSSING),
        );
        let ours = zero_lanes((own & CROSSING) ^ CROSSING);
        // Of two disjoint sets of a lane, the larger holds the higher bit.
        let (own_before, enemy_before) = (own & BELOW_CROSSING, enemy & BELOW_CROSSING);
        let before_is_enemy = ((enemy_before | TOPS) - own_before - ONES) & TOPS;
        let [own_after, enemy_after] = [own, enemy].map(|l| next_lines(l) & AFTER_NEXT_CROSSING);
        let after = own_after | enemy_after;
        let first_after = after & !((after | TOPS) - ONES);
        let after_is_enemy = TOPS & !zero_lanes(enemy_after & first_after);
        let counted = alone & ours;
        (counted & before_is_enemy).count_ones() + (counted & after_is_enemy).count_ones()
    }

    /// The capture-list entries of `side`'s pieces alone on a crossing as the last piece of the
    /// next line and, the two lines beyond empty (`long_ways`, a bit a lane), the first of its
    /// own: the long way round to itself.
    #[inline(never)]
    fn entries_past_long_crossings(&self, side: usize, mut long_ways: u32) -> u32 {
        let occupied = self.lanes[0] | self.lanes[1];
        let mut count = 0;
        while long_ways != 0 {
            let lane = long_ways.trailing_zeros();
            long_ways &= long_ways - 1;
            let crossing = lane_of(CROSSING, lane);
            let alone = lane_of(occupied, lane) & lane_of(TO_CROSSING, lane) == crossing
                && lane_of(occupied, next_lane(lane)) & lane_of(AFTER_NEXT_CROSSING, lane) == 0;
            if alone && lane_of(self.lanes[side], lane) & crossing != 0 {
                count += self.entries_past(side, lane, true);
            }
        }
        count
    }

    /// The entries of `side`'s piece alone on the crossing after lane `lane` (short or the
    /// `long` way): the piece it meets beyond itself on the line it set off along, and the piece
    /// before itself the other way, each when it is an enemy.
    #[inline(always)]
    fn entries_past(&self, side: usize, lane: u32, long: bool) -> u32 {
        let (own, enemy) = (self.lanes[side], self.lanes[1 - side]);
        let next = next_lane(lane);
        let (here, there) = (lane_of(own, lane), lane_of(enemy, lane));
        let (own_next, enemy_next) = (lane_of(own, next), lane_of(enemy, next));
        let crossing = lane_of(CROSSING, lane);
        let next_crossing = next_crossing_bit(lane);
        let ([own_on, enemy_on], [own_back, enemy_back]) = if long {
            (
                [here, there].map(|l| l & !(2 * crossing - 1)),
                [own_next, enemy_next].map(|l| l & (next_crossing - 1)),
            )
        } else {
            (
                [own_next, enemy_next].map(|l| l & !(2 * next_crossing - 1)),
                [here, there].map(|l| l & (crossing - 1)),
            )
        };
        let onwards_enemy = enemy_on & (own_on | enemy_on).wrapping_neg() != 0;
        u32::from(onwards_enemy) + u32::from(enemy_back > own_back)
    }

    /// The capture drawn by entry `index` of `side`'s capture list, `None` when an earlier
    /// entry lists it too ([`Board::choose_move`]'s rule); the list is walked no further.
    #[inline(never)]
    fn drawn_capture(&self, side: usize, index: u32) -> Option<(u32, u32)> {
        let mut listed = [(0, 0); 2 * 8];
        let mut len = 0;
        self.for_each_listed_capture(side, |from, to| {
            listed[len % listed.len()] = (from, to);
            len += 1;
            len <= index as usize
        });
        let index = index as usize % listed.len();
        let chosen = listed[index];
        (!listed[..index].contains(&chosen)).then_some(chosen)
    }

    /// Calls `visit(from, to)` for each entry of `side`'s capture list in the order of
    /// [`Board`]'s list, until it returns `false`: circuit by circuit, each non-empty line's last
    /// piece paired with the next non-empty line's first, a piece alone on a crossing meeting
    /// those beyond itself. Pieces are named by their lane bits (`8l + p` within a circuit).
    #[inline(always)]
    fn for_each_listed_capture(&self, side: usize, mut visit: impl FnMut(u32, u32) -> bool) {
        for (c, squares) in LANE_SQUARES.iter().enumerate() {
            let [black, white] = self.lanes.map(|l| (l >> (32 * c)) as u32);
            if black == 0 || white == 0 {
                continue;
            }
            let occupied = black | white;
            let ours = [black, white][side];
            let line = |l: usize| occupied & 0x3F << (8 * l);
            let non_empty = (0..4).fold(0, |acc, l| acc | usize::from(line(l) != 0) << l);
            let mine = |bit: u32| ours >> bit & 1 != 0;
            let square = |bit: u32| u32::from(squares[bit as usize & 31]);
            // The crossing next to arc i: place `end` of line i and place `start` of line i + 1.
            let (end, start) = (N as u32 - 2 - c as u32, c as u32 + 1);
            for i in (0..4).filter(|&i| non_empty >> i & 1 != 0) {
                let j = NEXT_LINE[non_empty][i] as usize;
                let a = 31 - line(i).leading_zeros();
                let b = line(j).trailing_zeros();
                let (i8, j8) = (8 * i as u32, 8 * j as u32);
                let short = j == (i + 1) % 4 && (a, b) == (i8 + end, j8 + start);
                let long = i == (j + 1) % 4 && (a, b) == (i8 + start, j8 + end);
                if !short && !long {
                    if mine(a) != mine(b) {
                        let (from, to) = if mine(a) { (a, b) } else { (b, a) };
                        if !visit(square(from), square(to)) {
                            return;
                        }
                    }
                    continue;
                }
                if !mine(a) {
                    continue;
                }
                let (onwards, backwards) = (line(j) & !(1 << b), line(i) & !(1 << a));
                let met = [
                    (onwards != 0).then(|| onwards.trailing_zeros()),
                    (backwards != 0).then(|| 31 - backwards.leading_zeros()),
                ];
                for v in met.into_iter().flatten().filter(|&v| !mine(v)) {
                    if !visit(square(a), square(v)) {
                        return;
                    }
                }
            }
        }
    }
}

/// Lane `lane` of `lanes`, as the 6 bits of its line.
#[inline(always)]
fn lane_of(lanes: u64, lane: u32) -> u64 {
    lanes >> (8 * lane) & 0x3F
}

/// The lane of the line after lane `lane` on its circuit.
#[inline(always)]
fn next_lane(lane: u32) -> u32 {
    lane & 4 | (lane + 1) & 3
}

/// The crossing's bit on the line after lane `lane` (track index `k` there, circuit `k`).
#[inline(always)]
fn next_crossing_bit(lane: u32) -> u64 {
    1 << (lane / 4 + 1)
}

fn point(square: u32) -> Point {
    Point::new((square % 8) as u8, (square / 8) as u8)
}

/// The step numbered `index` among the landing `sets`, counted as [`Board::choose_move`]
/// counts them: direction by direction, then point by point. Without branches: the direction is
/// where the running counts (a byte each) pass `index`, the point the [`select`]ed bit.
#[inline(always)]
fn nth_step(sets: &[u64; 8], index: u32) -> (u32, u32) {
    let counts = sets.iter().enumerate().fold(0u64, |acc, (d, set)| {
        acc | u64::from(set.count_ones()) << (8 * d)
    });
    // A side has at most 12 pieces and 96 steps: every running count fits below a byte's top bit.
    let running = counts.wrapping_mul(ONES);
    let direction = byte_rank(running, index);
    let before = (running << 8) >> (8 * direction) & 0xFF;
    let to = select(sets[direction as usize % 8], index - before as u32);
    (
        to.wrapping_sub(STEP_SHIFTS[direction as usize % 8] as u32),
        to,
    )
}

/// How many of the eight bytes of `running` (each below 128) are at most `value` (below 128).
#[inline(always)]
fn byte_rank(running: u64, value: u32) -> u64 {
    u64::from(((((u64::from(value) * ONES) | TOPS) - running) & TOPS).count_ones())
}

/// The index of the set bit numbered `rank` (from the lowest) of `bits`, which has more: the
/// byte found from running bit counts, the bit within it from [`SELECT_IN_BYTE`].
#[inline(always)]
fn select(bits: u64, rank: u32) -> u32 {
    let pairs = bits - (bits >> 1 & 0x5555_5555_5555_5555);
    let nibbles = (pairs & 0x3333_3333_3333_3333) + (pairs >> 2 & 0x3333_3333_3333_3333);
    let bytes = (nibbles + (nibbles >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    let running = bytes.wrapping_mul(ONES);
    let byte = byte_rank(running, rank);
    let before = (running << 8) >> (8 * byte) & 0xFF;
    let within = (bits >> (8 * byte) & 0xFF) as usize;
    8 * byte as u32 + u32::from(SELECT_IN_BYTE[within][(rank - before as u32) as usize % 8])
}

/// `SELECT_IN_BYTE[b][r]`: the index of the set bit numbered `r` of the byte `b`.
const SELECT_IN_BYTE: [[u8; 8]; 256] = {
    let mut table = [[0u8; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let (mut bit, mut rank) = (0, 0);
        while bit < 8 {
            if byte >> bit & 1 != 0 {
                table[byte][rank] = bit as u8;
                rank += 1;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

/// [`arbiter_core::Game::random_playout`] on a 6×6 game that is not over: the same game the
/// move-by-move loop plays, the same end, counters and side to move.
pub(crate) fn random_playout_6x6<R: Rng>(state: &mut Position, rng: &mut R, max_plies: u64) -> u64 {
    debug_assert!(state.size() as usize == N && !state.is_over());
    let mut board = Compact::from_board(&state.board);
    let mut side = state.current_player.index();
    let mut round = state.num_round;
    let mut last_capture = state.last_captured_round;
    let limit = state.max_no_capture_round;
    let mut plies = 0;
    let mut end = (EndReason::None, None);
    while plies < max_plies {
        let Some((from, to)) = board.choose(side, |count| below(rng, count)) else {
            break;
        };
        let enemy = 1 - side;
        let capture = board.rows[enemy] >> to & 1 != 0;
        // Judged before the move, as [`Position::play_legal`] does.
        if capture && board.rows[enemy].count_ones() == 1 {
            end = (EndReason::Checkmate, Some(Side::from_index(side)));
        } else if !capture && round.saturating_sub(last_capture) >= limit {
            let (mine, theirs) = (
                board.rows[side].count_ones(),
                board.rows[enemy].count_ones(),
            );
            let winner = match mine.cmp(&theirs) {
                std::cmp::Ordering::Greater => Some(side),
                std::cmp::Ordering::Less => Some(enemy),
                std::cmp::Ordering::Equal => None,
            };
            end = (EndReason::Stalemate, winner.map(Side::from_index));
        }
        board.play(side, from, to, capture);
        plies += 1;
        if capture {
            last_capture = round;
        }
        if end.0 != EndReason::None {
            break;
        }
        side = enemy;
        round += 1;
    }
    state.board = board.to_board();
    state.current_player = Side::from_index(side);
    state.num_round = round;
    state.last_captured_round = last_capture;
    (state.end_reason, state.winner) = end;
    plies
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn select_finds_each_set_bit_in_order() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
        for _ in 0..2000 {
            let bits = rng.gen::<u64>() & rng.gen::<u64>();
            let ones: Vec<u32> = (0..64).filter(|&b| bits >> b & 1 != 0).collect();
            for (rank, &bit) in ones.iter().enumerate() {
                assert_eq!(select(bits, rank as u32), bit, "{bits:#x} rank {rank}");
            }
        }
    }
}
