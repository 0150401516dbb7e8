//! Duck Chess: material, mobility, where pieces stand, threats, captain safety.
//!
//! Everything comes from the position's square sets (bit `x * 9 + y`): each piece's reach once
//! ([`Position::for_each_reach`]), its moves the reach off its own side's squares, what each
//! side attacks and defends the union of the reaches, and the squares near a captain a
//! precomputed mask.

use arbiter_core::Side;
use arbiter_duck::{PieceKind, Position, Square, SQUARES};

use super::{weights, Evaluate, Pruning};

mod exchange;
pub mod net;
mod threats;

weights!(
    /// Duck Chess weights. The captain has no material value: losing it ends the game.
    DuckWeights {
        guard = 120,
        elephant = 79,
        horse = 268,
        car = 921,
        duck = 140,
        soldier = 377,
        /// Per move more than the opponent.
        mobility = -1,
        /// Per move of a piece of this kind, on top of `mobility`.
        car_mobility = 4,
        horse_mobility = 3,
        duck_mobility = 6,
        soldier_mobility = 2,
        /// Per row a piece of this kind stands forward of its side's back rank.
        soldier_advance = 27,
        horse_advance = -6,
        duck_advance = -7,
        car_advance = 1,
        captain_advance = -13,
        /// Per column a piece of this kind stands nearer the middle column.
        soldier_centre = 38,
        horse_centre = 13,
        duck_centre = -1,
        /// Per enemy piece within two points of one's captain.
        captain_pressure = -10,
        /// Per own guard or elephant next to one's captain.
        captain_shield = 16,
        /// Per kind of enemy piece attacking each point next to one's captain or its own.
        captain_zone = 20,
        /// The side to move with its captain attacked.
        captain_attacked = 0,
        /// Per cent of the value of each piece of the side to move that an enemy attacks and
        /// nothing defends, or that a cheaper enemy attacks.
        hanging = 12,
        /// The same for the opponent's pieces: the side to move's threats.
        threats = 0,
        /// For having the move.
        tempo = 21,
        /// Per piece (not the captain) that nothing of its side defends. Fairy-Stockfish's
        /// cars and horses pick such pieces up, but 25 was level with 0 in self-play (+7 ± 34
        /// over 146 games) and no better at 1 s against it (0-1-11; docs/tuning.md): off.
        loose = 0,
        /// Per cent of the learnt correction ([`net`]) added to the rest: all of it, since the
        /// third network won an SPRT at 100 ms by +321 Elo (17-4-1) against none
        /// (docs/tuning.md).
        learnt = 100,
    }
);

/// The default weights' piece values, with the captain at [`exchange::CAPTAIN`].
fn exchange_price() -> impl Fn(PieceKind) -> i32 {
    let w = DuckWeights::default();
    move |kind| match kind {
        PieceKind::Captain => exchange::CAPTAIN,
        _ => value(kind, &w),
    }
}

fn value(kind: PieceKind, w: &DuckWeights) -> i32 {
    match kind {
        PieceKind::Captain => 0,
        PieceKind::Guard => w.guard,
        PieceKind::Elephant => w.elephant,
        PieceKind::Horse => w.horse,
        PieceKind::Car => w.car,
        PieceKind::Duck => w.duck,
        PieceKind::Soldier => w.soldier,
    }
}

/// The weights a piece's kind picks, indexed by `PieceKind as usize`.
struct PerKind {
    value: [i32; 7],
    mobility: [i32; 7],
    advance: [i32; 7],
    centre: [i32; 7],
    /// The kinds (a bit each) worth less than this one by `value`, the captain never among
    /// them: an attack by one of them threatens a piece of this kind even where it is defended.
    cheaper: [u8; 7],
}

impl PerKind {
    fn new(w: &DuckWeights) -> PerKind {
        let by_kind = |f: &dyn Fn(PieceKind) -> i32| PieceKind::ALL.map(f);
        let values = by_kind(&|k| value(k, w));
        PerKind {
            value: values,
            cheaper: cheaper_kinds(|k| values[k as usize]),
            mobility: by_kind(&|k| {
                w.mobility
                    + match k {
                        PieceKind::Car => w.car_mobility,
                        PieceKind::Horse => w.horse_mobility,
                        PieceKind::Duck => w.duck_mobility,
                        PieceKind::Soldier => w.soldier_mobility,
                        _ => 0,
                    }
            }),
            advance: by_kind(&|k| match k {
                PieceKind::Soldier => w.soldier_advance,
                PieceKind::Horse => w.horse_advance,
                PieceKind::Duck => w.duck_advance,
                PieceKind::Car => w.car_advance,
                PieceKind::Captain => w.captain_advance,
                _ => 0,
            }),
            centre: by_kind(&|k| match k {
                PieceKind::Soldier => w.soldier_centre,
                PieceKind::Horse => w.horse_centre,
                PieceKind::Duck => w.duck_centre,
                _ => 0,
            }),
        }
    }
}

