//! The stored games, fetched over the HTTP API and compared with what the bots saw.

use std::net::SocketAddr;

use arbiter_server::client::http_get;

use crate::bot::BotResult;
use crate::LoadtestReport;

/// How many of the bots' games are stored exactly as they saw them; each other one is an
/// error in `report`.
pub(crate) async fn stored_games(
    http: SocketAddr,
    bots: &[&BotResult],
    report: &mut LoadtestReport,
) -> usize {
    let mut verified = 0;
    for bot in bots {
        match check(http, bot).await {
            Ok(()) => verified += 1,
            Err(e) => report.error(e, 10),
        }
    }
    verified
}

/// The last game of `bot`'s player, compared move by move and with its record.
async fn check(http: SocketAddr, bot: &BotResult) -> Result<(), String> {
    let list = http_get(http, &format!("/api/games?player={}&limit=1", bot.name))
        .await
        .map_err(|e| e.to_string())?;
    let games: serde_json::Value = serde_json::from_str(&list).map_err(|e| e.to_string())?;
    let id = games[0]["id"].as_i64().ok_or("the game is not stored")?;
    let game: serde_json::Value = serde_json::from_str(
        &http_get(http, &format!("/api/games/{id}"))
            .await
            .map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let stored: Vec<String> = game["moves"]
        .as_array()
        .ok_or("no moves")?
        .iter()
        .filter_map(|m| m["move"].as_str().map(String::from))
        .collect();
    if stored != bot.moves || game["record"].as_str() != Some(bot.record.as_str()) {
        return Err(format!(
            "game {id} of {} differs from what the bots saw",
            bot.name
        ));
    }
    Ok(())
}
