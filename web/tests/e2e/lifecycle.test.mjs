// No game decided by the server (issue 74), from the players' side: a finished game left open
// starts nothing and seeks nothing; a missed first move aborts without a result and the clock
// waits for each side's first move; a closed tab and a second tab of the same browser take the
// seat back; a server killed and started again carries the same game on; a player's own clock
// shows the increment it earned.

import assert from "node:assert/strict";
import { after, test } from "node:test";
import { drawn, newPage, sharedSession, startServer, typeMove, waitPly } from "./helpers.mjs";
import { clean, play, resign, seatedPair, storedOfRoom, waitStatus, waitStored } from "./rooms.mjs";

// The five tests below were written with the lifecycle work and first run on 2026-12-05, when
// each failed: an idle tab's status kept the result over "no seat" (and the NOTICE saying why
// was dropped with the idle connection), a `tc=3+2` link reached the page as "3 2" (no clock),
// a tab taken over by another asked "Leave this game?" instead of watching, and a seat taken
// back drew the start position before the snapshot.
const session = sharedSession();

// Servers a test starts for itself: killed after the file, whether or not its test got as far
// as stopping them (a test that fails early must not leave the file waiting on a child).
const owned = [];
async function ownServer(...args) {
  const server = await startServer(...args);
  owned.push(server);
  return server;
}
after(() => {
  for (const server of owned) server.child.kill("SIGKILL");
});

// The rooms the server lists, and the number of games it stored.
async function rooms(url) {
  return (await (await fetch(`${url}/api/rooms`)).json()).rooms;
}

async function gameCount(url) {
  const list = await (await fetch(`${url}/api/games?limit=100`)).json();
  return (Array.isArray(list) ? list : list.games).length;
}

// A second page in the same browser (same storage) as `page`.
async function sameBrowser(page) {
  const other = await page.context().newPage();
  other.errors = [];
  other.on("pageerror", (e) => other.errors.push(e.message));
  other.consoleErrors = [];
  other.on("console", (m) => m.type() === "error" && other.consoleErrors.push(m.text()));
  return other;
}

const clockText = (page, i) => page.textContent(`#clock-${i === 0 ? "first" : "second"}`);

test("a finished game left open in a tab never starts or seeks another game", { timeout: 90000 }, async () => {
  // A short rematch window and idle limit: the idle tab's seat is freed within seconds.
  const own = await ownServer(["--rematch-window", "2", "--idle-timeout", "2"]);
  const room = 7401;
  const [black, white] = await seatedPair(session.browser, own.url, room);
  await play(black, white, ["B2-B3", "B5-B4"]);
  await resign(white);
  await waitStatus(black, /^You won/);
  const stored = await gameCount(own.url);
  // Both tabs stay open, untouched, well past the rematch window and the idle limit.
  await waitStatus(black, /no longer hold a seat in room 7401: the time to ask for a rematch is over/, 15000);
  await waitStatus(white, /no longer hold a seat/, 15000);
  await new Promise((r) => setTimeout(r, 6000));
  const listed = (await rooms(own.url)).filter((r) => r.room === room);
  assert.deepEqual(listed.flatMap((r) => r.players), [], "no seat held, no seek in the lobby");
  assert.equal(await gameCount(own.url), stored, "no game started by itself");
  // The lobby on the home page lists nobody.
  const home = await newPage(session.browser);
  await home.goto(`${own.url}/#/`);
  await home.waitForFunction(() => /Nobody is waiting/.test(document.getElementById("seeks")?.textContent || ""));
  // The player asks: a new seek, shown in the lobby with the room's time control.
  await black.click("#play-again");
  await waitStatus(black, /Waiting for an opponent/);
  await home.waitForSelector(`#seeks li[data-room="${room}"]`, { timeout: 10000 });
  assert.match(await home.textContent(`#seeks li[data-room="${room}"]`), /20 s a move/);
  clean(black, white);
  for (const page of [black, white, home]) await page.close();
  await own.stop();
});

