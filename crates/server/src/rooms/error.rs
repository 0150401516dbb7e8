//! Why a room refuses a READY. The texts go to the client in a REJECT, as they always have.

use crate::games::SettingsError;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the room is playing a game")]
    Playing,
    #[error("the server is shutting down")]
    ShuttingDown,
    #[error("the room is full")]
    Full,
    #[error("that colour is taken")]
    ColourTaken,
    #[error(transparent)]
    Settings(#[from] SettingsError),
}
