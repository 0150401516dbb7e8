//! What a client may send, typed: a [`Message`] is read into a [`ClientCommand`] once, where the
//! connection reads it, so rooms and the cluster's wire never read fields by position.
//!
//! Every command keeps what the client sent, also what nothing reads ([`Unread`]): the log shows
//! each received message exactly as it came, rendered back from the command
//! ([`Command::fields`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::words::{OfferAction, OfferKind, Word};
use super::{extra_u64, FieldError, Message, Op};

/// A command as its message: its op and `data1..3` as they came.
pub trait Command {
    const OP: Op;
    fn fields(&self) -> [&str; 3];

    /// The message it was read from (without extension keys, which the log never shows).
    fn to_message(&self) -> Message {
        let [data1, data2, data3] = self.fields();
        Message::new(Self::OP.code(), data1, data2, data3)
    }
}

/// What a client put in fields its command leaves empty (`""` in docs/protocol.md): nothing
/// reads it, but the log shows it. Only the positions the command does not name are kept.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unread(pub [String; 3]);

impl Unread {
    /// Only `data3` is unread.
    fn third(data3: String) -> Unread {
        Unread([String::new(), String::new(), data3])
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(String::is_empty)
    }
}

/// `READY(name, colour, room)` and its extension keys, as words: what they mean depends on the
/// game and the transport, which check them (`transport::session::ready`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReadyCommand {
    pub name: String,
    pub colour: String,
    pub room: String,
    #[serde(default)]
    pub extra: Map<String, Value>,
}

impl ReadyCommand {
    /// An extension integer key (a JSON number or a decimal string).
    pub fn extra_u64(&self, key: &str) -> Option<Result<u64, FieldError>> {
        extra_u64(&self.extra, key)
    }
}

/// `MOVE(from, to, "")`: squares as the game names them (the game reads them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveCommand {
    pub from: String,
    pub to: String,
    #[serde(default, skip_serializing_if = "Unread::is_empty")]
    pub unread: Unread,
}

impl MoveCommand {
    pub fn new(from: impl Into<String>, to: impl Into<String>) -> MoveCommand {
        let (from, to) = (from.into(), to.into());
        MoveCommand {
            from,
            to,
            unread: Unread::default(),
        }
    }
}

/// `RESIGN("", "", "")`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResignCommand {
    #[serde(default, skip_serializing_if = "Unread::is_empty")]
    pub unread: Unread,
}

/// `LEAVE(name, reason, "")`: the reason is relayed to the opponent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaveCommand {
    pub name: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Unread::is_empty")]
    pub unread: Unread,
}

impl LeaveCommand {
    pub fn new(name: impl Into<String>, reason: impl Into<String>) -> LeaveCommand {
        let (name, reason) = (name.into(), reason.into());
        LeaveCommand {
            name,
            reason,
            unread: Unread::default(),
        }
    }
}

/// `CHAT(name, text, room)`: a player's name is the room's, a spectator's its own; `room`
/// names the watched room a spectator's line is for.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatCommand {
    pub name: String,
    pub text: String,
    pub room: String,
}

/// `OFFER(kind, action, "")`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfferCommand {
    pub kind: Word<OfferKind>,
    pub action: Word<OfferAction>,
    #[serde(default, skip_serializing_if = "Unread::is_empty")]
    pub unread: Unread,
}

impl OfferCommand {
    /// An offer from its two words, as a client sends them.
    pub fn new(kind: impl Into<String>, action: impl Into<String>) -> OfferCommand {
        OfferCommand {
            kind: Word::read(kind.into()),
            action: Word::read(action.into()),
            unread: Unread::default(),
        }
    }
}

/// `WATCH(room, "", "")`: the room as a word (the transport reads its number).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchCommand {
    pub room: String,
    #[serde(default, skip_serializing_if = "Unread::is_empty")]
    pub unread: Unread,
}

impl WatchCommand {
    pub fn new(room: impl Into<String>) -> WatchCommand {
        let room = room.into();
        WatchCommand {
            room,
            unread: Unread::default(),
        }
    }
}

/// `UNWATCH(room, "", "")`, `""` for every watched room.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnwatchCommand {
    pub room: String,
    #[serde(default, skip_serializing_if = "Unread::is_empty")]
    pub unread: Unread,
}

/// Implements [`Command`] from the names of a command's three positions (`unread.N` for an
/// unread one).
macro_rules! command {
    ($type:ty, $op:expr, |$c:ident| $fields:expr) => {
        impl Command for $type {
            const OP: Op = $op;
            fn fields(&self) -> [&str; 3] {
                let $c = self;
                $fields
            }
        }
    };
}

command!(ReadyCommand, Op::Ready, |c| [&c.name, &c.colour, &c.room]);
command!(MoveCommand, Op::Move, |c| [&c.from, &c.to, &c.unread.0[2]]);
command!(ResignCommand, Op::Resign, |c| {
    let [a, b, d] = &c.unread.0;
    [a, b, d]
});
command!(LeaveCommand, Op::Leave, |c| [
    &c.name,
    &c.reason,
    &c.unread.0[2]
]);
command!(ChatCommand, Op::Chat, |c| [&c.name, &c.text, &c.room]);
command!(OfferCommand, Op::Offer, |c| [
    c.kind.text(),
    c.action.text(),
    &c.unread.0[2]
]);
command!(WatchCommand, Op::Watch, |c| [
    &c.room,
    &c.unread.0[1],
    &c.unread.0[2]
]);
command!(UnwatchCommand, Op::Unwatch, |c| [
    &c.room,
    &c.unread.0[1],
    &c.unread.0[2]
]);

