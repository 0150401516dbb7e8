-- The arena queue (crates/queue): tests, their batches of game pairs, the pairs' results and
-- the workers that played them. Apart from the server's games tables; both may share a database.
CREATE TABLE arena_workers (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    concurrency INTEGER NOT NULL,
    started_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    seen_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    stopped_at TIMESTAMPTZ
);

CREATE TABLE arena_tests (
    id BIGSERIAL PRIMARY KEY,
    created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    -- The test as submitted (players, engines' hashes, time, openings, seed, SPRT), as JSON.
    spec TEXT NOT NULL,
    pairs INTEGER NOT NULL CHECK (pairs > 0),
    -- running, finished (every pair played), H0 accepted, H1 accepted
    state TEXT NOT NULL DEFAULT 'running',
    verdict TEXT,
    ended_at TIMESTAMPTZ
);

CREATE TABLE arena_batches (
    id BIGSERIAL PRIMARY KEY,
    test_id BIGINT NOT NULL REFERENCES arena_tests (id),
    first_pair INTEGER NOT NULL,
    pairs INTEGER NOT NULL CHECK (pairs > 0),
    -- pending, claimed, done, cancelled
    state TEXT NOT NULL DEFAULT 'pending',
    -- Counts the claims: a result carries the attempt it was played under.
    attempt INTEGER NOT NULL DEFAULT 0,
    worker_id BIGINT REFERENCES arena_workers (id),
    lease_until TIMESTAMPTZ,
    UNIQUE (test_id, first_pair)
);
CREATE INDEX arena_batches_open ON arena_batches (state, test_id, id);

CREATE TABLE arena_results (
    test_id BIGINT NOT NULL REFERENCES arena_tests (id),
    pair INTEGER NOT NULL,
    batch_id BIGINT NOT NULL REFERENCES arena_batches (id),
    attempt INTEGER NOT NULL,
    worker_id BIGINT NOT NULL REFERENCES arena_workers (id),
    -- The first player's points over the pair, in halves (0 to 4: the pentanomial's index).
    half_points INTEGER NOT NULL CHECK (half_points BETWEEN 0 AND 4),
    wins INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    losses INTEGER NOT NULL,
    -- The two games (JSON: winner, reason, plies, moves).
    games TEXT NOT NULL,
    reported_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    -- A pair is counted once, whichever attempt reported it first.
    PRIMARY KEY (test_id, pair)
);
