//! Players a cluster's owner cannot reach: a player whose connection runs through another node
//! cannot act while the owner does not hear that node (nats-server frozen, the node's link
//! down), so its time stands from when the node was last heard until it is heard again
//! (docs/cluster.md, "Failures").

use tokio::time::Instant;

use super::{ConnId, Room};

impl Room {
    /// `conn`'s node was last heard at `unheard_since`, or (`None`) is heard again.
    pub(super) fn reach(&mut self, conn: ConnId, unheard_since: Option<Instant>) {
        let to_move = self.to_move_conn() == Some(conn);
        match unheard_since {
            Some(since) => {
                self.out_of_reach.insert(conn);
                if let (true, Some(running)) = (to_move, self.running.as_mut()) {
                    running.clock.pause(since.min(Instant::now()));
                }
            }
            None => {
                self.out_of_reach.remove(&conn);
                let present = self.member(conn).is_some_and(|i| !self.members[i].away);
                if to_move && present {
                    self.told_to_move();
                }
            }
        }
    }

    /// Whether the owner hears the node of the side to move (always, for a local player).
    pub(super) fn to_move_is_reachable(&self) -> bool {
        self.to_move_conn()
            .is_none_or(|conn| !self.out_of_reach.contains(&conn))
    }

    /// The connection of the side to move in a running game.
    fn to_move_conn(&self) -> Option<ConnId> {
        let running = self.running.as_ref().filter(|r| !r.game.is_over())?;
        Some(running.players[running.game.to_move().index()])
    }
}
