-- Version 4: the identity PostgreSQL's cluster nodes announce (docs/cluster.md); a SQLite file
-- serves one server alone, but its versions are numbered as PostgreSQL's, so it gets one too.
CREATE TABLE cluster_identity (
    id TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    only_row INTEGER NOT NULL DEFAULT 1 UNIQUE CHECK (only_row = 1)
);
INSERT INTO cluster_identity (id, created_at)
VALUES (lower(hex(randomblob(16))), CAST(strftime('%s', 'now') AS INTEGER) * 1000);
