// Shared by the tests of live games between two pages: waiting for what a page shows, seating
// two pages in a room, playing moves in turn, the stored game of a room, and a clean console.

import assert from "node:assert/strict";
import { drawn, newPage, typeMove, waitPly } from "./helpers.mjs";

export async function waitStatus(page, re, timeout = 20000) {
  await page.waitForFunction((source) => new RegExp(source).test(document.getElementById("status")?.textContent || ""),
    re.source, { timeout });
}

export async function waitText(page, selector, re, timeout = 20000) {
  await page.waitForFunction(([sel, source]) => new RegExp(source).test(document.querySelector(sel)?.textContent || ""),
    [selector, re.source], { timeout });
}

// Two pages seated in Surakarta 6×6 room `room`, black (moves first) and white, once the game
// has started. `query`: more of the room's address (a time control); `prepare(page)`: run on
// each page before it opens the room (an init script).
export async function seatedPair(browser, url, room, { query = "", prepare = async () => {} } = {}) {
  const black = await newPage(browser);
  const white = await newPage(browser);
  await prepare(black);
  await prepare(white);
  await black.goto(`${url}/#/online?game=surakarta&size=6&room=${room}&colour=BLACK${query}`);
  await waitStatus(black, /Waiting for an opponent/);
  await white.goto(`${url}/#/online?game=surakarta&size=6&room=${room}`);
  await waitStatus(black, /Black to move \(you\)/);
  await waitStatus(white, /Black to move$/);
  return [black, white];
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
