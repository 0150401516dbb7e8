-- Version 4: the cluster's identity, one row made once with the database. The nodes that use
-- this database announce it on NATS (`arbiter.cluster`), and a node whose NATS already carries
-- another cluster's id refuses to start: two clusters must never share subjects, and a room a
-- node of the other database claimed would be stored there (docs/cluster.md#one-cluster-one-database).
CREATE TABLE cluster_identity (
    id TEXT PRIMARY KEY,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    only_row BOOLEAN NOT NULL DEFAULT TRUE UNIQUE CHECK (only_row)
);
INSERT INTO cluster_identity (id) VALUES (gen_random_uuid()::text);
