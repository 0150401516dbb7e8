//! Game clocks in the engine protocol: `go wtime W btime B winc I binc J movestogo N`, which
//! side `w` is, and how much of its clock the engine spends on a move.

use std::time::Duration;

use crate::player::Limits;

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

/// The limits of one move on a game clock: [`clock_budget`]'s share, and leave to go on up
/// to twice it while the search is slowed (never past a quarter of the clock, unless the share
/// is already more).
pub fn clock_limits(left: Duration, increment: Duration, moves_to_go: Option<u64>) -> Limits {
    let share = clock_budget(left, increment, moves_to_go);
    let quarter = left.saturating_sub(MOVE_OVERHEAD) / 4;
    Limits {
        time: Some(share),
        time_cap: Some((share * 2).min(quarter).max(share)),
        ..Limits::default()
    }
}

/// The clocks of `go wtime W btime B winc I binc J movestogo N` (white first).
#[derive(Default)]
pub(super) struct GoClock {
    pub(super) time: [Option<Duration>; 2],
    pub(super) increment: [Duration; 2],
    pub(super) moves_to_go: Option<u64>,
}

impl GoClock {
    /// The limits of this move from the mover's clock, if `go` gave it.
    pub(super) fn limits(&self, white_to_move: bool) -> Option<Limits> {
        let i = usize::from(!white_to_move);
        let left = self.time[i]?;
        Some(clock_limits(left, self.increment[i], self.moves_to_go))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_slowed_search_may_take_up_to_twice_its_share() {
        let limits = clock_limits(ms(10_000), ms(100), None);
        let share = clock_budget(ms(10_000), ms(100), None);
        assert_eq!(limits.time, Some(share));
        assert_eq!(limits.time_cap, Some(share * 2));
    }

    #[test]
    fn never_past_a_quarter_of_the_clock_unless_the_share_is_more() {
        // 1 move to go: the share is half the clock, and the cap adds nothing to it.
        let limits = clock_limits(ms(1_000), ms(0), Some(1));
        assert_eq!(limits.time_cap, limits.time);
        // 3 moves to go: a third of the clock, capped at the share (more than a quarter).
        let limits = clock_limits(ms(1_000), ms(0), Some(3));
        assert_eq!(limits.time_cap, limits.time);
        // 6 moves to go: a sixth, slowed up to a quarter.
        let limits = clock_limits(ms(1_220), ms(0), Some(6));
        assert_eq!(limits.time, Some(ms(200)));
        assert_eq!(limits.time_cap, Some(ms(300)));
    }
}
