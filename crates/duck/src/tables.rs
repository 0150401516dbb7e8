//! Precomputed destinations, blocking points and rays for every square.

use std::sync::LazyLock;

use crate::board::{PieceKind, Square, SQUARES};

/// A square index that is never occupied: the board array has one extra, always empty, cell, so
/// pieces without blocking points can use the same "all blocks empty" test as the others.
pub(crate) const NO_SQUARE: u8 = SQUARES as u8;

/// Up to eight destinations of a leaping piece, each with the (up to two) points that block it.
#[derive(Clone, Copy, Default)]
pub(crate) struct Jumps {
    pub len: u8,
    pub to: [u8; 8],
    pub block: [[u8; 2]; 8],
}

impl Jumps {
    fn push(&mut self, to: u8, block: [u8; 2]) {
        let i = self.len as usize;
        self.to[i] = to;
        self.block[i] = block;
        self.len += 1;
    }

    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = (u8, [u8; 2])> + '_ {
        (0..self.len as usize).map(|i| (self.to[i], self.block[i]))
    }
}

/// The points in one direction from a square, nearest first.
#[derive(Clone, Copy, Default)]
pub(crate) struct Ray {
    pub len: u8,
    pub squares: [u8; 9],
}

impl Ray {
    #[inline]
    pub fn squares(&self) -> &[u8] {
        &self.squares[..self.len as usize]
    }
}

pub(crate) struct Tables {
    /// `jumps[kind][from]`: destinations of every kind but the car.
    pub jumps: [[Jumps; SQUARES]; 7],
    /// `attackers[kind][to]`: the squares from which such a piece reaches `to`, with blocks.
    pub attackers: [[Jumps; SQUARES]; 7],
    pub rays: [[Ray; 4]; SQUARES],
}

/// An offset `(dx, dy)` from the moving piece.
type Offset = (i64, i64);

/// Offsets of a move and of its blocking points, as the rules table states them.
fn geometry(kind: PieceKind) -> Vec<(Offset, Vec<Offset>)> {
    let signs = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
    let mut out = Vec::new();
    match kind {
        PieceKind::Captain => {
            for d in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                out.push((d, vec![]));
            }
        }
        PieceKind::Guard => {
            for (sx, sy) in signs {
                out.push(((sx, sy), vec![]));
            }
        }
        PieceKind::Elephant => {
            for (sx, sy) in signs {
                out.push(((2 * sx, 2 * sy), vec![(sx, sy)]));
            }
        }
        PieceKind::Horse => {
            for (sx, sy) in signs {
                out.push(((2 * sx, sy), vec![(sx, 0)]));
                out.push(((sx, 2 * sy), vec![(0, sy)]));
            }
        }
        PieceKind::Duck => {
            for (sx, sy) in signs {
                out.push(((3 * sx, 2 * sy), vec![(sx, 0), (2 * sx, sy)]));
                out.push(((2 * sx, 3 * sy), vec![(0, sy), (sx, 2 * sy)]));
            }
        }
        PieceKind::Soldier => {
            for dx in -1..=1 {
                for dy in -1..=1 {
                    if (dx, dy) != (0, 0) {
                        out.push(((dx, dy), vec![]));
                    }
                }
            }
        }
        PieceKind::Car => {}
    }
    out
}

fn build() -> Box<Tables> {
    let mut t = Box::new(Tables {
        jumps: [[Jumps::default(); SQUARES]; 7],
        attackers: [[Jumps::default(); SQUARES]; 7],
        rays: [[Ray::default(); 4]; SQUARES],
    });
    let at = |sq: Square, dx: i64, dy: i64| Square::new(sq.x() as i64 + dx, sq.y() as i64 + dy);
    for kind in PieceKind::ALL {
        let moves = geometry(kind);
        for from in Square::all() {
            for ((dx, dy), blocks) in &moves {
                let Some(to) = at(from, *dx, *dy) else {
                    continue;
                };
                let mut block = [NO_SQUARE; 2];
                for (slot, (bx, by)) in block.iter_mut().zip(blocks) {
                    *slot = at(from, *bx, *by)
                        .expect("blocking points lie between")
                        .index() as u8;
                }
                let (f, d) = (from.index() as u8, to.index() as u8);
                t.jumps[kind as usize][from.index()].push(d, block);
                t.attackers[kind as usize][to.index()].push(f, block);
            }
        }
    }
    for from in Square::all() {
        for (dir, (dx, dy)) in [(1, 0), (-1, 0), (0, 1), (0, -1)].into_iter().enumerate() {
            let ray = &mut t.rays[from.index()][dir];
            let mut step = 1;
            while let Some(sq) = at(from, dx * step, dy * step) {
                ray.squares[ray.len as usize] = sq.index() as u8;
                ray.len += 1;
                step += 1;
            }
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

    #[test]
    fn counts_from_a_central_and_a_corner_square() {
        let t = tables();
        let centre = Square::new(4, 4).unwrap().index();
        let corner = Square::new(0, 0).unwrap().index();
        let len = |k: PieceKind, s: usize| t.jumps[k as usize][s].len;
        assert_eq!(len(PieceKind::Horse, centre), 8);
        assert_eq!(len(PieceKind::Duck, centre), 8);
        assert_eq!(len(PieceKind::Soldier, centre), 8);
        assert_eq!(len(PieceKind::Horse, corner), 2);
        assert_eq!(len(PieceKind::Duck, corner), 2);
        assert_eq!(len(PieceKind::Elephant, corner), 1);
        assert_eq!(len(PieceKind::Captain, corner), 2);
        let rays: usize = t.rays[corner].iter().map(|r| r.len as usize).sum();
        assert_eq!(rays, 9 + 8);
    }
}