/// For each kind, the kinds (a bit each) whose `price` is below its own; the captain is never
/// the cheaper one.
fn cheaper_kinds(price: impl Fn(PieceKind) -> i32) -> [u8; 7] {
    PieceKind::ALL.map(|kind| {
        PieceKind::ALL
            .into_iter()
            .filter(|&a| a != PieceKind::Captain && price(a) < price(kind))
            .fold(0, |bits, a| bits | 1 << a as usize)
    })
}

/// The squares the `kinds` (a bit each) of a side attack, from its `attacks` by kind.
fn attacks_of(kinds: u8, attacks: &[u128; 7]) -> u128 {
    let mut bits = kinds;
    let mut union = 0;
    while bits != 0 {
        union |= attacks[bits.trailing_zeros() as usize];
        bits &= bits - 1;
    }
    union
}

/// `WITHIN[r - 1][sq]`: the squares at most `r` rows and `r` columns from `sq`, `sq` itself not.
static WITHIN: std::sync::LazyLock<[[u128; SQUARES]; 2]> = std::sync::LazyLock::new(|| {
    let mut within = [[0; SQUARES]; 2];
    for (r, masks) in within.iter_mut().enumerate() {
        for (sq, mask) in masks.iter_mut().enumerate() {
            let here = Square::from_index(sq).expect("a square");
            *mask = Square::all()
                .filter(|&s| s != here && distance(s, here) <= r as u8 + 1)
                .fold(0, |acc, s| acc | 1u128 << s.index());
        }
    }
    within
});

fn distance(a: Square, b: Square) -> u8 {
    a.x().abs_diff(b.x()).max(a.y().abs_diff(b.y()))
}

/// `ADVANCE[side][sq]`: the rows `sq` stands forward of `side`'s back rank.
const ADVANCE: [[i32; SQUARES]; 2] = {
    let mut table = [[0; SQUARES]; 2];
    let mut sq = 0;
    while sq < SQUARES {
        let x = (sq / 9) as i32;
        table[0][sq] = x;
        table[1][sq] = 9 - x;
        sq += 1;
    }
    table
};

/// `CENTRE[sq]`: how many columns `sq` stands in from the nearer edge (`0..=4`).
const CENTRE: [i32; SQUARES] = {
    let mut table = [0; SQUARES];
    let mut sq = 0;
    while sq < SQUARES {
        let y = (sq % 9) as i32;
        table[sq] = if y < 4 { y } else { 8 - y };
        sq += 1;
    }
    table
};

/// What one side has and does: its own terms, and the squares each of its kinds attacks (or
/// defends).
struct SideView {
    score: i32,
    attacks: [u128; 7],
    all: u128,
}

fn side_view(pos: &Position, side: Side, per_kind: &PerKind) -> SideView {
    let own = pos.side_set(side);
    let mut view = SideView {
        score: 0,
        attacks: [0; 7],
        all: 0,
    };
    pos.for_each_reach(side, |kind, sq, reach| {
        let k = kind as usize;
        view.score += per_kind.value[k]
            + per_kind.mobility[k] * (reach & !own).count_ones() as i32
            + per_kind.advance[k] * ADVANCE[side.index()][sq]
            + per_kind.centre[k] * CENTRE[sq];
        view.attacks[k] |= reach;
    });
    view.all = view.attacks.iter().fold(0, |acc, a| acc | a);
    view
}

