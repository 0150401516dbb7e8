// What two players may ask of each other in a live game, played by two real pages (separate
// browser contexts, so separate tabs' storage) in one room: a draw offered and accepted, a
// takeback declined then proposed again and accepted, an abort before both have moved, the win
// claimed when the opponent closed the tab — each checked on both pages and in the stored game —
// and browsing the moves with the arrow keys while the game goes on.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  checkAccessibility, drawn, newPage, sharedSession, shot, startServer, typeMove, waitPly,
} from "./helpers.mjs";
import { clean, play, seatedPair as seatPair, waitStatus, waitStored as storedWhen, waitText } from "./rooms.mjs";

const session = sharedSession();

// The room helpers of rooms.mjs, on this file's server.
const seatedPair = (room, url = session.server.url) => seatPair(session.browser, url, room);
const waitStored = (room, check, timeout = 10000, url = session.server.url) => storedWhen(url, room, check, timeout);

test("a draw offered and accepted ends the game for both, stored as AGREED", { timeout: 60000 }, async () => {
  const room = 3101;
  const [black, white] = await seatedPair(room);
  await play(black, white, ["B2-B3", "B5-B4"]);
  // Both have moved: no abort any more.
  assert.equal(await black.isVisible("#abort"), false);
  await black.click("#offer-draw");
  await waitText(black, "#offer", /You offered a draw/);
  assert.equal(await black.isDisabled("#offer-draw"), true, "one offer at a time");
  assert.equal(await black.isDisabled("#offer-takeback"), true, "one offer at a time");
  await waitText(white, "#offer", /Your opponent offers a draw/);
  assert.equal(await white.isDisabled("#offer-draw"), true, "an offer waits for its answer");
  await shot(white, "offer-draw");
  await checkAccessibility(white, "a draw offered");
  await white.click("#offer-accept");
  for (const page of [black, white]) {
    await waitStatus(page, /^Draw: drawn by agreement/);
    assert.equal(await page.isVisible("#offer"), false);
    assert.equal(await page.isDisabled("#offer-draw"), true);
  }
  assert.match(await black.textContent("#offer-note"), /Your opponent accepted your draw offer/);
  const stored = await waitStored(room, (g) => g.end_reason);
  assert.equal(stored.end_reason, "AGREED");
  assert.equal(stored.winner, "none");
  assert.deepEqual(stored.moves.map((m) => m.move), ["B2-B3", "B5-B4"]);
  clean(black, white);
  for (const page of [black, white]) await page.close();
});

test("a takeback declined waits for a move; proposed again and accepted, both boards go back", { timeout: 90000 }, async () => {
  const room = 3102;
  const [black, white] = await seatedPair(room);
  assert.equal(await black.isDisabled("#offer-takeback"), true, "nothing to take back yet");
  await play(black, white, ["B2-B3", "B5-B4", "C2-C3"]);
  // White asks to take back B5-B4 (and black's answer to it): black declines.
  await white.click("#offer-takeback");
  await waitText(black, "#offer", /Your opponent asks to take back their last move/);
  await black.click("#offer-decline");
  await waitText(white, "#offer-note", /Your opponent declined your takeback offer/);
  await waitText(black, "#offer-note", /You declined the takeback/);
  assert.equal(await white.isVisible("#offer"), false);
  assert.equal(await white.isDisabled("#offer-takeback"), true, "not again before a move");
  assert.equal(await white.isDisabled("#offer-draw"), false, "another kind may be offered");
  // White's offer, withdrawn, is gone on both pages.
  await white.click("#offer-draw");
  await waitText(black, "#offer", /offers a draw/);
  await white.click("#offer-withdraw");
  await waitText(black, "#offer-note", /Your opponent withdrew the draw offer/);
  assert.equal(await black.isVisible("#offer"), false);
  await play(white, black, ["C5-C4"]);
  // After black's answer D2-D3, black (the maker, not to move) takes back D2-D3 alone.
  await play(black, white, ["D2-D3"]);
  assert.equal(await white.isDisabled("#offer-takeback"), false, "after a move it may be proposed again");
  const beforeTakeback = await drawn(white);
  await black.click("#offer-takeback");
  await waitText(white, "#offer", /asks to take back/);
  await white.click("#offer-accept");
  for (const page of [black, white]) {
    await waitPly(page, 4);
    const board = await drawn(page);
    assert.equal(board.toMove, "BLACK");
    const listed = await page.$$eval("#moves .ply", (plies) => plies.map((p) => p.textContent));
    assert.deepEqual(listed, ["B2-B3", "B5-B4", "C2-C3", "C5-C4"]);
    assert.notDeepEqual(board.pieces, beforeTakeback.pieces);
  }
  await waitStatus(black, /Black to move \(you\)/);
  assert.match(await black.textContent("#offer-note"), /Your opponent accepted your takeback offer/);
  // The game goes on from there.
  await play(black, white, ["E2-E3"]);
  const stored = await waitStored(room, (g) => g.moves.length === 5);
  assert.deepEqual(stored.moves.map((m) => m.move), ["B2-B3", "B5-B4", "C2-C3", "C5-C4", "E2-E3"]);
  clean(black, white);
  for (const page of [black, white]) await page.close();
});

