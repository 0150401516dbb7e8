//! Versioned schemas, kept in the repository (`crates/server/migrations/{sqlite,postgres}`) and
//! built into the binary. Each backend applies the migrations its database has not seen, in
//! order, each in its own transaction, when the store opens; a database whose version is newer
//! than the binary's is refused (it was upgraded by a newer arbiter, whose data this one might
//! misread or damage). Both backends number the same changes alike: version 2 means the same
//! tables in SQLite and PostgreSQL.
//!
//! SQLite keeps its version in `PRAGMA user_version`; PostgreSQL in a `schema_version` table
//! (one row per migration applied, with its time).

use super::StorageError;

/// One step of a schema.
#[derive(Clone, Copy, Debug)]
pub struct Migration {
    pub version: u32,
    pub name: &'static str,
    pub sql: &'static str,
}

macro_rules! migration {
    ($backend:literal, $version:literal, $name:literal) => {
        Migration {
            version: $version,
            name: $name,
            sql: include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/migrations/",
                $backend,
                "/",
                $name,
                ".sql"
            )),
        }
    };
}

pub const SQLITE: &[Migration] = &[
    migration!("sqlite", 1, "0001_games_and_moves"),
    migration!("sqlite", 2, "0002_seat_tokens_and_leases"),
    migration!("sqlite", 3, "0003_players_and_ratings"),
    migration!("sqlite", 4, "0004_cluster_identity"),
    migration!("sqlite", 5, "0005_game_analyses"),
];

pub const POSTGRES: &[Migration] = &[
    migration!("postgres", 1, "0001_games_and_moves"),
    migration!("postgres", 2, "0002_seat_tokens_and_leases"),
    migration!("postgres", 3, "0003_players_and_ratings"),
    migration!("postgres", 4, "0004_cluster_identity"),
    migration!("postgres", 5, "0005_game_analyses"),
];

/// The newest version of a list of migrations.
pub fn latest(migrations: &[Migration]) -> u32 {
    migrations.last().map_or(0, |m| m.version)
}

/// The migrations a database at version `found` still needs, or the error that refuses a
/// database newer than this binary (`db` names it for the message).
pub fn pending<'a>(
    migrations: &'a [Migration],
    found: u32,
    db: &str,
) -> Result<&'a [Migration], StorageError> {
    let supported = latest(migrations);
    if found > supported {
        return Err(StorageError::SchemaTooNew {
            db: db.to_string(),
            found,
            supported,
        });
    }
    let done = migrations.partition_point(|m| m.version <= found);
    Ok(&migrations[done..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_count_up_from_one_in_both_backends_alike() {
        for list in [SQLITE, POSTGRES] {
            for (i, m) in list.iter().enumerate() {
                assert_eq!(m.version as usize, i + 1, "{}", m.name);
                assert!(m.name.starts_with(&format!("{:04}_", m.version)));
                assert!(!m.sql.trim().is_empty());
            }
        }
        let names = |list: &[Migration]| list.iter().map(|m| m.name).collect::<Vec<_>>();
        assert_eq!(names(SQLITE), names(POSTGRES));
    }

    #[test]
    fn a_newer_database_is_refused_naming_both_versions() {
        assert_eq!(pending(SQLITE, 0, "x").unwrap().len(), SQLITE.len());
        assert_eq!(pending(SQLITE, 1, "x").unwrap()[0].version, 2);
        assert!(pending(SQLITE, latest(SQLITE), "x").unwrap().is_empty());
        let e = pending(SQLITE, 99, "games.sqlite").unwrap_err().to_string();
        assert!(e.contains("games.sqlite") && e.contains("99"), "{e}");
        assert!(e.contains(&format!("version {}", latest(SQLITE))), "{e}");
    }
}
