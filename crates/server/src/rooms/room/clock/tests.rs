//! The clock model against a slow, obvious reference over random event sequences: the whole
//! history is kept and each side's charge recomputed from it, interval by interval.

use std::time::Duration;

use arbiter_core::Side;
use proptest::prelude::*;
use tokio::time::Instant;

use super::{Expiry, GameClocks};
use crate::games::{GameClock, GameSettings};

#[derive(Clone, Copy, Debug)]
enum Event {
    /// Time passes (ms).
    Wait(u64),
    Told,
    Pause,
    Moved,
    /// Back to this many plies fewer (1 or 2), when there are that many.
    TookBack(usize),
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        4 => (0u64..5_000).prop_map(Event::Wait),
        3 => Just(Event::Told),
        1 => Just(Event::Pause),
        3 => Just(Event::Moved),
        1 => (1usize..=2).prop_map(Event::TookBack),
    ]
}

fn settings(clock: Option<(u64, u64)>, per_move: u64) -> GameSettings {
    let game = &arbiter_surakarta::DEFINITION;
    GameSettings {
        options: game.defaults(),
        timeout_ms: per_move,
        clock: clock.map(|(initial_ms, increment_ms)| GameClock {
            initial_ms,
            increment_ms,
        }),
        training: false,
        rated: false,
    }
}

/// What the reference remembers: every event and when.
struct History {
    events: Vec<(u64, Event)>,
}

