//! Game clocks in the engine protocol: `go wtime W btime B winc I binc J movestogo N`, which
//! side `w` is, and how much of its clock the engine spends on a move.

use std::time::Duration;

/// The side whose clock `go wtime` gives: the side called white (Surakarta's), else the side
/// that moves first (red in Duck Chess and RC-02, as white is in chess).
pub fn white_side(def: &arbiter_core::GameDef) -> arbiter_core::Side {
    let second = arbiter_core::Side::Second;
    if def.side(second).name.eq_ignore_ascii_case("white") {
        second
    } else {
        arbiter_core::Side::First
    }
}

/// What a game clock keeps back for the time it takes to pass a move on.
const MOVE_OVERHEAD: Duration = Duration::from_millis(20);

/// The time to think about one move with `left` on the clock and `increment` added after it:
/// a share of what is left (`moves_to_go`, else 25 more moves), most of the increment, never
/// more than half of what is left.
pub fn clock_budget(left: Duration, increment: Duration, moves_to_go: Option<u64>) -> Duration {
    let usable = left.saturating_sub(MOVE_OVERHEAD);
    let moves = moves_to_go.unwrap_or(25).clamp(1, 1000) as u32;
    let budget = usable / moves + increment * 3 / 4;
    budget.min(usable / 2).max(Duration::from_millis(1))
}

/// The clocks of `go wtime W btime B winc I binc J movestogo N` (white first).
#[derive(Default)]
pub(super) struct GoClock {
    pub(super) time: [Option<Duration>; 2],
    pub(super) increment: [Duration; 2],
    pub(super) moves_to_go: Option<u64>,
}

impl GoClock {
    /// The time for this move from the mover's clock, if `go` gave it.
    pub(super) fn budget(&self, white_to_move: bool) -> Option<Duration> {
        let i = usize::from(!white_to_move);
        let left = self.time[i]?;
        Some(clock_budget(left, self.increment[i], self.moves_to_go))
    }
}