test("a takeback asked on one's own turn takes back two moves, on both pages and in the store", { timeout: 60000 }, async () => {
  const room = 3103;
  const [black, white] = await seatedPair(room);
  const watcher = await newPage(session.browser);
  await watcher.goto(`${session.server.url}/#/watch?room=${room}`);
  await waitStatus(watcher, /Black to move/);
  await play(black, white, ["B2-B3"]);
  const atOne = await drawn(white);
  await play(white, black, ["B5-B4"]);
  await play(black, white, ["C2-C3"]);
  // White, to move, asks: its B5-B4 and black's answer C2-C3 are taken back.
  await white.click("#offer-takeback");
  await waitText(black, "#offer", /asks to take back/);
  await black.click("#offer-accept");
  for (const page of [black, white, watcher]) {
    await waitPly(page, 1);
    assert.deepEqual((await drawn(page)).pieces, atOne.pieces);
    assert.deepEqual(await page.$$eval("#moves .ply", (plies) => plies.map((p) => p.textContent)), ["B2-B3"]);
  }
  await waitStatus(white, /White to move \(you\)/);
  await waitStatus(watcher, /White to move/);
  const stored = await waitStored(room, (g) => g.moves.length === 1);
  assert.deepEqual(stored.moves.map((m) => m.move), ["B2-B3"]);
  clean(black, white, watcher);
  for (const page of [black, white, watcher]) await page.close();
});

test("abort before both players have moved: no result, stored as ABORTED", { timeout: 60000 }, async () => {
  const room = 3104;
  const [black, white] = await seatedPair(room);
  assert.equal(await black.isVisible("#abort"), true);
  await play(black, white, ["B2-B3"]);
  assert.equal(await white.isVisible("#abort"), true, "one ply: still allowed");
  await white.click("#abort");
  for (const page of [black, white]) {
    await waitStatus(page, /^Aborted: the game was aborted/);
    assert.equal(await page.isVisible("#abort"), false);
  }
  assert.match(await black.textContent("#offer-note"), /Your opponent aborted the game/);
  const stored = await waitStored(room, (g) => g.end_reason);
  assert.equal(stored.end_reason, "ABORTED");
  assert.equal(stored.winner, "none");
  clean(black, white);
  for (const page of [black, white]) await page.close();
});

test("the opponent closes the tab: a countdown, then the win claimed and stored", { timeout: 90000 }, async () => {
  const room = 3105;
  const [black, white] = await seatedPair(room);
  await play(black, white, ["B2-B3", "B5-B4"]);
  await white.context().close();
  await black.waitForSelector("#banner:not([hidden]) #claim");
  assert.match(await black.textContent("#banner"), /lost the connection; their seat is kept for \d+ s\. You may claim the win in \d+ s\./);
  assert.equal(await black.isDisabled("#claim"), true, "not before the server allows it");
  await shot(black, "opponent-left");
  await black.waitForSelector("#claim:not([disabled])", { timeout: 15000 });
  assert.match(await black.textContent("#banner"), /You may claim the win now/);
  await black.click("#claim");
  await waitStatus(black, /^You won: white left the game and you claimed the win/);
  const board = await drawn(black);
  assert.doesNotMatch(board.result, /resigned/, "closing a tab is not resigning");
  assert.equal(await black.isVisible("#banner"), false, "the seat-kept banner goes with the game");
  const stored = await waitStored(room, (g) => g.end_reason);
  assert.equal(stored.winner, "first");
  // Stored as what happened: white left (not a resignation).
  assert.equal(stored.end_reason, "LEFT");
  clean(black);
  await black.close();
});

