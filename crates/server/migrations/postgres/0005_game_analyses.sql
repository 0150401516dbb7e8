-- Version 5: each finished game's whole-game analysis, kept so that reopening a replay (on any
-- node) answers it at once instead of searching every position again. `engine`, `max_depth`
-- and `per_position_ms` say how it was searched, so a server that would search differently
-- recognises a stale one; `result` is the analysis as JSON (its moves and positions).
CREATE TABLE game_analyses (
    game_id BIGINT PRIMARY KEY REFERENCES games (id),
    engine TEXT NOT NULL,
    max_depth INTEGER NOT NULL,
    per_position_ms BIGINT NOT NULL,
    result TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
