//! Surakarta: material, mobility, pieces under capture threat, circuit control, idle corners.

use arbiter_surakarta::Position;

use super::{weights, Evaluate};

weights!(
    /// Surakarta weights.
    SurakartaWeights {
        piece = 100,
        /// Per move more than the opponent.
        mobility = 2,
        /// Per own piece the opponent could capture next.
        threatened = 15,
        /// Per enemy piece the side to move could capture now.
        attacking = 15,
        /// Per piece on an inner point (on two circuit lines, so four ways to capture).
        interior = 8,
        /// Per piece on a corner: on no circuit, it can neither be captured nor capture, and
        /// the arena says such a piece is worth less (+15: −76 Elo; −15: +52 over 400 games).
        corner = -15,
    }
);

impl Evaluate for Position {
    type Weights = SurakartaWeights;

    fn evaluate(&self, w: &SurakartaWeights) -> i32 {
        let board = &self.board;
        let us = self.current_player;
        let them = us.opponent();
        let n = board.size();
        let inner: u16 = ((1u32 << (n - 1)) - 2) as u16;
        let interior = |side| -> i32 {
            (1..n - 1)
                .map(|y| (board.row_bits(side, y) & inner).count_ones() as i32)
                .sum()
        };
        let corners: u16 = 1 | 1 << (n - 1);
        let corner = |side| -> i32 {
            ((board.row_bits(side, 0) & corners).count_ones()
                + (board.row_bits(side, n - 1) & corners).count_ones()) as i32
        };
        let summaries = board.capture_summaries();
        let (our_captures, their_pieces_hit) = summaries[us.index()];
        let (their_captures, our_pieces_hit) = summaries[them.index()];
        let steps = board.step_counts();
        let mobility = (steps[us.index()] + our_captures) as i32
            - (steps[them.index()] + their_captures) as i32;
        w.piece * (board.count(us) as i32 - board.count(them) as i32) + w.mobility * mobility
            - w.threatened * our_pieces_hit as i32
            + w.attacking * their_pieces_hit as i32
            + w.interior * (interior(us) - interior(them))
            + w.corner * (corner(us) - corner(them))
    }

    /// A side with several pieces nearly always has a harmless step, so passing rarely beats
    /// moving; with two pieces or fewer, endings turn on tempo and the search does not pass.
    fn pass(&self) -> Option<Position> {
        if self.board.count(self.current_player) <= 2 {
            return None;
        }
        let mut passed = self.clone();
        passed.current_player = self.current_player.opponent();
        Some(passed)
    }

    const LATE_MOVE_PRUNING: bool = true;

    fn max_plies(&self) -> u32 {
        // The no-capture rule ends every game; this is only a guard.
        2000
    }
}
