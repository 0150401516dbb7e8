// What a link to a room can meet besides a game: a room number that is none, and a room whose
// game is over or that nobody plays in now (then its last stored game is offered to replay).

import * as api from "./api.js";
import { h } from "./dom.js";

// The highest room number a page may use (the server's limit for its extension).
export const MAX_ROOM = 1000000;

// Why `text` names no room, or null when it does.
export function badRoom(text) {
  if (text !== null && /^\d{1,7}$/.test(text) && Number(text) <= MAX_ROOM) return null;
  if (!text) return `The link names no room: rooms are numbered 0 to ${MAX_ROOM}.`;
  const shown = text.length > 24 ? `${text.slice(0, 24)}…` : text;
  return `There is no room “${shown}”: rooms are numbered 0 to ${MAX_ROOM}.`;
}

// The newest stored game played in `room`, or null (the latest 200 games are looked through).
export async function lastGameOf(room) {
  const games = await api.games(200);
  return (Array.isArray(games) ? games : []).find((g) => g.room === Number(room) && !(g.settings && g.settings.mode)) || null;
}

// A link to replay game `id`.
export function replayLink(id, words = `Replay game ${id}`) {
  return h("a", { href: `#/replay?id=${id}`, id: "replay-last" }, words);
}

export function homeLink() {
  return h("a", { href: "#/" }, "Back home");
}

// How many spectators watch room `room` now (the room list's count), or null when it is not
// listed.
export async function spectatorsOf(room) {
  const n = Number(room);
  const { rooms } = await api.rooms({ limit: 1, after: n - 1, timeout: 5000 });
  const found = (rooms || []).find((r) => r.room === n);
  return found ? found.spectators : null;
}

// A count of spectators in words.
export function spectatorWords(n) {
  return n === 1 ? "1 spectator watches this game." : `${n} spectators watch this game.`;
}