/// The threat terms: the opponent's threatened pieces' value less the side to move's, and the
/// network's [`net::threats`] when the weights order the kinds as its prices do (as the default
/// weights do), so the network need not find them again.
fn threat_terms(
    pos: &Position,
    [ours, theirs]: [&SideView; 2],
    w: &DuckWeights,
    per_kind: &PerKind,
) -> (i32, Option<[u128; 2]>) {
    let us = pos.side_to_move();
    let (their_value, their_squares) =
        threats::threatened_value(pos, us.opponent(), theirs, ours, per_kind);
    let (our_value, our_squares) = threats::threatened_value(pos, us, ours, theirs, per_kind);
    let score = (w.threats * their_value - w.hanging * our_value) / 100;
    let captains = pos.kind_set(PieceKind::Captain);
    let with_captain = |side: Side, squares: u128, enemy: &SideView| {
        squares | (pos.side_set(side) & captains & enemy.all)
    };
    let threats = net::orders_kinds_as(&per_kind.cheaper).then(|| {
        [
            with_captain(us, our_squares, theirs),
            with_captain(us.opponent(), their_squares, ours),
        ]
    });
    (score, threats)
}

/// The terms of `side`'s captain: enemies close by, shields next to it, enemy attacks on it and
/// around it.
fn captain_terms(pos: &Position, side: Side, enemy: &SideView, w: &DuckWeights) -> i32 {
    let Some(captain) = pos.captain(side) else {
        return 0;
    };
    let own = pos.side_set(side);
    let enemies = pos.side_set(side.opponent());
    let [near, close] = [0, 1].map(|r| WITHIN[r][captain.index()]);
    let attackers = close & enemies & !pos.kind_set(PieceKind::Captain);
    let shield = near & own & (pos.kind_set(PieceKind::Guard) | pos.kind_set(PieceKind::Elephant));
    let zone = near | 1u128 << captain.index();
    let zone_attacks: u32 = enemy.attacks.iter().map(|a| (a & zone).count_ones()).sum();
    w.captain_shield * shield.count_ones() as i32
        - w.captain_pressure * attackers.count_ones() as i32
        - w.captain_zone * zone_attacks as i32
}

/// How many of `side`'s pieces, its captain aside, nothing of `side` defends.
fn loose_pieces(pos: &Position, side: Side, view: &SideView) -> i32 {
    let captains = pos.kind_set(PieceKind::Captain);
    (pos.side_set(side) & !captains & !view.all).count_ones() as i32
}

/// Under a no-capture limit a lead is worth less the nearer the quiet plies bring the draw
/// (down to half at the limit), so the side ahead captures or exchanges before it drifts into
/// the draw and the side behind steers towards it.
fn toward_quiet_draw(pos: &Position, score: i32) -> i32 {
    let limit = pos.quiet_limit() as i32;
    if limit == 0 {
        return score;
    }
    let quiet = (pos.quiet_plies() as i32).min(limit);
    score * (2 * limit - quiet) / (2 * limit)
}

impl Evaluate for Position {
    type Weights = DuckWeights;
    type Tables = ();

    fn evaluate(&self, w: &DuckWeights) -> i32 {
        let per_kind = PerKind::new(w);
        let us = self.side_to_move();
        let them = us.opponent();
        let ours = side_view(self, us, &per_kind);
        let theirs = side_view(self, them, &per_kind);
        let mut score = ours.score - theirs.score + w.tempo;
        score += captain_terms(self, us, &theirs, w) - captain_terms(self, them, &ours, w);
        let mut threats = None;
        if w.hanging != 0 || w.threats != 0 {
            let (terms, found) = threat_terms(self, [&ours, &theirs], w, &per_kind);
            score += terms;
            threats = found;
        }
        if w.loose != 0 {
            score += w.loose * (loose_pieces(self, them, &theirs) - loose_pieces(self, us, &ours));
        }
        if self
            .captain(us)
            .is_some_and(|c| theirs.all >> c.index() & 1 != 0)
        {
            score -= w.captain_attacked;
        }
        if w.learnt != 0 {
            let threats =
                || threats.unwrap_or_else(|| net::threats(self, &ours.attacks, &theirs.attacks));
            score += net::correction(self, w.learnt, threats);
        }
        toward_quiet_draw(self, score)
    }

    fn learnt_inputs(&self, out: &mut Vec<u16>) -> bool {
        net::inputs(self, out);
        true
    }

    fn order_hint(&self, mv: arbiter_duck::Move) -> i32 {
        match (self.piece_at(mv.to), self.piece_at(mv.from)) {
            (Some(victim), Some(attacker)) => {
                let w = DuckWeights::default();
                let v = if victim.kind == PieceKind::Captain {
                    100_000
                } else {
                    value(victim.kind, &w)
                };
                16 * v - value(attacker.kind, &w)
            }
            _ => 0,
        }
    }

