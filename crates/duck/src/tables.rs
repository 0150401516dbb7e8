//! Precomputed reach of every kind of piece from every square as sets of squares (bit
//! `x * 9 + y` of a `u128`, see [`crate::Position::reach`]), and the same read backwards: from
//! where a piece reaches a square, for attack tests.
//!
//! A blocked piece's destinations are grouped by the point that blocks them: a horse's two
//! destinations past each orthogonal neighbour (its leg), an elephant's one past each diagonal
//! neighbour (its eye), a duck's two past each orthogonal neighbour, each needing one more point
//! empty. Read backwards, every blocked attacker of a square passes the square's diagonal
//! neighbour on its way in, and a duck also the point two diagonal steps away.

use std::sync::LazyLock;

use crate::board::{Square, SQUARES};

/// A square index that is never occupied: the board array has one extra, always empty, cell, so
/// a neighbour off the board reads as empty and the destinations past it are no squares at all.
pub(crate) const NO_SQUARE: u8 = SQUARES as u8;

/// The orthogonal directions `(dx, dy)`: rows up, rows down, columns up, columns down. In this
/// order the even ones go to higher square indices (a ray's nearest blocker is its lowest bit).
pub(crate) const ORTHOGONAL: [(i64, i64); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
/// The diagonal directions.
const DIAGONAL: [(i64, i64); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

pub(crate) struct Tables {
    /// Destinations of the pieces nothing blocks.
    pub captain: [u128; SQUARES],
    pub guard: [u128; SQUARES],
    pub soldier: [u128; SQUARES],
    /// `orthogonal[sq][d]`, `diagonal[sq][d]`: the neighbour one step along direction `d`;
    /// `far_diagonal` two steps; [`NO_SQUARE`] off the board.
    pub orthogonal: [[u8; 4]; SQUARES],
    pub diagonal: [[u8; 4]; SQUARES],
    pub far_diagonal: [[u8; 4]; SQUARES],
    /// `horse[sq][d]`: the destinations past leg `orthogonal[sq][d]`.
    pub horse: [[u128; 4]; SQUARES],
    /// `elephant[sq][d]`: the destination past eye `diagonal[sq][d]`.
    pub elephant: [[u128; 4]; SQUARES],
    /// `duck[sq][d]`: past leg `orthogonal[sq][d]`, two destinations, each with the second
    /// point it needs empty.
    pub duck: [[(u128, u8); 2]; 4 * SQUARES],
    /// `rays[sq][d]`: every square along [`ORTHOGONAL`] direction `d`, `sq` itself not.
    pub rays: [[u128; 4]; SQUARES],
    /// Backwards, through the diagonal neighbour `diagonal[sq][d]` of a square: where horses
    /// and an elephant reach it from, and where ducks do (those also need `far_diagonal` empty).
    pub horse_from: [[u128; 4]; SQUARES],
    pub elephant_from: [[u128; 4]; SQUARES],
    pub duck_from: [[u128; 4]; SQUARES],
}

/// The square `(dx, dy)` away from `sq`, if on the board.
fn offset(sq: usize, (dx, dy): (i64, i64)) -> Option<Square> {
    let sq = Square::from_index(sq).expect("a square");
    Square::new(sq.x() as i64 + dx, sq.y() as i64 + dy)
}

/// The set of the squares at these offsets from `sq` that are on the board.
fn set(sq: usize, offsets: &[(i64, i64)]) -> u128 {
    offsets
        .iter()
        .filter_map(|&d| offset(sq, d))
        .fold(0, |acc, s| acc | 1u128 << s.index())
}

fn index_or_none(square: Option<Square>) -> u8 {
    square.map_or(NO_SQUARE, |s| s.index() as u8)
}

fn build() -> Box<Tables> {
    let mut t = Box::new(Tables {
        captain: [0; SQUARES],
        guard: [0; SQUARES],
        soldier: [0; SQUARES],
        orthogonal: [[NO_SQUARE; 4]; SQUARES],
        diagonal: [[NO_SQUARE; 4]; SQUARES],
        far_diagonal: [[NO_SQUARE; 4]; SQUARES],
        horse: [[0; 4]; SQUARES],
        elephant: [[0; 4]; SQUARES],
        duck: [[(0, NO_SQUARE); 2]; 4 * SQUARES],
        rays: [[0; 4]; SQUARES],
        horse_from: [[0; 4]; SQUARES],
        elephant_from: [[0; 4]; SQUARES],
        duck_from: [[0; 4]; SQUARES],
    });
    for sq in 0..SQUARES {
        t.captain[sq] = set(sq, &ORTHOGONAL);
        t.guard[sq] = set(sq, &DIAGONAL);
        t.soldier[sq] = t.captain[sq] | t.guard[sq];
        for (d, &(dx, dy)) in ORTHOGONAL.iter().enumerate() {
            t.orthogonal[sq][d] = index_or_none(offset(sq, (dx, dy)));
            // Along a row (dx) the sideways step is in y, and the other way round.
            let (sx, sy) = (dy.abs(), dx.abs());
            t.horse[sq][d] = set(
                sq,
                &[(2 * dx + sx, 2 * dy + sy), (2 * dx - sx, 2 * dy - sy)],
            );
            for (k, side) in [1, -1].into_iter().enumerate() {
                let destination = (3 * dx + 2 * side * sx, 3 * dy + 2 * side * sy);
                let second = (2 * dx + side * sx, 2 * dy + side * sy);
                t.duck[4 * sq + d][k] =
                    (set(sq, &[destination]), index_or_none(offset(sq, second)));
            }
            t.rays[sq][d] = set(sq, &(1..10).map(|i| (i * dx, i * dy)).collect::<Vec<_>>());
        }
        for (d, &(ax, ay)) in DIAGONAL.iter().enumerate() {
            t.diagonal[sq][d] = index_or_none(offset(sq, (ax, ay)));
            t.far_diagonal[sq][d] = index_or_none(offset(sq, (2 * ax, 2 * ay)));
            t.elephant[sq][d] = set(sq, &[(2 * ax, 2 * ay)]);
            t.horse_from[sq][d] = set(sq, &[(2 * ax, ay), (ax, 2 * ay)]);
            t.elephant_from[sq][d] = t.elephant[sq][d];
            t.duck_from[sq][d] = set(sq, &[(3 * ax, 2 * ay), (2 * ax, 3 * ay)]);
        }
    }
    t
}

static TABLES: LazyLock<Box<Tables>> = LazyLock::new(build);

#[inline]
pub(crate) fn tables() -> &'static Tables {
    &TABLES
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(set: u128) -> u32 {
        set.count_ones()
    }

    #[test]
    fn counts_from_a_central_and_a_corner_square() {
        let t = tables();
        let centre = Square::new(4, 4).unwrap().index();
        let corner = Square::new(0, 0).unwrap().index();
        let horse = |s: usize| t.horse[s].iter().map(|&m| count(m)).sum::<u32>();
        let duck = |s: usize| {
            (0..4)
                .flat_map(|d| t.duck[4 * s + d])
                .map(|(m, _)| count(m))
                .sum::<u32>()
        };
        assert_eq!(horse(centre), 8);
        assert_eq!(duck(centre), 8);
        assert_eq!(count(t.soldier[centre]), 8);
        assert_eq!(horse(corner), 2);
        assert_eq!(duck(corner), 2);
        assert_eq!(t.elephant[corner].iter().map(|&m| count(m)).sum::<u32>(), 1);
        assert_eq!(count(t.captain[corner]), 2);
        let rays: u32 = t.rays[corner].iter().map(|&r| count(r)).sum();
        assert_eq!(rays, 9 + 8);
    }

    #[test]
    fn even_directions_go_up_the_square_indices() {
        let t = tables();
        for sq in 0..SQUARES {
            for (d, &nearest) in ORTHOGONAL.iter().enumerate() {
                let ray = t.rays[sq][d];
                if ray != 0 {
                    let expected = offset(sq, nearest).unwrap().index() as u32;
                    let found = if d % 2 == 0 {
                        ray.trailing_zeros()
                    } else {
                        127 - ray.leading_zeros()
                    };
                    assert_eq!(found, expected);
                }
            }
        }
    }
}
