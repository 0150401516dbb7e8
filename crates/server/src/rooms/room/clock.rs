//! The one clock model of a room (docs/protocol.md, "Clocks"). A side's time runs only while it
//! can act: from the moment the move before it (or the game's READY) has been *told* to it, until
//! its own move arrives. While the room waits for the store, has no owner, or waits for the side
//! to move to come back to a restored game, no one's time runs. A seat held by a page (a seat
//! token) has no clock before its first move, as on lichess: it has the first-move allowance
//! instead, and missing it aborts the game. Every time a room charges goes through here.

use std::time::Duration;

use arbiter_core::Side;
use tokio::time::Instant;

use crate::games::GameSettings;

/// What happens when the running side's time is up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Expiry {
    /// It loses on time.
    Timeout(Side),
    /// It missed its first move: the game is aborted, without a result.
    Abort(Side),
}

/// The clocks of one game.
#[derive(Clone, Debug)]
pub(super) struct GameClocks {
    /// The time for each move, without a game clock.
    per_move: Duration,
    /// With a game clock: the increment after each move.
    increment: Option<Duration>,
    /// With a game clock: what each side has left, its running turn not yet charged.
    left: Option<[Duration; 2]>,
    /// The side whose turn it is.
    to_act: Side,
    /// Since when its time runs; `None` while nobody's does.
    since: Option<Instant>,
    /// What the turn has used before `since` (time of earlier runs, before a pause).
    used: Duration,
    /// Sides whose first move is still to come and is not on the clock (page seats).
    first_move_free: [bool; 2],
    /// Which sides have a first move off the clock at all (for takebacks to the start).
    free_first_move: [bool; 2],
    /// How long an unclocked first move may take before the game is aborted.
    allowance: Duration,
}

impl GameClocks {
    /// A new game's clocks, first side to act, nobody's time running until it is told.
    /// `free_first_move`: the sides held by pages.
    pub(super) fn new(
        settings: &GameSettings,
        free_first_move: [bool; 2],
        allowance: Duration,
    ) -> GameClocks {
        let left = settings
            .clock
            .map(|c| [Duration::from_millis(c.initial_ms); 2]);
        GameClocks {
            per_move: Duration::from_millis(settings.timeout_ms),
            increment: settings
                .clock
                .map(|c| Duration::from_millis(c.increment_ms)),
            left,
            to_act: Side::First,
            since: None,
            used: Duration::ZERO,
            first_move_free: free_first_move,
            free_first_move,
            allowance,
        }
    }

    /// A restored game's clocks after `plies` moves, each side with `left` (a game clock, as at
    /// the last stored move); nobody's time runs until the side to move is back.
    pub(super) fn restored(
        settings: &GameSettings,
        free_first_move: [bool; 2],
        allowance: Duration,
        plies: usize,
        left: Option<[Duration; 2]>,
    ) -> GameClocks {
        let mut clocks = GameClocks::new(settings, free_first_move, allowance);
        clocks.after_plies(plies);
        if left.is_some() {
            clocks.left = left;
        }
        clocks
    }

    /// The side whose turn it is now and whose first moves are left, after `plies` moves.
    fn after_plies(&mut self, plies: usize) {
        self.to_act = if plies.is_multiple_of(2) {
            Side::First
        } else {
            Side::Second
        };
        for (i, free) in self.first_move_free.iter_mut().enumerate() {
            *free = self.free_first_move[i] && plies <= i;
        }
    }

    /// Whether some side's time runs now.
    #[cfg(test)]
    pub(super) fn is_running(&self) -> bool {
        self.since.is_some()
    }

    /// The side to act has been told it may: its time runs from `now`.
    pub(super) fn told(&mut self, now: Instant) {
        if self.since.is_none() {
            self.since = Some(now);
        }
    }

    /// Nobody's time runs from `now` (the store is pending, the room changes hands): what the
    /// turn used so far is kept.
    pub(super) fn pause(&mut self, now: Instant) {
        if let Some(since) = self.since.take() {
            self.used += now.saturating_duration_since(since);
        }
    }

    /// The side to act moved at `now`: its turn is charged (and the increment credited), and
    /// the other side's turn waits until it is told.
    pub(super) fn moved(&mut self, now: Instant) {
        self.pause(now);
        let side = self.to_act.index();
        let free = std::mem::replace(&mut self.first_move_free[side], false);
        if let (Some(left), false) = (self.left.as_mut(), free) {
            let charged = left[side].saturating_sub(self.used);
            left[side] = charged + self.increment.unwrap_or_default();
        }
        self.used = Duration::ZERO;
        self.to_act = self.to_act.opponent();
    }

    /// The game went back to `plies` moves (a takeback): the side that was to act is charged
    /// what its turn used, without an increment; the new side to act waits to be told.
    pub(super) fn took_back(&mut self, plies: usize, now: Instant) {
        self.pause(now);
        let side = self.to_act.index();
        if let (Some(left), false) = (self.left.as_mut(), self.first_move_free[side]) {
            left[side] = left[side].saturating_sub(self.used);
        }
        self.used = Duration::ZERO;
        self.after_plies(plies);
    }

    /// How long the side to act may take in all for this turn.
    fn allowed(&self) -> Duration {
        let side = self.to_act.index();
        if self.first_move_free[side] {
            return self.allowance;
        }
        match self.left {
            Some(left) => left[side],
            None => self.per_move,
        }
    }

    /// What the turn has used by `now`.
    fn used_by(&self, now: Instant) -> Duration {
        let running = self.since.map(|s| now.saturating_duration_since(s));
        self.used + running.unwrap_or_default()
    }

    /// When the running side's time is up, and what that means; `None` while nobody's runs.
    pub(super) fn deadline(&self) -> Option<(Instant, Expiry)> {
        let since = self.since?;
        let at = since + self.allowed().saturating_sub(self.used);
        let side = self.to_act;
        let expiry = if self.first_move_free[side.index()] {
            Expiry::Abort(side)
        } else {
            Expiry::Timeout(side)
        };
        Some((at, expiry))
    }

    /// What the side to act has left for this turn at `now`, in milliseconds.
    pub(super) fn turn_left_ms(&self, now: Instant) -> u64 {
        self.allowed().saturating_sub(self.used_by(now)).as_millis() as u64
    }

    /// With a game clock: what each side has left at `now`, in milliseconds, the running turn
    /// counted (an unclocked first move leaves the clock as it is).
    pub(super) fn shown_ms(&self, now: Instant) -> Option<[u64; 2]> {
        let mut left = self.left?;
        let side = self.to_act.index();
        if !self.first_move_free[side] {
            left[side] = left[side].saturating_sub(self.used_by(now));
        }
        Some(left.map(|d| d.as_millis() as u64))
    }

    /// Whether `side`'s first move is still to come off the clock.
    pub(super) fn first_move_pending(&self, side: Side) -> bool {
        self.first_move_free[side.index()]
    }
}

#[cfg(test)]
mod tests;
