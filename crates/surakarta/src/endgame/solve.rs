//! The retrograde solver: the values of a material and its colour-swapped twin, layer by layer
//! over the quiet moves left.
//!
//! With `r` quiet moves left the side to move may capture (the game goes on in a smaller
//! material with 39 quiet moves left, or ends in checkmate when the last enemy piece falls) or
//! step (the other side then has `r - 1` left; with none left, the step ends the game as a
//! stalemate won by the side with more pieces). So layer `r` needs only layer `r - 1` of the
//! twin table and the last layer of the smaller ones: forty passes give every value exactly.
//! Fewer are needed: once both twins' layers repeat the ones before, so do all later layers
//! (layer `r + 1` is the same function of layer `r` as `r` was of `r - 1`); 3 against 3 settles
//! after 18, 4 against 3 after 15.

use arbiter_core::{MoveList, Side};

use super::index::{binomial, spread_among, unrank, POINTS};
use super::table::{Table, Wdl};
use super::{classes, Tables, LAYERS};
use crate::board::{Board, Point};

/// The eight neighbours of each point (fewer on the edges).
fn neighbours() -> Vec<Vec<u8>> {
    (0..POINTS as i32)
        .map(|p| {
            let (x, y) = (p % 6, p / 6);
            let mut out = Vec::new();
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let (nx, ny) = (x + dx, y + dy);
                    if (dx, dy) != (0, 0) && (0..6).contains(&nx) && (0..6).contains(&ny) {
                        out.push((ny * 6 + nx) as u8);
                    }
                }
            }
            out
        })
        .collect()
}

fn point(p: u8) -> Point {
    Point::new(p % 6, p / 6)
}

fn code(p: Point) -> u8 {
    p.y * 6 + p.x
}

/// Decodes a table's positions: the mover's points and the opponent's.
struct Decoder {
    mover: usize,
    other: usize,
    per_class: usize,
    squeezed: Vec<[u8; 4]>,
}

impl Decoder {
    fn new(mover: usize, other: usize) -> Decoder {
        let per_class = binomial(POINTS - mover, other);
        let squeezed = (0..per_class)
            .map(|r| {
                let mut s = [0u8; 4];
                unrank(r, other, &mut s);
                s
            })
            .collect();
        Decoder {
            mover,
            other,
            per_class,
            squeezed,
        }
    }

    /// The points of position `index`: `(ours, theirs)`.
    fn decode(&self, index: usize) -> ([u8; 4], [u8; 4]) {
        let rep = classes(self.mover).rep(index / self.per_class);
        let mut ours = [0u8; 4];
        ours[..self.mover].copy_from_slice(rep);
        let mut theirs = [0u8; 4];
        spread_among(
            rep,
            &self.squeezed[index % self.per_class][..self.other],
            &mut theirs,
        );
        (ours, theirs)
    }
}

/// What a position's captures give it, whatever the quiet moves left: the best value
/// (`None` without a capture), and whether it has a step at all.
fn capture_values(tables: &Tables, mover: usize, other: usize) -> (Vec<Option<Wdl>>, Vec<bool>) {
    let decoder = Decoder::new(mover, other);
    par_map(Table::positions(mover, other), |index| {
        let (ours, theirs) = decoder.decode(index);
        let (ours, theirs) = (&ours[..mover], &theirs[..other]);
        let mut board = Board::empty(6).expect("6 is a board size");
        ours.iter()
            .for_each(|&p| board.place(Side::First, point(p)));
        theirs
            .iter()
            .for_each(|&p| board.place(Side::Second, point(p)));
        let mut list = MoveList::new();
        board.captures(Side::First, &mut list);
        let value = list
            .iter()
            .map(|mv| capture_value(tables, ours, theirs, code(mv.from()), code(mv.to())))
            .max();
        (value, board.step_count(Side::First) > 0)
    })
    .into_iter()
    .unzip()
}

/// `f` of every index below `total`, on as many threads as the machine has (4 against 3 is
/// 73 million positions a layer).
fn par_map<T: Send>(total: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = total.div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..total)
            .step_by(chunk)
            .map(|start| {
                let f = &f;
                scope.spawn(move || (start..(start + chunk).min(total)).map(f).collect())
            })
            .collect();
        let parts: Vec<Vec<T>> = workers
            .into_iter()
            .map(|w| w.join().expect("a table worker panicked"))
            .collect();
        parts.into_iter().flatten().collect()
    })
}

/// The value of capturing `to` from `from`: checkmate when it was the last enemy piece, else
/// the smaller table's value for the opponent with a fresh count.
fn capture_value(tables: &Tables, ours: &[u8], theirs: &[u8], from: u8, to: u8) -> Wdl {
    if theirs.len() == 1 {
        return Wdl::Win;
    }
    let mut next_mover = [0u8; 4];
    let mut k = 0;
    for &p in theirs.iter().filter(|&&p| p != to) {
        next_mover[k] = p;
        k += 1;
    }
    let mut next_other = [0u8; 4];
    for (i, &p) in ours.iter().enumerate() {
        next_other[i] = if p == from { to } else { p };
    }
    let table = tables
        .table(k, ours.len())
        .expect("smaller tables are solved first");
    let index = Table::locate(&next_mover[..k], &next_other[..ours.len()]);
    table.value(index, LAYERS - 1).flip()
}

/// The solving state of one table: what captures give, the previous layer, every sequence.
struct Work {
    mover: usize,
    other: usize,
    decoder: Decoder,
    captures: Vec<Option<Wdl>>,
    steps: Vec<bool>,
    previous: Vec<u8>,
    sequences: Vec<u128>,
}

