//! Where a client's message becomes a command: read once into a [`ClientCommand`], then handed
//! to the room it is for (READY through `ready.rs`, which checks it first), or answered here
//! when no room can take it.

use super::ready::parse_room;
use super::{Refused, Session, MAX_WATCHED};
use crate::protocol::{
    self, ChatCommand, ClientCommand, LeaveCommand, Message, UnwatchCommand, WatchCommand,
};
use crate::rooms::{log_command, log_fields, log_message, send, RoomEvent};

impl Session {
    /// Reads a message into the command it is, once, and hands it to the room it is for (or
    /// answers it here).
    pub(super) fn route(&mut self, message: Message) {
        let command = match ClientCommand::read(message) {
            Ok(command) => command,
            Err(message) => return self.not_a_command(&message),
        };
        match command {
            ClientCommand::Ready(ready) => self.ready(ready),
            ClientCommand::Leave(leave) => self.leave(leave),
            ClientCommand::Watch(watch) => self.watch(watch),
            ClientCommand::Unwatch(unwatch) => self.unwatch(unwatch),
            play => self.play(play),
        }
    }

    /// A message whose op no client sends (the server's own, or none).
    fn not_a_command(&self, message: &Message) {
        log_message(None, "recv (ignored)", &self.peer.addr, message);
        let why = format!("op {} is not one a client sends", message.op);
        send(
            &self.peer,
            Message::new(protocol::NOTICE, "error", "", why),
            None,
        );
    }

    /// A player's command from a connection seated nowhere: answered with the extension's
    /// NOTICE, so a client that forgot READY learns why nothing happens.
    fn not_in_a_room(&self, command: &ClientCommand) {
        let direction = "recv (not in a room, ignored)";
        let op = command.op().name();
        log_fields(None, direction, &self.peer.addr, op, command.fields());
        let why = format!("{op} needs a seat: send READY first");
        send(
            &self.peer,
            Message::new(protocol::NOTICE, "error", "", why),
            None,
        );
    }

    /// MOVE, RESIGN, CHAT and OFFER go to the connection's room; a spectator's CHAT to the room
    /// it watches (the spectators' channel).
    fn play(&mut self, command: ClientCommand) {
        let chat = match &command {
            ClientCommand::Chat(chat) => Some(chat),
            _ => None,
        };
        let Some(room) = self.room.or_else(|| self.watched_for_chat(chat?)) else {
            return self.not_in_a_room(&command);
        };
        if chat.is_none() {
            self.progress();
        }
        let peer = self.peer.clone();
        let event = match command {
            ClientCommand::Move(mv) => RoomEvent::Move {
                peer,
                mv,
                ply: None,
            },
            ClientCommand::Resign(resign) => RoomEvent::Resign { peer, resign },
            ClientCommand::Offer(offer) => RoomEvent::Offer { peer, offer },
            ClientCommand::Chat(chat) => RoomEvent::Chat { peer, chat },
            other => unreachable!("routed elsewhere: {other:?}"),
        };
        self.hub.send(room, event);
    }

    /// The room a spectator's CHAT is for: the one it names, or the only one it watches.
    fn watched_for_chat(&self, chat: &ChatCommand) -> Option<u32> {
        match parse_room(&chat.room, true) {
            Ok(room) if !chat.room.is_empty() => self.watching.contains(&room).then_some(room),
            _ if self.watching.len() == 1 => self.watching.iter().next().copied(),
            _ => None,
        }
    }

    fn leave(&mut self, leave: LeaveCommand) {
        let Some(room) = self.room.take() else {
            return self.not_in_a_room(&ClientCommand::Leave(leave));
        };
        self.progress();
        let peer = self.peer.clone();
        let event = RoomEvent::Leave {
            peer,
            leave: Some(leave),
        };
        self.hub.send(room, event);
    }

    fn watch(&mut self, watch: WatchCommand) {
        match self.watchable(&watch.room) {
            Ok(room) => {
                self.progress();
                self.watching.insert(room);
                let peer = self.peer.clone();
                self.hub.send(room, RoomEvent::Watch { peer, watch });
            }
            Err(reason) => {
                log_command(None, &self.peer.addr, &watch);
                let reject = Message::new(protocol::REJECT, "", reason.to_string(), "");
                send(&self.peer, reject, None);
            }
        }
    }

    /// Stops watching the room named, or every room when none is.
    fn unwatch(&mut self, unwatch: UnwatchCommand) {
        log_command(None, &self.peer.addr, &unwatch);
        let rooms: Vec<u32> = match parse_room(&unwatch.room, true) {
            Ok(room) if !unwatch.room.is_empty() => vec![room],
            _ => self.watching.iter().copied().collect(),
        };
        for room in rooms {
            self.watching.remove(&room);
            self.hub
                .send(room, RoomEvent::Unwatch { conn: self.peer.id });
        }
    }

    /// The room a WATCH names, unless the connection already watches too many.
    fn watchable(&self, text: &str) -> Result<u32, Refused> {
        let room = parse_room(text, true)?;
        if !self.watching.contains(&room) && self.watching.len() >= MAX_WATCHED {
            return Err(Refused::WatchingTooMany);
        }
        Ok(room)
    }
}