impl History {
    /// Each side's charge, the increments it earned, whose turn it is, and how much of the
    /// current turn ran — recomputed from the start.
    fn replay(&self, now: u64, free: [bool; 2]) -> ([u64; 2], [u64; 2], usize, u64, usize) {
        let (mut charged, mut moves) = ([0u64; 2], [0u64; 2]);
        let (mut plies, mut turn_ran, mut running_since) = (0usize, 0u64, None::<u64>);
        let mut made_first = [false; 2];
        for &(at, e) in &self.events {
            let side = plies % 2;
            let stop = |since: &mut Option<u64>, ran: &mut u64| {
                if let Some(s) = since.take() {
                    *ran += at - s;
                }
            };
            match e {
                Event::Wait(_) => {}
                Event::Told => {
                    running_since.get_or_insert(at);
                }
                Event::Pause => stop(&mut running_since, &mut turn_ran),
                Event::Moved => {
                    stop(&mut running_since, &mut turn_ran);
                    if !free[side] || made_first[side] {
                        charged[side] += turn_ran;
                        moves[side] += 1;
                    }
                    made_first[side] = true;
                    turn_ran = 0;
                    plies += 1;
                }
                Event::TookBack(n) => {
                    stop(&mut running_since, &mut turn_ran);
                    if !free[side] || made_first[side] {
                        charged[side] += turn_ran;
                    }
                    turn_ran = 0;
                    plies -= n;
                    for (i, made) in made_first.iter_mut().enumerate() {
                        *made = plies > i;
                    }
                }
            }
        }
        let ran_now = turn_ran + running_since.map_or(0, |s| now - s);
        let first_free = free[plies % 2] && !made_first[plies % 2];
        (charged, moves, plies, ran_now, usize::from(first_free))
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    /// With a big game clock (nothing runs out, so no charge is cut at zero): each side's clock
    /// is its start less the time its turns ran while told and not paused, plus an increment a
    /// clocked move; an unclocked first move costs nothing; the deadline is when the turn's
    /// time is up, and nobody has one while paused.
    #[test]
    fn time_runs_only_while_the_side_to_act_was_told(
        events in prop::collection::vec(event(), 0..60),
        free in any::<[bool; 2]>(),
        increment in 0u64..3_000,
    ) {
        const INITIAL: u64 = 10_000_000;
        let allowance = Duration::from_secs(30);
        let start = Instant::now();
        let mut clocks = GameClocks::new(&settings(Some((INITIAL, increment)), 3_000), free, allowance);
        let mut history = History { events: Vec::new() };
        let (mut now, mut plies) = (0u64, 0usize);
        for e in events {
            let at = start + Duration::from_millis(now);
            match e {
                // Never past the deadline: a room ends the game there.
                Event::Wait(ms) => now += ms.min(clocks.turn_left_ms(at)),
                Event::Told => clocks.told(at),
                Event::Pause => clocks.pause(at),
                Event::Moved => {
                    clocks.moved(at);
                    plies += 1;
                }
                Event::TookBack(n) if n <= plies => {
                    plies -= n;
                    clocks.took_back(plies, at);
                }
                Event::TookBack(_) => continue,
            }
            history.events.push((now, e));
        }
        let at = start + Duration::from_millis(now);
        let (charged, moves, ref_plies, ran, first_free) = history.replay(now, free);
        prop_assert_eq!(ref_plies, plies);
        let side = plies % 2;
        let shown = clocks.shown_ms(at).expect("a game clock");
        for s in 0..2 {
            let mut expected = INITIAL - charged[s] + increment * moves[s];
            if s == side && first_free == 0 {
                expected -= ran;
            }
            prop_assert_eq!(shown[s], expected, "side {}", s);
        }
        let allowed = if first_free == 1 { allowance.as_millis() as u64 } else { INITIAL - charged[side] + increment * moves[side] };
        prop_assert_eq!(clocks.turn_left_ms(at), allowed - ran);
        match clocks.deadline() {
            None => prop_assert!(!clocks.is_running()),
            Some((when, expiry)) => {
                prop_assert_eq!(when, at + Duration::from_millis(allowed - ran));
                let who = Side::from_index(side);
                let expected = if first_free == 1 { Expiry::Abort(who) } else { Expiry::Timeout(who) };
                prop_assert_eq!(expiry, expected);
            }
        }
    }

    /// A clock per move: each turn has the whole time again, whatever earlier turns used, and
    /// a pause keeps what the turn had left.
    #[test]
    fn a_clock_per_move_gives_each_turn_its_time(
        events in prop::collection::vec(event(), 0..60),
    ) {
        let per_move = 3_000u64;
        let start = Instant::now();
        let mut clocks = GameClocks::new(&settings(None, per_move), [false; 2], Duration::from_secs(30));
        let mut history = History { events: Vec::new() };
        let (mut now, mut plies) = (0u64, 0usize);
        for e in events {
            let at = start + Duration::from_millis(now);
            match e {
                // Never past the deadline: a room ends the game there.
                Event::Wait(ms) => now += ms.min(clocks.turn_left_ms(at)),
                Event::Told => clocks.told(at),
                Event::Pause => clocks.pause(at),
                Event::Moved => { clocks.moved(at); plies += 1; }
                Event::TookBack(n) if n <= plies => { plies -= n; clocks.took_back(plies, at); }
                Event::TookBack(_) => continue,
            }
            history.events.push((now, e));
        }
        let at = start + Duration::from_millis(now);
        let (_, _, _, ran, _) = history.replay(now, [false; 2]);
        prop_assert_eq!(clocks.shown_ms(at), None);
        prop_assert_eq!(clocks.turn_left_ms(at), per_move - ran);
    }
}

/// A page's first move is off the clock and missing it aborts; the second side's first move
/// too; from then on the clock runs and running out loses.
#[test]
fn a_pages_first_move_is_off_the_clock_and_missing_it_aborts() {
    let allowance = Duration::from_secs(30);
    let start = Instant::now();
    let mut clocks = GameClocks::new(
        &settings(Some((60_000, 2_000)), 3_000),
        [true; 2],
        allowance,
    );
    clocks.told(start);
    assert_eq!(
        clocks.deadline(),
        Some((start + allowance, Expiry::Abort(Side::First)))
    );
    let first = start + Duration::from_secs(20);
    clocks.moved(first);
    assert_eq!(
        clocks.shown_ms(first),
        Some([60_000, 60_000]),
        "no clock, no increment"
    );
    clocks.told(first);
    assert_eq!(
        clocks.deadline(),
        Some((first + allowance, Expiry::Abort(Side::Second)))
    );
    let second = first + Duration::from_secs(5);
    clocks.moved(second);
    clocks.told(second);
    assert_eq!(
        clocks.deadline(),
        Some((
            second + Duration::from_secs(60),
            Expiry::Timeout(Side::First)
        ))
    );
    let third = second + Duration::from_secs(10);
    clocks.moved(third);
    assert_eq!(
        clocks.shown_ms(third),
        Some([52_000, 60_000]),
        "10 s used, 2 s earned"
    );
}

/// A course client's first move is on the course's clock, as every other.
#[test]
fn a_course_clients_first_move_is_on_the_clock() {
    let start = Instant::now();
    let mut clocks = GameClocks::new(&settings(None, 3_000), [false; 2], Duration::from_secs(30));
    assert_eq!(clocks.deadline(), None, "not told yet");
    clocks.told(start);
    assert_eq!(
        clocks.deadline(),
        Some((start + Duration::from_secs(3), Expiry::Timeout(Side::First)))
    );
}
