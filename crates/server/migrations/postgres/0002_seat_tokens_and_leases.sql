-- Version 2: the seat tokens a room's next owner needs to restore a running game, and the room
-- leases: one owner per room, renewed against the database's clock; every write of an owner
-- carries its epoch and is refused once a newer one is here (fencing).
ALTER TABLE games ADD COLUMN first_token TEXT;
ALTER TABLE games ADD COLUMN second_token TEXT;
CREATE INDEX games_live_by_room ON games (room, id) WHERE ended_at IS NULL;
CREATE TABLE room_leases (
    room BIGINT PRIMARY KEY,
    node TEXT NOT NULL,
    epoch BIGINT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