impl Work {
    fn new(tables: &Tables, mover: usize, other: usize) -> Work {
        let (captures, steps) = capture_values(tables, mover, other);
        let total = captures.len();
        Work {
            mover,
            other,
            decoder: Decoder::new(mover, other),
            captures,
            steps,
            previous: vec![0; total],
            sequences: vec![0; total],
        }
    }

    /// Layer 0: a step ends the game as a stalemate, decided by the piece counts.
    fn first_layer(&self) -> Vec<u8> {
        let stalemate = match self.mover.cmp(&self.other) {
            std::cmp::Ordering::Greater => Wdl::Win,
            std::cmp::Ordering::Equal => Wdl::Draw,
            std::cmp::Ordering::Less => Wdl::Loss,
        };
        par_map(self.captures.len(), |i| {
            let step = self.steps[i].then_some(stalemate);
            self.captures[i].max(step).unwrap_or(Wdl::Loss).code()
        })
    }

    /// Layer `r > 0` from the twin's layer `r - 1` (`twin_previous`).
    fn next_layer(&self, twin_previous: &[u8], steps_of: &[Vec<u8>]) -> Vec<u8> {
        par_map(self.captures.len(), |i| {
            self.position_value(i, twin_previous, steps_of).code()
        })
    }

    fn position_value(&self, index: usize, twin_previous: &[u8], steps_of: &[Vec<u8>]) -> Wdl {
        let mut best = self.captures[index];
        if best == Some(Wdl::Win) || !self.steps[index] {
            return best.unwrap_or(Wdl::Loss);
        }
        let (ours, theirs) = self.decoder.decode(index);
        let (ours, theirs) = (&ours[..self.mover], &theirs[..self.other]);
        let occupied = |p: u8| ours.contains(&p) || theirs.contains(&p);
        for (j, &from) in ours.iter().enumerate() {
            for &to in &steps_of[from as usize] {
                if occupied(to) {
                    continue;
                }
                let mut moved = [0u8; 4];
                moved[..self.mover].copy_from_slice(ours);
                moved[j] = to;
                let child = Table::locate(theirs, &moved[..self.mover]);
                let value = Wdl::from_code(twin_previous[child])
                    .unwrap_or(Wdl::Draw)
                    .flip();
                best = best.max(Some(value));
                if value == Wdl::Win {
                    return Wdl::Win;
                }
            }
        }
        best.unwrap_or(Wdl::Loss)
    }

    /// Makes `layer` the previous one and records it as layer `r` of every sequence.
    fn record(&mut self, r: usize, layer: Vec<u8>) {
        for (s, &v) in self.sequences.iter_mut().zip(&layer) {
            *s |= u128::from(v) << (2 * r);
        }
        self.previous = layer;
    }

    /// Records the previous layer again as layer `r`.
    fn repeat(&mut self, r: usize) {
        for (s, &v) in self.sequences.iter_mut().zip(&self.previous) {
            *s |= u128::from(v) << (2 * r);
        }
    }
}

/// Positions of a pair from which every layer is reported.
const LARGE_PAIR: usize = 1_000_000;

/// Positions of the material `(mover, other)` and of its twin (counted once when equal).
fn pair_positions(mover: usize, other: usize) -> usize {
    let twin = if mover == other {
        0
    } else {
        Table::positions(other, mover)
    };
    Table::positions(mover, other) + twin
}

/// Solves the material `(mover, other)` and its twin `(other, mover)` (one table when they are
/// equal) into `tables`; every smaller material must be there already.
pub(super) fn solve_pair(
    tables: &mut Tables,
    mover: usize,
    other: usize,
    progress: &mut dyn FnMut(&str),
) {
    let steps_of = neighbours();
    let positions = pair_positions(mover, other);
    // A large pair takes minutes to value its captures and up to a minute or more a layer
    // (4v4): say so before the valuing and at every layer.
    let large = positions >= LARGE_PAIR;
    if large {
        progress(&format!(
            "  {mover}v{other}: {positions} positions, valuing captures into smaller tables"
        ));
    }
    let mut works = vec![Work::new(tables, mover, other)];
    if mover != other {
        works.push(Work::new(tables, other, mover));
    }
    let report_every = if large { 1 } else { 10 };
    if large {
        progress(&format!("  {mover}v{other}: captures valued"));
    }
    // Layer r of a table reads layer r - 1 of its twin (itself for equal counts).
    let paired = mover != other;
    let twin = |w: usize| if paired { 1 - w } else { 0 };
    for r in 0..LAYERS {
        let layers: Vec<Vec<u8>> = (0..works.len())
            .map(|w| match r {
                0 => works[w].first_layer(),
                _ => works[w].next_layer(&works[twin(w)].previous, &steps_of),
            })
            .collect();
        // Once both twins repeat their previous layers, every later layer repeats them too.
        let settled = r > 0 && works.iter().zip(&layers).all(|(w, l)| &w.previous == l);
        for (work, layer) in works.iter_mut().zip(layers) {
            work.record(r, layer);
        }
        if settled {
            progress(&format!(
                "  {mover}v{other}: settled after {} layers",
                r + 1
            ));
            (r + 1..LAYERS).for_each(|later| works.iter_mut().for_each(|w| w.repeat(later)));
            break;
        }
        if (r + 1) % report_every == 0 {
            progress(&format!("  {mover}v{other}: {} of {LAYERS} layers", r + 1));
        }
    }
    for work in works {
        let table = Table::from_sequences(work.mover, work.other, &work.sequences);
        tables.insert(table);
    }
}
