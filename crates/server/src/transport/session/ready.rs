//! READY, the message that takes a seat: every field checked here, in the course server's
//! order, before the room sees it.

use std::sync::atomic::Ordering;

use arbiter_core::Side;

use super::super::house;
use super::{Refused, Session, MAX_EXTENDED_ROOM};
use crate::games::{GameClock, GameSettings, Requested, CLOCK_RANGE, INCREMENT_RANGE};
use crate::protocol::{self, Message, ReadyCommand};
use crate::rooms::{log_command, send, Ready, RoomEvent};
use crate::storage::players;

/// What a READY asks for, checked.
struct CheckedReady {
    name: String,
    colour: Option<Side>,
    room: u32,
    request: Requested,
    token: Option<String>,
    resume: bool,
    secret: Option<String>,
    /// The level of the server's AI to seat opposite, when the READY asks for it.
    house_level: Option<&'static str>,
}

impl Session {
    /// A READY checked here (name, colour, room, game and options, token), then sent to its
    /// room; a bad one is answered with a REJECT to this client only.
    pub(super) fn ready(&mut self, sent: ReadyCommand) {
        let checked = self.check_ready(&sent).and_then(|ready| {
            if self.hub.is_closing() {
                return Err(Refused::ShuttingDown);
            }
            Ok(ready)
        });
        let ready = match checked {
            Ok(ready) => ready,
            Err(reason) => return self.refuse_ready(&sent, &reason),
        };
        if let Some(old) = self.room.filter(|&old| old != ready.room) {
            let peer = self.peer.clone();
            self.hub.send(old, RoomEvent::Leave { peer, leave: None });
        }
        self.progress();
        let room = ready.room;
        self.room = Some(room);
        let house = ready
            .house_level
            .map(|level| (level, house::ready_for_ai(&sent, level)));
        let ready = Ready {
            sent,
            name: ready.name,
            colour: ready.colour,
            request: ready.request,
            token: ready.token,
            resume: ready.resume,
            secret: ready.secret,
        };
        let event = RoomEvent::Ready {
            peer: self.peer.clone(),
            ready,
        };
        self.hub.send(room, event);
        if let (Some((level, ai_ready)), Some(seats)) = (house, &self.config.house) {
            let (hub, config) = (self.hub.clone(), self.config.clone());
            house::seat(seats, hub, config, room, level, ai_ready);
        }
    }

    /// A bad READY: `REJECT(name, reason, "")` to this client only.
    fn refuse_ready(&self, sent: &ReadyCommand, reason: &Refused) {
        log_command(None, &self.peer.addr, sent);
        let reject = Message::new(protocol::REJECT, sent.name.clone(), reason.to_string(), "");
        send(&self.peer, reject, None);
    }