    /// A capture of a defended piece that the static exchange says loses material. Only a
    /// capture of a cheaper piece can (one of an equal or dearer piece wins the difference);
    /// a piece defended only through the mover's own square is taken as undefended, which
    /// saves the exchange for most captures.
    fn losing_capture(&self, mv: arbiter_duck::Move) -> bool {
        let (Some(victim), Some(attacker)) = (self.piece_at(mv.to), self.piece_at(mv.from)) else {
            return false;
        };
        let price = exchange_price();
        price(victim.kind) < price(attacker.kind)
            && self.attacks(victim.side, mv.to)
            && exchange::exchange(self, mv, &price) < 0
    }

    /// A capture the exchange says loses, or a quiet move to a point where the opponent takes
    /// the piece at a profit.
    fn hangs(&self, mv: arbiter_duck::Move, after: &Position) -> bool {
        if self.piece_at(mv.to).is_some() {
            return self.losing_capture(mv);
        }
        exchange::takes_at_profit(after, mv.to, &exchange_price())
    }

    const STATISTICS: Option<(usize, usize)> = Some((2 * SQUARES * SQUARES, 14 * SQUARES));

    fn statistics_slots(&self, mv: arbiter_duck::Move) -> (usize, usize) {
        let (side, kind) = self
            .piece_at(mv.from)
            .map_or((0, 0), |p| (p.side.index(), p.kind as usize));
        let (from, to) = (mv.from.index(), mv.to.index());
        (
            (side * SQUARES + from) * SQUARES + to,
            (side * 7 + kind) * SQUARES + to,
        )
    }

    fn in_danger(&self) -> bool {
        let us = self.side_to_move();
        self.captain(us)
            .is_some_and(|c| self.attacks(us.opponent(), c))
    }

    /// Sound when the captain is safe: the searches only ask then, and a pass then is rarely
    /// better than the best move (verified by a shallower search at high depths).
    fn pass(&self) -> Option<Position> {
        let mut passed = self.clone();
        passed.set_side_to_move(self.side_to_move().opponent());
        Some(passed)
    }

    fn max_plies(&self) -> u32 {
        400
    }

    /// Reverse futility pruning took Duck Chess from 35% to 57.5% against Fairy-Stockfish;
    /// futility and late move pruning at the last two plies, sparing attacks on the captain,
    /// gained +41 ± 26 Elo (SPRT, a ply more at 1 s). Pruning deeper (late moves and reverse
    /// futility to depth 6, larger null-move reductions) reached two plies deeper at 1 s a
    /// move and was not kept (docs/tuning.md).
    const PRUNING: Pruning = Pruning {
        reverse_futility_depth: 3,
        reverse_futility_margin: 150,
        late_move_depth: 2,
        futility_depth: 2,
        futility_margin: 200,
        spare_threats: true,
        improving: true,
        reduction_divisor: 225,
        singular: true,
    };

    const ITERATION_START_PERCENT: u32 = 95;
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_core::MoveList;
    use rand::{Rng, SeedableRng};

    /// The evaluation as first written: every point of the board looked at, every move counted.
    fn slow_evaluate(pos: &Position, w: &DuckWeights) -> i32 {
        let us = pos.side_to_move();
        let captains = [pos.captain(Side::First), pos.captain(Side::Second)];
        let mut score = [0i32; 2];
        for (sq, piece) in pos.pieces() {
            let s = piece.side.index();
            score[s] += value(piece.kind, w);
            if let Some(theirs) = captains[1 - s] {
                if piece.kind != PieceKind::Captain && distance(sq, theirs) <= 2 {
                    score[1 - s] -= w.captain_pressure;
                }
            }
            if let Some(ours) = captains[s] {
                if matches!(piece.kind, PieceKind::Guard | PieceKind::Elephant)
                    && distance(sq, ours) == 1
                {
                    score[s] += w.captain_shield;
                }
            }
        }
        let material = score[us.index()] - score[1 - us.index()];
        let mobility = pos.count_moves_of(us) as i32 - pos.count_moves_of(us.opponent()) as i32;
        material + w.mobility * mobility
    }

    /// The weights of the first evaluation: material, mobility and the captain's two terms.
    fn first_weights() -> DuckWeights {
        use crate::eval::EvalWeights;
        let mut w = DuckWeights::default();
        for name in DuckWeights::names() {
            w.set(name, 0).unwrap();
        }
        for (name, value) in [
            ("guard", 120),
            ("elephant", 120),
            ("horse", 300),
            ("car", 600),
            ("duck", 300),
            ("soldier", 400),
            ("mobility", 4),
            ("captain_pressure", 25),
            ("captain_shield", 10),
        ] {
            w.set(name, value).unwrap();
        }
        w
    }

