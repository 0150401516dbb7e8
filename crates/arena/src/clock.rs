//! Game clocks: `--tc BASE+INC`, each side's time left, and the loss on time.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use arbiter_core::Side;

/// A clock of `base` for the whole game, `increment` added after each of one's moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub base: Duration,
    pub increment: Duration,
}

impl FromStr for TimeControl {
    type Err = String;

    /// `60+0.5`, `10`, `0.5+0.05`: seconds, as fastchess's `tc=`.
    fn from_str(text: &str) -> Result<TimeControl, String> {
        let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
        let seconds = |part: &str, what: &str| {
            let value: f64 = part.trim().parse().map_err(|_| {
                format!("--tc takes BASE+INC in seconds, like 10+0.1: `{part}` is not a number")
            })?;
            if !value.is_finite() || !(0.0..=86_400.0).contains(&value) {
                return Err(format!(
                    "--tc: the {what} must be 0 to 86400 seconds, not {part}"
                ));
            }
            Ok(Duration::from_secs_f64(value))
        };
        let tc = TimeControl {
            base: seconds(base, "base time")?,
            increment: seconds(increment, "increment")?,
        };
        if tc.base.is_zero() {
            return Err("--tc: the base time must be more than 0 seconds".into());
        }
        Ok(tc)
    }
}

impl fmt::Display for TimeControl {
    /// `1+0`, `2+0.05`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}+{}",
            self.base.as_secs_f64(),
            self.increment.as_secs_f64()
        )
    }
}

/// Both sides' time during one game.
#[derive(Clone, Debug)]
pub struct Clock {
    pub left: [Duration; 2],
    pub increment: Duration,
}

impl Clock {
    pub fn new(tc: TimeControl) -> Clock {
        Clock {
            left: [tc.base; 2],
            increment: tc.increment,
        }
    }

    /// Charges `side` for a move that took `used`: `Err` with its time left when the flag fell,
    /// else the increment is added.
    pub fn charge(&mut self, side: Side, used: Duration) -> Result<(), Duration> {
        let left = &mut self.left[side.index()];
        if used > *left {
            return Err(*left);
        }
        *left = *left - used + self.increment;
        Ok(())
    }

    /// `wtime W btime B winc I binc I` in milliseconds, where `w` is `white` (the side called
    /// white, else the side that moves first: see docs/engine-protocol.md).
    pub fn go_words(&self, white: Side) -> String {
        let ms = |d: Duration| d.as_millis();
        let inc = ms(self.increment);
        format!(
            "wtime {} btime {} winc {inc} binc {inc}",
            ms(self.left[white.index()]),
            ms(self.left[white.opponent().index()])
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_read_and_print_as_given() {
        let tc: TimeControl = "2+0.05".parse().unwrap();
        assert_eq!(tc.base, Duration::from_secs(2));
        assert_eq!(tc.increment, Duration::from_millis(50));
        assert_eq!(tc.to_string(), "2+0.05");
        assert_eq!("1".parse::<TimeControl>().unwrap().to_string(), "1+0");
        for bad in ["", "x+1", "1+y", "0", "-1+0", "1+-2", "nan"] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_flag_falls_when_a_move_takes_more_than_is_left() {
        let mut clock = Clock::new("1+0.1".parse().unwrap());
        assert_eq!(
            clock.charge(Side::First, Duration::from_millis(600)),
            Ok(())
        );
        assert_eq!(clock.left[0], Duration::from_millis(500));
        assert_eq!(
            clock.charge(Side::First, Duration::from_millis(501)),
            Err(Duration::from_millis(500))
        );
        assert_eq!(
            clock.go_words(Side::Second),
            "wtime 1000 btime 500 winc 100 binc 100"
        );
    }
}
