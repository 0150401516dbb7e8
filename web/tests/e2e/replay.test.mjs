// Replaying a stored game (made here through the API, so this file needs no other test): every
// position drawn in order at the fastest speed, Pause stops where it is, plies are clickable,
// trying moves from a position and returning to the record.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  checkAccessibility, drawn, newPage, playSeeded, seeded, sharedSession, shot, storedGame, waitPly,
} from "./helpers.mjs";

let gameId;
// A Surakarta 6×6 opening of twelve moves, ending in a resignation.
const RECORD = ["B2-B3", "B5-B4", "C2-C3", "C5-C4", "D2-D3", "D5-D4", "A2-A3", "E5-E4", "E2-E3", "F5-F4", "F2-F3", "A5-A4"];

const session = sharedSession(async ({ server }) => {
  gameId = await storedGame(server.url, "surakarta", { size: 6 }, RECORD, "first");
});

// Records every ply the board is drawn at, as it is drawn.
async function watchPlies(page) {
  await page.evaluate(() => {
    window.seenPlies = [];
    const note = () => {
      const svg = document.querySelector("svg.board");
      const ply = svg && Number(svg.dataset.ply);
      if (svg && window.seenPlies[window.seenPlies.length - 1] !== ply) window.seenPlies.push(ply);
    };
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-ply"] });
    note();
  });
}

test("playback at 4× draws every position in order, and Pause stops at once", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(`${session.server.url}/#/replay?id=${gameId}`);
  await waitPly(page, 0);
  await watchPlies(page);
  await page.selectOption("#speed", "200");
  await page.click("#play");
  await waitPly(page, 7);
  await page.click("#play"); // now "Pause"
  const pausedAt = (await drawn(page)).ply;
  await page.waitForTimeout(1200);
  assert.equal((await drawn(page)).ply, pausedAt, "Pause must not move on");
  await page.click("#play");
  await waitPly(page, RECORD.length);
  const seen = await page.evaluate(() => window.seenPlies);
  assert.deepEqual(seen, [...Array(RECORD.length + 1).keys()], "every position once, in order");
  const board = await drawn(page);
  assert.equal(board.result, "White won: Black resigned.");
  assert.deepEqual([board.marks.from, board.marks.to], [["A5"], ["A4"]]);
  await checkAccessibility(page, "the replay");
  await shot(page, "replay-desktop");
  assert.deepEqual(page.errors, []);
});

test("a ply in the move list jumps there; trying moves branches off and comes back", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(`${session.server.url}/#/replay?id=${gameId}`);
  await waitPly(page, 0);
  await page.click('.moves .ply[data-ply="5"]');
  await waitPly(page, 5);
  let board = await drawn(page);
  assert.deepEqual([board.marks.from, board.marks.to], [["D2"], ["D3"]]);
  assert.match(board.statusText, /^Move 5 of 12/);
  await page.fill("#goto", "3");
  await page.click("#go");
  await waitPly(page, 3);
  await page.click("#try");
  await playSeeded(page, seeded(3));
  board = await drawn(page);
  assert.equal(board.ply, 4);
  assert.match(board.statusText, /Trying moves from move 3/);
  await page.click("#back-to-record");
  await waitPly(page, 3);
  assert.match((await drawn(page)).statusText, /^Move 3 of 12/);
  assert.deepEqual(page.errors, []);
});

test("a game that does not exist says so", { timeout: 30000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(`${session.server.url}/#/replay?id=999999`);
  await page.waitForSelector("#banner:not([hidden])");
  assert.match(await page.textContent("#banner"), /Cannot load game 999999/);
});

test("←/→, Home and End step through the replay; the no-capture count follows the position", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(`${session.server.url}/#/replay?id=${gameId}`);
  await waitPly(page, 0);
  assert.match(await page.textContent("#no-capture"), /^Moves without a capture: 0 of 40$/);
  await page.click("h1");
  await page.keyboard.press("ArrowRight");
  await waitPly(page, 1);
  await page.keyboard.press("ArrowRight");
  await waitPly(page, 2);
  assert.match(await page.textContent("#no-capture"), /: 2 of 40$/);
  await page.keyboard.press("End");
  await waitPly(page, RECORD.length);
  await page.keyboard.press("ArrowLeft");
  await waitPly(page, RECORD.length - 1);
  assert.match((await drawn(page)).statusText, new RegExp(`^Move ${RECORD.length - 1} of ${RECORD.length}`));
  await page.keyboard.press("Home");
  await waitPly(page, 0);
  // In the go-to box the keys are the box's own.
  await page.click("#goto");
  await page.keyboard.press("End");
  await page.waitForTimeout(300);
  assert.equal((await drawn(page)).ply, 0);
  assert.deepEqual(page.errors, []);
  assert.deepEqual(page.consoleErrors, []);
});
