//! PostgreSQL URLs: checked before anything starts, and described without user or password.

use std::str::FromStr;

use tokio_postgres::config::Host;
use tokio_postgres::Config;

use crate::storage::{StorageError, StorageResult};

/// Checks a PostgreSQL URL; its parsed configuration.
pub(crate) fn check_url(url: &str) -> StorageResult<Config> {
    let config = Config::from_str(url).map_err(|e| StorageError::BadUrl(e.to_string()))?;
    if config.get_hosts().is_empty() {
        return Err(StorageError::BadUrl("no host".into()));
    }
    Ok(config)
}

/// `host:port/database` of a URL, without user or password (for messages and logs).
pub(crate) fn describe_url(url: &str) -> String {
    match Config::from_str(url) {
        Ok(config) => describe(&config),
        Err(_) => "PostgreSQL (a malformed URL)".into(),
    }
}

pub(super) fn describe(config: &Config) -> String {
    let ports = config.get_ports();
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, host)| {
            let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
            match host {
                Host::Tcp(name) => format!("{name}:{port}"),
                Host::Unix(path) => format!("{}:{port}", path.display()),
            }
        })
        .collect();
    let db = config.get_dbname().or(config.get_user()).unwrap_or("");
    format!("{}/{db}", hosts.join(","))
}
