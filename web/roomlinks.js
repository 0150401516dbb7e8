// What a link to a room can meet besides a game: a room number that is none, and a room whose
// game is over or that nobody plays in now (then its last stored game is offered to replay).

import { api, h } from "./ui.js";

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
  const games = await api("/api/games?limit=200", undefined, { timeout: 8000 });
  return (Array.isArray(games) ? games : []).find((g) => g.room === Number(room) && !(g.settings && g.settings.mode)) || null;
}

// A link to replay game `id`.
export function replayLink(id, words = `Replay game ${id}`) {
  return h("a", { href: `#/replay?id=${id}`, id: "replay-last" }, words);
}

export function homeLink() {
  return h("a", { href: "#/" }, "Back home");
}
