//! Names and ratings in a room: a READY's name is checked against the names players hold (a
//! page proves its own with the secret its browser keeps, the extension key `secret`); a rated
//! room takes only players who hold their names, and its finished games count for their
//! ratings, told in END's extension key `ratings`.

use arbiter_core::EndReason;

use super::Room;
use crate::games::Requested;
use crate::protocol::{self, Message, Winner};
use crate::rooms::Peer;
use crate::storage::players::secret_hash;
use crate::storage::{NameClaim, RatedGame, Rating};

/// A page's guest name (`guest` and digits): never rated, so the lobby never lists a guest's
/// seek as rated.
fn is_guest_name(name: &str) -> bool {
    name.strip_prefix("guest")
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

impl Room {
    /// Whether `name` may take a seat: refused (and told why) when another player holds it,
    /// or when a rated room is asked for by a player who does not hold it.
    pub(super) async fn name_allowed(
        &mut self,
        peer: &Peer,
        name: &str,
        secret: Option<&str>,
        request: &Requested,
    ) -> bool {
        let claim = self
            .ctx
            .store
            .check_name(name.to_string(), secret.map(secret_hash))
            .await;
        let refusal = match claim {
            Ok(NameClaim::Taken) => {
                // Coded, so a page can tell it from the rest and take another guest name.
                let why = format!("the name {name} is held by another player");
                let mut m = Message::new(protocol::REJECT, name, why, "");
                m.extra.insert("code".into(), "name_held".into());
                self.send_to(peer, m);
                return false;
            }
            Ok(_) if request.rated && is_guest_name(name) => {
                "a rated game needs a name of your own, not a guest's (choose one on the home page)"
                    .into()
            }
            Ok(NameClaim::Free) if request.rated => {
                "a rated game needs a name of your own (choose one on the home page)".into()
            }
            Ok(_) => return true,
            Err(e) if request.rated => format!("the names cannot be checked now: {e}"),
            Err(e) => {
                tracing::warn!("room {}: name {name} not checked: {e}", self.id);
                return true;
            }
        };
        self.reject(peer, name, &refusal);
        false
    }

    /// A rated game that ended with a result: both ratings updated; the new ratings and their
    /// changes, `[[rating, change], …]` rounded, for END (none for an unrated game or when the
    /// store refused).
    pub(super) async fn count_rating(
        &self,
        reason: EndReason,
        winner: Winner,
    ) -> Option<serde_json::Value> {
        let running = self.running.as_ref()?;
        let settings = &running.game.settings;
        let no_result = matches!(
            reason,
            EndReason::Aborted | EndReason::Interrupted | EndReason::Abandoned
        );
        if !settings.rated || no_result {
            return None;
        }
        let class = settings.rating_class();
        let rated = RatedGame {
            game_id: running.id,
            class: class.clone(),
            players: running.names.clone(),
            winner,
        };
        let before = self.ratings_of(&running.names, &class).await;
        match self.ctx.store.rate_game(rated).await {
            Ok(after) => {
                let told = |i: usize| {
                    let change = after[i].rating - before[i].rating;
                    serde_json::json!([after[i].rating.round(), change.round()])
                };
                Some(serde_json::json!([told(0), told(1)]))
            }
            Err(e) => {
                tracing::error!(
                    "room {}: ratings of game {} not stored: {e}",
                    self.id,
                    running.id
                );
                None
            }
        }
    }

    /// Both players' ratings in `class` before the game.
    async fn ratings_of(&self, names: &[String; 2], class: &str) -> [Rating; 2] {
        let mut ratings = [Rating::default(); 2];
        for (name, slot) in names.iter().zip(ratings.iter_mut()) {
            let record = self.ctx.store.player(name.clone()).await.ok().flatten();
            let found = record.and_then(|p| p.ratings.into_iter().find(|r| r.class == class));
            if let Some(r) = found {
                *slot = r.rating;
            }
        }
        ratings
    }
}
