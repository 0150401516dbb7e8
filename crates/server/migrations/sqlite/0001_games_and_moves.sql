-- Version 1: the schema of every arbiter before numbered migrations. Written with IF NOT EXISTS so
-- that such a database (user_version 0, tables present) is adopted as it is; the `owner` column,
-- which older ones lack, is added before this runs (see storage/sqlite/mod.rs).
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    room INTEGER NOT NULL,
    game TEXT NOT NULL,
    settings TEXT NOT NULL,
    first_player TEXT NOT NULL,
    second_player TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    end_reason TEXT,
    winner INTEGER,
    record TEXT,
    owner TEXT
);
-- `at`: milliseconds since the Unix epoch.
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    text TEXT NOT NULL,
    reason TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
);
DROP INDEX IF EXISTS games_by_player;
CREATE INDEX IF NOT EXISTS games_by_first ON games (first_player);
CREATE INDEX IF NOT EXISTS games_by_second ON games (second_player);
CREATE INDEX IF NOT EXISTS games_unfinished ON games (id) WHERE ended_at IS NULL;
