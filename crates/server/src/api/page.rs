//! The browser page's files, embedded in the binary so `arbiter serve` needs nothing else.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use super::ApiError;

/// One embedded file.
pub struct Asset {
    pub path: &'static str,
    pub content_type: &'static str,
    pub body: &'static str,
}

macro_rules! asset {
    ($path:literal, $file:literal, $type:literal) => {
        Asset {
            path: $path,
            content_type: $type,
            body: include_str!(concat!("../../../../web/", $file)),
        }
    };
}

pub const ASSETS: &[Asset] = &[
    asset!("/", "index.html", "text/html; charset=utf-8"),
    asset!(
        "/analysis.js",
        "analysis.js",
        "text/javascript; charset=utf-8"
    ),
    asset!("/api.js", "api.js", "text/javascript; charset=utf-8"),
    asset!("/app.js", "app.js", "text/javascript; charset=utf-8"),
    asset!("/away.js", "away.js", "text/javascript; charset=utf-8"),
    asset!("/board.js", "board.js", "text/javascript; charset=utf-8"),
    asset!(
        "/boardinput.js",
        "boardinput.js",
        "text/javascript; charset=utf-8"
    ),
    asset!(
        "/catalogue.js",
        "catalogue.js",
        "text/javascript; charset=utf-8"
    ),
    asset!("/chat.js", "chat.js", "text/javascript; charset=utf-8"),
    asset!("/clocks.js", "clocks.js", "text/javascript; charset=utf-8"),
    asset!("/dom.js", "dom.js", "text/javascript; charset=utf-8"),
    asset!("/game.js", "game.js", "text/javascript; charset=utf-8"),
    asset!("/glyphs.js", "glyphs.js", "text/javascript; charset=utf-8"),
    asset!("/home.js", "home.js", "text/javascript; charset=utf-8"),
    asset!(
        "/identity.js",
        "identity.js",
        "text/javascript; charset=utf-8"
    ),
    asset!("/judge.js", "judge.js", "text/javascript; charset=utf-8"),
    asset!("/motion.js", "motion.js", "text/javascript; charset=utf-8"),
    asset!(
        "/moveentry.js",
        "moveentry.js",
        "text/javascript; charset=utf-8"
    ),
    asset!(
        "/movelist.js",
        "movelist.js",
        "text/javascript; charset=utf-8"
    ),
    asset!("/net.js", "net.js", "text/javascript; charset=utf-8"),
    asset!(
        "/network.js",
        "network.js",
        "text/javascript; charset=utf-8"
    ),
    asset!(
        "/nocapture.js",
        "nocapture.js",
        "text/javascript; charset=utf-8"
    ),
    asset!("/offers.js", "offers.js", "text/javascript; charset=utf-8"),
    asset!("/online.js", "online.js", "text/javascript; charset=utf-8"),
    asset!("/play.js", "play.js", "text/javascript; charset=utf-8"),
    asset!(
        "/players.js",
        "players.js",
        "text/javascript; charset=utf-8"
    ),
    asset!("/replay.js", "replay.js", "text/javascript; charset=utf-8"),
    asset!(
        "/roomfacts.js",
        "roomfacts.js",
        "text/javascript; charset=utf-8"
    ),
    asset!(
        "/roomlinks.js",
        "roomlinks.js",
        "text/javascript; charset=utf-8"
    ),
    asset!("/seat.js", "seat.js", "text/javascript; charset=utf-8"),
    asset!("/sound.js", "sound.js", "text/javascript; charset=utf-8"),
    asset!("/steps.js", "steps.js", "text/javascript; charset=utf-8"),
    asset!("/svg.js", "svg.js", "text/javascript; charset=utf-8"),
    asset!("/timing.js", "timing.js", "text/javascript; charset=utf-8"),
    asset!(
        "/warnings.js",
        "warnings.js",
        "text/javascript; charset=utf-8"
    ),
    asset!("/watch.js", "watch.js", "text/javascript; charset=utf-8"),
    asset!("/style.css", "style.css", "text/css; charset=utf-8"),
];

/// The page file served at `path`.
pub fn asset(path: &str) -> Option<&'static Asset> {
    let path = if path == "/index.html" { "/" } else { path };
    ASSETS.iter().find(|a| a.path == path)
}

/// Answers any path no route takes with the page file of that name, or a JSON 404.
pub async fn static_file(uri: axum::http::Uri) -> Result<Response, ApiError> {
    if uri.path() == "/favicon.ico" {
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    let asset = asset(uri.path()).ok_or_else(|| ApiError::NoPage(uri.path().to_string()))?;
    Ok(([(header::CONTENT_TYPE, asset.content_type)], asset.body).into_response())
}

#[cfg(test)]
mod tests {
    /// A file added to `web/` but not to [`super::ASSETS`] would be missing from the binary
    /// (and the page with it), while a page served from the folder still works.
    #[test]
    fn every_file_of_the_page_is_embedded() {
        let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
        for entry in std::fs::read_dir(web).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            if [".js", ".css", ".html"].iter().any(|e| name.ends_with(e)) {
                let path = format!("/{name}");
                assert!(super::asset(&path).is_some(), "web/{name} is not embedded");
            }
        }
    }
}
