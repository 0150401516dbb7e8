-- Version 2: what a room's next owner needs to restore a running game (the seat tokens its
-- players sent in READY), and the room leases whose epochs fence writes (one node alone never
-- holds one, so its writes always pass; the table is here so both backends check the same way).
ALTER TABLE games ADD COLUMN first_token TEXT;
ALTER TABLE games ADD COLUMN second_token TEXT;
CREATE INDEX games_live_by_room ON games (room, id) WHERE ended_at IS NULL;
-- `expires_at`: milliseconds since the Unix epoch.
CREATE TABLE room_leases (
    room INTEGER PRIMARY KEY,
    node TEXT NOT NULL,
    epoch INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