test("no clock before a side's first move; a missed first move aborts without a result", { timeout: 60000 }, async () => {
  const own = await ownServer(["--first-move-seconds", "4"]);
  const room = 7402;
  const [black, white] = await seatedPair(session.browser, own.url, room, { query: "&tc=3+2" });
  const before = await clockText(black, 0);
  await waitStatus(black, /first move within \d+ s, or the game is aborted/);
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await clockText(black, 0), before, "black's clock waits for its first move");
  await waitStatus(black, /^Aborted/, 10000);
  await waitStatus(white, /^Aborted/, 10000);
  assert.match((await drawn(white)).result, /did not play a first move/);
  const game = await waitStored(own.url, room, (g) => g.end_reason);
  assert.equal(game.end_reason, "ABORTED");
  assert.equal(game.winner, "none");
  clean(black, white);
  for (const page of [black, white]) await page.close();
  await own.stop();
});

test("a player's own clock shows the increment just earned", { timeout: 60000 }, async () => {
  const room = 7403;
  const [black, white] = await seatedPair(session.browser, session.server.url, room, { query: "&tc=3+2" });
  // Both first moves are off the clock; black's second move earns 2 s.
  await play(black, white, ["B2-B3", "B5-B4", "C2-C3"]);
  const shown = await clockText(black, 0);
  assert.match(shown, /3:0[12]$/, `black's clock after a quick move with a 2 s increment: ${shown}`);
  // The opponent's page shows the same.
  assert.match(await clockText(white, 0), /3:0[12]$/);
  clean(black, white);
  for (const page of [black, white]) await page.close();
});

test("a closed tab opened again takes its seat back; a second tab takes it and the first one watches", { timeout: 90000 }, async () => {
  const room = 7404;
  const url = session.server.url;
  const [black, white] = await seatedPair(session.browser, url, room);
  await play(black, white, ["B2-B3", "B5-B4"]);
  const gameId = (await storedOfRoom(url, room)).id;
  // Black closes its tab and opens the game's link again in the same browser.
  const link = black.url();
  const context = black.context();
  await black.close();
  const back = await context.newPage();
  back.errors = [];
  back.on("pageerror", (e) => back.errors.push(e.message));
  back.consoleErrors = [];
  back.on("console", (m) => m.type() === "error" && back.consoleErrors.push(m.text()));
  await back.goto(link);
  await waitStatus(back, /Black to move \(you\)/);
  assert.equal((await drawn(back)).ply, 2, "the same game");
  await typeMove(back, "C2-C3");
  await waitPly(white, 3);
  // A second tab of the same browser: it takes the seat; the first says so and watches.
  const second = await sameBrowser(back);
  await second.goto(link);
  await back.waitForFunction(() => /goes on in another tab/.test(document.getElementById("banner")?.textContent || ""));
  assert.match(back.url(), /#\/watch\?room=7404/);
  await typeMove(white, "C5-C4");
  await waitPly(second, 4);
  await waitPly(back, 4);
  await waitStatus(second, /Black to move \(you\)/);
  await typeMove(second, "D2-D3");
  await waitPly(white, 5);
  assert.equal((await storedOfRoom(url, room)).id, gameId, "one game all along");
  clean(back, second, white);
  for (const page of [back, second, white]) await page.close();
});

test("a server killed and started again carries the same game on", { timeout: 120000 }, async () => {
  const first = await ownServer();
  const room = 7405;
  const [black, white] = await seatedPair(session.browser, first.url, room);
  await play(black, white, ["B2-B3", "B5-B4"]);
  const gameId = (await storedOfRoom(first.url, room)).id;
  first.child.kill("SIGKILL");
  await waitStatus(black, /reconnecting/);
  const again = await ownServer([], undefined, { dir: first.dir, http: first.http });
  assert.equal(again.url, first.url);
  await waitStatus(black, /Black to move \(you\)/, 20000);
  await waitStatus(white, /Black to move$/, 20000);
  assert.equal((await drawn(black)).ply, 2);
  await typeMove(black, "C2-C3");
  await waitPly(white, 3);
  await resign(white);
  await waitStatus(black, /^You won/);
  const game = await waitStored(again.url, room, (g) => g.end_reason);
  assert.equal(game.id, gameId, "the same game id");
  assert.equal(game.end_reason, "RESIGN");
  assert.deepEqual(game.moves.map((m) => m.move), ["B2-B3", "B5-B4", "C2-C3"]);
  clean(black, white);
  for (const page of [black, white]) await page.close();
  await again.stop();
});