    /// The server's AI a READY asks for (`opponent`, `level`), checked: `None` when it asks
    /// for none.
    fn house_level(&self, message: &ReadyCommand) -> Result<Option<&'static str>, Refused> {
        let text = |key: &str| {
            message
                .extra
                .get(key)
                .map(|v| v.as_str().unwrap_or_default())
        };
        let level = match text("level") {
            None => house::DEFAULT_LEVEL,
            Some(level) => *house::LEVELS
                .iter()
                .find(|l| **l == level)
                .ok_or(Refused::Level)?,
        };
        match text("opponent") {
            None if message.extra.contains_key("level") => Err(Refused::LevelWithoutOpponent),
            None => Ok(None),
            Some("ai") if self.config.house.is_none() => Err(Refused::NoHouseAi),
            Some("ai") if yes_or_no(message, "rated")? => Err(Refused::RatedAgainstAi),
            Some("ai") => Ok(Some(level)),
            Some(_) => Err(Refused::Opponent),
        }
    }

    /// A READY's fields, each checked, in the order the course's server checks them.
    fn check_ready(&self, message: &ReadyCommand) -> Result<CheckedReady, Refused> {
        let name = message.name.clone();
        let page = message.extra.contains_key("game") || message.extra.contains_key("token");
        // A page's player names itself in any script; a course client as the course says.
        if page {
            players::check_name(&name)?;
        } else if name.len() > 64 || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(Refused::Username);
        }
        let secret = match message.extra.get("secret") {
            None => None,
            Some(secret) => {
                let secret = secret.as_str().filter(|s| valid_token(s));
                Some(secret.ok_or(Refused::Secret)?.to_string())
            }
        };
        let colour =
            match message.colour.as_str() {
                "" => None,
                word => Some(self.config.registry.parse_colour(word).ok_or_else(|| {
                    Refused::Colour(arbiter_core::text::shorten(word).to_string())
                })?),
            };
        let extended = message.extra.contains_key("game");
        let room = parse_room(&message.room, extended)?;
        let request = self.request(message)?;
        let token = match message.extra.get("token") {
            None => None,
            Some(value) => {
                let token = value.as_str().filter(|t| valid_token(t));
                Some(token.ok_or(Refused::Token)?.to_string())
            }
        };
        // `resume`: only take back the seat the token holds.
        let resume = yes_or_no(message, "resume")?;
        let house_level = self.house_level(message)?;
        if extended || token.is_some() {
            self.peer.extension.store(true, Ordering::Relaxed);
        }
        Ok(CheckedReady {
            name,
            colour,
            room,
            request,
            token,
            resume,
            secret,
            house_level,
        })
    }

    /// What a READY asks for: the extension key `game` (the course's game without it), each
    /// option of that game it names, and the time control; every value checked.
    fn request(&self, message: &ReadyCommand) -> Result<Requested, Refused> {
        let game = match message.extra.get("game") {
            None => protocol::COURSE_GAME,
            Some(value) => value.as_str().ok_or(Refused::GameNotText)?,
        };
        let def = self.config.registry.definition(game)?;
        let number = |key: &str| message.extra_u64(key).transpose();
        let mut options = Vec::new();
        for (key, _) in message.extra.iter() {
            if matches!(
                key.as_str(),
                "game"
                    | "timeout_ms"
                    | "clock_ms"
                    | "increment_ms"
                    | "training"
                    | "rated"
                    | "opponent"
                    | "level"
            ) || protocol::is_client_key(key)
            {
                continue;
            }
            let value = number(key)?.expect("the key is present");
            let mut check = def.defaults();
            check.set(key, value)?;
            let option = def.option(key).expect("checked just now");
            options.push((option.name, value as u32));
        }
        let timeout_ms = number("timeout_ms")?
            .map(GameSettings::check_timeout)
            .transpose()?;
        let clock = match (number("clock_ms")?, number("increment_ms")?) {
            (None, None) => None,
            (None, Some(_)) => return Err(Refused::IncrementWithoutClock),
            (Some(initial_ms), increment) => {
                let increment_ms = increment.unwrap_or(0);
                if !CLOCK_RANGE.contains(&initial_ms) || !INCREMENT_RANGE.contains(&increment_ms) {
                    return Err(Refused::Clock);
                }
                Some(GameClock {
                    initial_ms,
                    increment_ms,
                })
            }
        };
        Ok(Requested {
            game: def,
            options,
            timeout_ms,
            clock,
            opening_timeout_ms: self.config.opening_timeout_ms,
            training: yes_or_no(message, "training")?,
            rated: yes_or_no(message, "rated")?,
        })
    }
}

/// The extension keys `training` (the pages warn before a losing move) and `rated` (the games
/// count for the ratings): `1` asks for such a room, `0` or none does not.
fn yes_or_no(message: &ReadyCommand, key: &'static str) -> Result<bool, Refused> {
    match message.extra_u64(key).transpose()? {
        None | Some(0) => Ok(false),
        Some(1) => Ok(true),
        Some(_) => Err(Refused::YesOrNo(key)),
    }
}

/// A seat token: 128 random bits as 32 lowercase hex digits (the page makes one with
/// `crypto.getRandomValues`), nothing shorter or guessable.
const TOKEN_HEX_DIGITS: usize = 32;

fn valid_token(token: &str) -> bool {
    token.len() == TOKEN_HEX_DIGITS
        && token
            .bytes()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
}

/// Reads a room number: `""` is room 1; 0-255, or up to [`MAX_EXTENDED_ROOM`] for extension clients.
pub(super) fn parse_room(text: &str, extended: bool) -> Result<u32, Refused> {
    if text.is_empty() {
        return Ok(1);
    }
    let limit = if extended { MAX_EXTENDED_ROOM } else { 255 };
    match text.parse::<u64>() {
        Ok(n) if n <= limit => Ok(n as u32),
        _ => Err(Refused::Room {
            text: arbiter_core::text::shorten(text).to_string(),
            limit,
        }),
    }
}