test("←/→, Home and End browse the moves during a live game; a new move still shows in the list", { timeout: 60000 }, async () => {
  const room = 3106;
  const [black, white] = await seatedPair(room);
  assert.match(await black.textContent("#no-capture"), /^Moves without a capture: 0 of 40$/);
  await play(black, white, ["B2-B3"]);
  const atOne = await drawn(white);
  await play(white, black, ["B5-B4"]);
  const atTwo = await drawn(white);
  await play(black, white, ["C2-C3", "C5-C4"]);
  for (const page of [black, white]) assert.match(await page.textContent("#no-capture"), /: 4 of 40$/);
  // White waits for black and looks back two moves.
  await white.click("h1");
  await white.keyboard.press("ArrowLeft");
  await waitPly(white, 3);
  await white.keyboard.press("ArrowLeft");
  await waitPly(white, 2);
  let board = await drawn(white);
  assert.deepEqual(board.pieces, atTwo.pieces);
  assert.equal(await white.textContent("#moves .ply.current"), "B5-B4");
  assert.match(await white.textContent("#browsing"), /Looking at move 2 of 4/);
  assert.match(await white.textContent("#no-capture"), /: 2 of 40$/);
  // Black moves meanwhile: the list shows it, the board stays where white looks.
  await typeMove(black, "D2-D3");
  await white.waitForFunction(() => document.querySelectorAll("#moves .ply").length === 5);
  await white.waitForTimeout(300);
  board = await drawn(white);
  assert.equal(board.ply, 2, "browsing is not disturbed by the opponent's move");
  assert.match(await white.textContent("#status"), /White to move \(you\)/);
  assert.equal(await white.isVisible("#move-input"), false, "an earlier position is read-only");
  assert.equal(await white.locator("svg.board [data-target]").count(), 0);
  await white.keyboard.press("Home");
  await waitPly(white, 0);
  await white.keyboard.press("ArrowRight");
  await waitPly(white, 1);
  assert.deepEqual((await drawn(white)).pieces, atOne.pieces);
  await shot(white, "browsing-live");
  await white.keyboard.press("End");
  await waitPly(white, 5);
  assert.equal(await white.isVisible("#nav-live"), false);
  // Back at the game, white plays on.
  await typeMove(white, "D5-D4");
  await waitPly(black, 6);
  // Black looks back with a click in the list, and the button returns to the game.
  await black.click('#moves .ply[data-ply="3"]');
  await waitPly(black, 3);
  await black.click("#nav-live");
  await waitPly(black, 6);
  await waitStatus(black, /Black to move \(you\)/);
  await typeMove(black, "E2-E3");
  await waitPly(white, 7);
  clean(black, white);
  for (const page of [black, white]) await page.close();
});

test("a spectator sees offers without answering them; an offer lapses with a move; an opponent who never comes back did not resign", { timeout: 90000 }, async () => {
  // A short seat grace: the absent player's seat runs out in 3 s.
  const own = await startServer(["--seat-grace", "3"]);
  const room = 3107;
  const [black, white] = await seatedPair(room, own.url);
  const watcher = await newPage(session.browser);
  await watcher.goto(`${own.url}/#/watch?room=${room}`);
  await waitStatus(watcher, /Black to move/);
  await play(black, white, ["B2-B3", "B5-B4"]);
  await waitPly(watcher, 2);
  // White offers a draw; black plays on instead, and the offer lapses for everyone.
  await white.click("#offer-draw");
  await waitText(watcher, "#offer", /offers a draw/);
  assert.equal(await watcher.locator("#offer button").count(), 0, "a spectator has nothing to answer");
  await waitText(black, "#offer", /Your opponent offers a draw/);
  await typeMove(black, "C2-C3");
  for (const page of [black, white, watcher]) await waitText(page, "#offer-note", /The draw offer lapsed: a move was played/);
  assert.equal(await black.isVisible("#offer"), false);
  // White closes the tab and does not come back.
  await white.context().close();
  await black.waitForSelector("#banner:not([hidden]) #claim");
  await waitText(watcher, "#banner", /lost the connection; their seat is kept for \d+ s\.$/);
  await waitStatus(black, /^You won: white left the game and did not come back in time/);
  await waitStatus(watcher, /^Black won: white left the game and did not come back in time/);
  for (const page of [black, watcher]) {
    assert.doesNotMatch((await drawn(page)).result, /resigned/);
    assert.equal(await page.isVisible("#banner"), false, "the seat-kept banner goes with the game");
  }
  const stored = await waitStored(room, (g) => g.end_reason, 10000, own.url);
  assert.equal(stored.winner, "first");
  clean(black, watcher);
  for (const page of [black, watcher]) await page.close();
  await own.stop();
});
