// Shared by the tests of live games between two pages: waiting for what a page shows, seating
// two pages in a room, playing moves in turn, the stored game of a room, and a clean console.

import assert from "node:assert/strict";
import { drawn, newPage, typeMove, waitPly } from "./helpers.mjs";

// Waits for `page`'s status to match `re`; a timeout says what the status showed instead.
export async function waitStatus(page, re, timeout = 20000) {
  await page.waitForFunction((source) => new RegExp(source).test(document.getElementById("status")?.textContent || ""),
    re.source, { timeout }).catch(async (e) => {
    const shown = await page.textContent("#status").catch(() => "(no status)");
    throw new Error(`status never matched ${re}: it shows "${shown}" (${e.message})`);
  });
}

export async function waitText(page, selector, re, timeout = 20000) {
  await page.waitForFunction(([sel, source]) => new RegExp(source).test(document.querySelector(sel)?.textContent || ""),
    [selector, re.source], { timeout });
}

// Until the server lists room `room` with a ready player waiting. A page says "Waiting for an
// opponent" before its READY has reached the server, so a second page sent in at once could
// arrive first; this makes the order the one the test means.
export async function waitWaiting(url, room, timeout = 20000) {
  const until = Date.now() + timeout;
  for (;;) {
    const { rooms } = await fetch(`${url}/api/rooms`).then((r) => r.json()).catch(() => ({ rooms: [] }));
    const found = (rooms || []).find((r) => r.room === room);
    if (found && found.status === "waiting" && found.players.some((p) => p.ready)) return;
    if (Date.now() > until) throw new Error(`room ${room} never listed a waiting player: ${JSON.stringify(found)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// Two pages seated in a room once the game has started: the first opens
// `#/online?QUERY&room=ROOM&colour=COLOUR` and waits, then the second opens it without a colour.
// `prepare(page)`: run on each page before it opens the room (an init script); `side`: the first
// side's word the statuses must name ("Black "), or none.
export async function seatedIn(browser, url, { query, room, colour, viewport, side = "", prepare = async () => {} }) {
  const first = await newPage(browser, viewport);
  const second = await newPage(browser, viewport);
  await prepare(first);
  await prepare(second);
  await first.goto(`${url}/#/online?${query}&room=${room}&colour=${colour}`);
  await waitStatus(first, /Waiting for an opponent/);
  await waitWaiting(url, room);
  await second.goto(`${url}/#/online?${query}&room=${room}`);
  await waitStatus(first, new RegExp(`${side}to move \\(you\\)`));
  // The joiner's page shows the mover's first-move countdown too (both READYs carry it).
  await waitStatus(second, new RegExp(`${side}to move( — first move within \\d+ s, or the game is aborted)?$`));
  return [first, second];
}

// Two pages seated in Surakarta 6×6 room `room`, black (moves first) and white, once the game
// has started. `query`: more of the room's address (a time control).
export async function seatedPair(browser, url, room, { query = "", prepare } = {}) {
  return seatedIn(browser, url, { query: `game=surakarta&size=6${query}`, room, colour: "BLACK", side: "Black ", prepare });
}

// Plays `moves` in turn, `first` first, each seen by the other page.
export async function play(first, second, moves) {
  for (const [i, mv] of moves.entries()) {
    const [page, other] = i % 2 === 0 ? [first, second] : [second, first];
    const ply = (await drawn(page)).ply;
    await typeMove(page, mv);
    await waitPly(other, ply + 1);
  }
}

// The stored game of a room (the newest one played there), with its moves.
export async function storedOfRoom(url, room) {
  const list = await (await fetch(`${url}/api/games?limit=50`)).json();
  const games = Array.isArray(list) ? list : list.games;
  const game = games.find((g) => g.room === room);
  assert.ok(game, `a stored game of room ${room}`);
  return (await fetch(`${url}/api/games/${game.id}`)).json();
}

// The room's stored game once `check` holds (or as it is after `timeout` ms).
export async function waitStored(url, room, check, timeout = 10000) {
  const until = Date.now() + timeout;
  for (;;) {
    const game = await storedOfRoom(url, room).catch(() => null);
    if (game && check(game)) return game;
    if (Date.now() > until) return game;
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function clean(...pages) {
  for (const page of pages) {
    assert.deepEqual(page.errors, [], "no error thrown in the page");
    assert.deepEqual(page.consoleErrors, [], "no error on the console");
  }
}

// Resigns on `page` (its turn or not), saying yes when asked.
export async function resign(page) {
  await page.click("#resign");
  await page.click("#dialog-yes");
}
