//! The ops of docs/protocol.md: one enum, so a code, its name in the logs and the API's table
//! cannot drift apart.

/// Every op of the protocol, the course's and the project's extension's, by its wire code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i64)]
pub enum Op {
    Ready = 200000,
    Move = 200001,
    Resign = 200002,
    Reject = 200003,
    Leave = 200004,
    Chat = 200005,
    End = 200006,
    /// The extension: watch a room (`data1` = room).
    Watch = 200100,
    /// The extension: the state of a watched room (`data1` = JSON snapshot).
    State = 200101,
    /// The extension: stop watching (`data1` = room, `""` for all).
    Unwatch = 200102,
    /// The extension, to clients that speak it: a player's connection dropped (`data1` =
    /// `away`, `data2` = the name, `data3` = seconds its seat is held) or came back (`back`).
    Notice = 200103,
    /// The extension, between two players that both speak it: `OFFER(kind, action, "")` from a
    /// player (see [`super::OfferCommand`]); the room tells both players and the spectators
    /// `OFFER(kind, action, name)`, and the sender alone `OFFER(kind, "refused", why)`.
    Offer = 200104,
}

impl Op {
    pub const ALL: [Op; 12] = [
        Op::Ready,
        Op::Move,
        Op::Resign,
        Op::Reject,
        Op::Leave,
        Op::Chat,
        Op::End,
        Op::Watch,
        Op::State,
        Op::Unwatch,
        Op::Notice,
        Op::Offer,
    ];

    /// The code on the wire.
    pub const fn code(self) -> i64 {
        self as i64
    }

    pub fn from_code(code: i64) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.code() == code)
    }

    /// A client may send it (the rest are the server's).
    pub fn client_sends(self) -> bool {
        !matches!(self, Op::Reject | Op::End | Op::State | Op::Notice)
    }

    /// The name in docs/protocol.md, the logs and `GET /api/protocol`.
    pub fn name(self) -> &'static str {
        match self {
            Op::Ready => "READY",
            Op::Move => "MOVE",
            Op::Resign => "RESIGN",
            Op::Reject => "REJECT",
            Op::Leave => "LEAVE",
            Op::Chat => "CHAT",
            Op::End => "END",
            Op::Watch => "WATCH",
            Op::State => "STATE",
            Op::Unwatch => "UNWATCH",
            Op::Notice => "NOTICE",
            Op::Offer => "OFFER",
        }
    }
}

/// The name of a code, `UNKNOWN` for one no op has.
pub fn op_name(code: i64) -> &'static str {
    Op::from_code(code).map_or("UNKNOWN", Op::name)
}

// The codes as integers, for the code that builds and matches messages by their op.
pub const READY: i64 = Op::Ready.code();
pub const MOVE: i64 = Op::Move.code();
pub const RESIGN: i64 = Op::Resign.code();
pub const REJECT: i64 = Op::Reject.code();
pub const LEAVE: i64 = Op::Leave.code();
pub const CHAT: i64 = Op::Chat.code();
pub const END: i64 = Op::End.code();
pub const WATCH: i64 = Op::Watch.code();
pub const STATE: i64 = Op::State.code();
pub const UNWATCH: i64 = Op::Unwatch.code();
pub const NOTICE: i64 = Op::Notice.code();
pub const OFFER: i64 = Op::Offer.code();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_reads_back_from_its_code() {
        for op in Op::ALL {
            assert_eq!(Op::from_code(op.code()), Some(op));
            assert_eq!(op_name(op.code()), op.name());
        }
        assert_eq!(MOVE, 200001);
        assert_eq!(OFFER, 200104);
        assert_eq!(op_name(1), "UNKNOWN");
    }
}
