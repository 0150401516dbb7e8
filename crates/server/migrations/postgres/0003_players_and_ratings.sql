-- Version 3: names kept by a browser-held secret (its SHA-256 only; `name_key` is the name in
-- lower case, so names are unique whatever their case), Glicko-2 ratings per player and class
-- (`surakarta/blitz`), and the rated games with each player's rating after and its change.
CREATE TABLE players (
    name_key TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE ratings (
    name_key TEXT NOT NULL REFERENCES players (name_key),
    class TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games INTEGER NOT NULL,
    PRIMARY KEY (name_key, class)
);
CREATE INDEX ratings_by_class ON ratings (class, rating DESC);
CREATE TABLE rated_games (
    game_id BIGINT PRIMARY KEY REFERENCES games (id),
    class TEXT NOT NULL,
    first_rating DOUBLE PRECISION NOT NULL,
    first_change DOUBLE PRECISION NOT NULL,
    second_rating DOUBLE PRECISION NOT NULL,
    second_change DOUBLE PRECISION NOT NULL
);
