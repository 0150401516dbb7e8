// The seat this browser holds in a room, shared by all its tabs (any of them takes the seat
// back after a reload or a lost connection): its token, and whether a game was played with it
// (a page seeks a game by itself only in a room it never played in).

import { randomToken } from "./identity.js";

export function seatOf(room) {
  const key = `arbiter-seat-${room}`;
  let seat = null;
  try {
    seat = JSON.parse(localStorage.getItem(key) || "null");
  } catch {
    seat = null;
  }
  if (!seat || typeof seat.token !== "string") seat = { token: randomToken(), played: false };
  const held = {
    token: seat.token,
    played: Boolean(seat.played),
    save() {
      localStorage.setItem(key, JSON.stringify({ token: this.token, played: this.played }));
    },
  };
  held.save();
  return held;
}