    #[test]
    fn a_piece_nothing_defends_costs_the_loose_weight() {
        use crate::eval::EvalWeights;
        let at = |name: &str| Square::parse(name).unwrap();
        let piece = |side, kind| Some(arbiter_duck::Piece { side, kind });
        let mut pos = Position::empty();
        pos.put(at("e0"), piece(Side::First, PieceKind::Captain));
        pos.put(at("e9"), piece(Side::Second, PieceKind::Captain));
        pos.put(at("a0"), piece(Side::First, PieceKind::Guard));
        let mut loose = DuckWeights::default();
        loose.set("loose", 30).unwrap();
        let cost = |pos: &Position| pos.evaluate(&DuckWeights::default()) - pos.evaluate(&loose);
        assert_eq!(cost(&pos), 30, "red's guard on a0 stands alone");
        pos.put(at("b1"), piece(Side::First, PieceKind::Guard));
        assert_eq!(cost(&pos), 0, "the two guards defend each other");
        pos.set_side_to_move(Side::Second);
        pos.put(at("a9"), piece(Side::Second, PieceKind::Elephant));
        assert_eq!(cost(&pos), 30, "blue to move, its elephant alone");
    }

    #[test]
    fn a_lead_shrinks_towards_the_quiet_move_draw() {
        let mut pos = Position::initial();
        pos.put(Square::parse("a9").unwrap(), None);
        pos.set_quiet_limit(80);
        let w = DuckWeights::default();
        let fresh = pos.evaluate(&w);
        pos.set_quiet_plies(40);
        let halfway = pos.evaluate(&w);
        pos.set_quiet_plies(80);
        let at_limit = pos.evaluate(&w);
        assert!(fresh > 500, "red is a car up: {fresh}");
        assert_eq!(halfway, fresh * 120 / 160);
        assert_eq!(at_limit, fresh / 2);
        pos.set_quiet_limit(0);
        assert_eq!(pos.evaluate(&w), fresh, "no limit, no draw to drift into");
    }

    /// Positions of seeded random games (up to 150 plies each), none of them over.
    fn random_positions(seed: u64, games: usize) -> Vec<Position> {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        let mut positions = Vec::new();
        for _ in 0..games {
            let mut pos = Position::initial();
            let mut moves = MoveList::new();
            for _ in 0..rng.gen_range(0..150) {
                moves.clear();
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                pos.play(moves[rng.gen_range(0..moves.len())]);
                if !pos.is_over() {
                    positions.push(pos.clone());
                }
            }
        }
        positions
    }

    #[test]
    fn the_set_evaluation_is_the_point_by_point_one() {
        let w = first_weights();
        for pos in random_positions(9, 200) {
            assert_eq!(pos.evaluate(&w), slow_evaluate(&pos, &w), "{pos:?}");
        }
    }

    /// The evaluation hands the network the threatened pieces it found for its own terms: they
    /// must be the ones the network finds itself.
    #[test]
    fn the_threats_handed_to_the_network_are_its_own() {
        let w = DuckWeights::default();
        let per_kind = PerKind::new(&w);
        let mut handed = 0;
        for pos in random_positions(12, 100) {
            let us = pos.side_to_move();
            let ours = side_view(&pos, us, &per_kind);
            let theirs = side_view(&pos, us.opponent(), &per_kind);
            let (_, threats) = threat_terms(&pos, [&ours, &theirs], &w, &per_kind);
            let found = net::threats(&pos, &ours.attacks, &theirs.attacks);
            assert_eq!(threats, Some(found), "{pos:?}");
            handed += usize::from(found != [0, 0]);
        }
        assert!(handed > 1000, "only {handed} positions with a threat");
        // Weights that rank a guard above a car order the kinds otherwise: nothing is handed.
        let mut dear_guard = w.clone();
        dear_guard.guard = 2000;
        let per_kind = PerKind::new(&dear_guard);
        let pos = Position::initial();
        let views = [Side::First, Side::Second].map(|side| side_view(&pos, side, &per_kind));
        let (_, threats) = threat_terms(&pos, [&views[0], &views[1]], &dear_guard, &per_kind);
        assert_eq!(threats, None);
    }
}