/// A message a client may send, read.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientCommand {
    Ready(ReadyCommand),
    Move(MoveCommand),
    Resign(ResignCommand),
    Leave(LeaveCommand),
    Chat(ChatCommand),
    Offer(OfferCommand),
    Watch(WatchCommand),
    Unwatch(UnwatchCommand),
}

impl ClientCommand {
    /// The command a message is; the message back when its op is not one a client sends
    /// (the server's own, or none). Extension keys are kept for READY alone: only its are read.
    pub fn read(m: Message) -> Result<ClientCommand, Message> {
        let Some(op) = Op::from_code(m.op).filter(|op| op.client_sends()) else {
            return Err(m);
        };
        let Message {
            data1,
            data2,
            data3,
            extra,
            ..
        } = m;
        let tail = |data2, data3| Unread([String::new(), data2, data3]);
        Ok(match op {
            Op::Ready => ClientCommand::Ready(ReadyCommand {
                name: data1,
                colour: data2,
                room: data3,
                extra,
            }),
            Op::Move => ClientCommand::Move(MoveCommand {
                from: data1,
                to: data2,
                unread: Unread::third(data3),
            }),
            Op::Resign => ClientCommand::Resign(ResignCommand {
                unread: Unread([data1, data2, data3]),
            }),
            Op::Leave => ClientCommand::Leave(LeaveCommand {
                name: data1,
                reason: data2,
                unread: Unread::third(data3),
            }),
            Op::Chat => ClientCommand::Chat(ChatCommand {
                name: data1,
                text: data2,
                room: data3,
            }),
            Op::Offer => ClientCommand::Offer(OfferCommand {
                kind: Word::read(data1),
                action: Word::read(data2),
                unread: Unread::third(data3),
            }),
            Op::Watch => ClientCommand::Watch(WatchCommand {
                room: data1,
                unread: tail(data2, data3),
            }),
            _ => ClientCommand::Unwatch(UnwatchCommand {
                room: data1,
                unread: tail(data2, data3),
            }),
        })
    }

    pub fn op(&self) -> Op {
        match self {
            ClientCommand::Ready(_) => Op::Ready,
            ClientCommand::Move(_) => Op::Move,
            ClientCommand::Resign(_) => Op::Resign,
            ClientCommand::Leave(_) => Op::Leave,
            ClientCommand::Chat(_) => Op::Chat,
            ClientCommand::Offer(_) => Op::Offer,
            ClientCommand::Watch(_) => Op::Watch,
            ClientCommand::Unwatch(_) => Op::Unwatch,
        }
    }

    /// Its op and `data1..3` as they came.
    pub fn fields(&self) -> [&str; 3] {
        match self {
            ClientCommand::Ready(c) => c.fields(),
            ClientCommand::Move(c) => c.fields(),
            ClientCommand::Resign(c) => c.fields(),
            ClientCommand::Leave(c) => c.fields(),
            ClientCommand::Chat(c) => c.fields(),
            ClientCommand::Offer(c) => c.fields(),
            ClientCommand::Watch(c) => c.fields(),
            ClientCommand::Unwatch(c) => c.fields(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str) -> ClientCommand {
        ClientCommand::read(Message::parse(line).unwrap()).unwrap()
    }

    #[test]
    fn a_command_renders_the_fields_it_was_read_from() {
        for line in [
            r#"{"op":200000,"data1":"alice","data2":"red","data3":"01","game":"duck"}"#,
            r#"{"op":200001,"data1":"A2","data2":"A3","data3":"x"}"#,
            r#"{"op":200002,"data1":"a","data2":"b","data3":"c"}"#,
            r#"{"op":200004,"data1":"bob","data2":"bye","data3":"z"}"#,
            r#"{"op":200005,"data1":"bob","data2":"hi","data3":"7"}"#,
            r#"{"op":200104,"data1":"draw","data2":"maybe","data3":"q"}"#,
            r#"{"op":200104,"data1":"dance","data2":"","data3":""}"#,
            r#"{"op":200100,"data1":"5","data2":"y","data3":""}"#,
            r#"{"op":200102,"data1":"","data2":"","data3":"w"}"#,
        ] {
            let message = Message::parse(line).unwrap();
            let command = ClientCommand::read(message.clone()).unwrap();
            let fields = [&*message.data1, &*message.data2, &*message.data3];
            assert_eq!(command.fields(), fields, "{line}");
            assert_eq!(command.op().code(), message.op);
        }
    }

    #[test]
    fn offers_read_their_words_and_keep_unknown_ones() {
        let ClientCommand::Offer(offer) = read(r#"{"op":200104,"data1":"draw","data2":"accept"}"#)
        else {
            panic!("an offer")
        };
        assert_eq!(offer.kind, Word::Known(OfferKind::Draw));
        assert_eq!(offer.action, Word::Known(OfferAction::Accept));
        let odd = OfferCommand::new("dance", "now");
        assert_eq!(odd.kind, Word::Unknown("dance".into()));
        let json = serde_json::to_string(&odd).unwrap();
        assert_eq!(json, r#"{"kind":"dance","action":"now"}"#);
        assert_eq!(serde_json::from_str::<OfferCommand>(&json).unwrap(), odd);
        let known = serde_json::to_string(&offer).unwrap();
        assert_eq!(serde_json::from_str::<OfferCommand>(&known).unwrap(), offer);
    }

    #[test]
    fn the_servers_own_ops_are_no_commands() {
        for op in [Op::Reject, Op::End, Op::State, Op::Notice] {
            let m = Message::new(op.code(), "a", "", "");
            assert_eq!(ClientCommand::read(m.clone()), Err(m));
        }
        assert!(ClientCommand::read(Message::new(7, "", "", "")).is_err());
    }
}
