//! Warnings that a room would repeat many times a second — a gateway retries a command every
//! 100 ms for up to 20 s, and each retry that cannot claim the room (the database is away) or
//! cannot reach its owner used to log a line — are said once per room and kind every
//! [`WINDOW`]; the next one says how many like it were held back. An outage then reads as one
//! line per room every 10 s instead of ten a second.

use std::collections::HashMap;
use std::time::Duration;

use tokio::time::Instant;

/// How often one kind of warning is said for one room at most.
pub(super) const WINDOW: Duration = Duration::from_secs(10);

/// Keys kept at most; past it, those whose window has passed are forgotten.
const KEPT: usize = 4096;

/// When each (room, kind) was last said, and how many were held back since.
#[derive(Default)]
pub(super) struct Repeats {
    said: HashMap<(u32, &'static str), (Instant, u64)>,
}

impl Repeats {
    /// Whether a warning of `kind` for `room` is said now: `Some(held back since the last one)`,
    /// or `None` to hold it back.
    pub(super) fn say(&mut self, room: u32, kind: &'static str, now: Instant) -> Option<u64> {
        if self.said.len() >= KEPT {
            self.said
                .retain(|_, (at, _)| now.duration_since(*at) < WINDOW);
        }
        match self.said.get_mut(&(room, kind)) {
            Some((at, held)) if now.duration_since(*at) < WINDOW => {
                *held += 1;
                None
            }
            Some((at, held)) => {
                let before = std::mem::take(held);
                *at = now;
                Some(before)
            }
            None => {
                self.said.insert((room, kind), (now, 0));
                Some(0)
            }
        }
    }
}

/// ` (N more like it in the last 10 s)`, or nothing.
pub(super) fn held_back(n: u64) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(" ({n} more like it in the last {} s)", WINDOW.as_secs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_room_repeating_a_warning_every_100_ms_logs_it_once_per_window_with_a_count() {
        let mut repeats = Repeats::default();
        let start = Instant::now();
        let mut said = Vec::new();
        // 25 s of retries every 100 ms for room 7, and one other room and kind in between.
        for i in 0..250u32 {
            let now = start + Duration::from_millis(100 * u64::from(i));
            if let Some(n) = repeats.say(7, "claim", now) {
                said.push((i, n));
            }
        }
        assert_eq!(said, [(0, 0), (100, 99), (200, 99)]);
        assert_eq!(repeats.say(8, "claim", start), Some(0), "rooms are apart");
        assert_eq!(repeats.say(7, "deliver", start), Some(0), "kinds are apart");
        assert_eq!(held_back(0), "");
        assert_eq!(held_back(99), " (99 more like it in the last 10 s)");
    }
}
