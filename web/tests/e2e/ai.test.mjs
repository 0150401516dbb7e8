// Playing the AI: seeded moves, a reload mid-game that finds the game again, undo while the AI
// thinks, the warning before a losing move, and the stored game replayable afterwards.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  checkAccessibility, drawn, newPage, playSeeded, seeded, settled, shot,
  typeMove, waitPly,
  sharedSession,
} from "./helpers.mjs";

const session = sharedSession();

test("a reload mid-game against the AI finds the game again, and it is stored", { timeout: 120000 }, async () => {
  const page = await newPage(session.browser);
  const rng = seeded(7);
  await page.goto(`${session.server.url}/#/play?game=rc02&size=6&mode=ai&level=easy&colour=first`);
  await settled(page);
  for (let i = 0; i < 3; i++) {
    await playSeeded(page, rng);
    await settled(page);
  }
  const before = await drawn(page);
  assert.equal(before.ply, 6);
  await checkAccessibility(page, "a game against the AI");
  await page.reload();
  await waitPly(page, 6);
  const after = await drawn(page);
  assert.deepEqual(after.pieces, before.pieces);
  assert.match(after.statusText, /Red to move \(you\)/);
  // Forward again after Back: the same game, not a new one.
  const url = page.url();
  await page.goto(`${session.server.url}/#/`);
  await page.goBack();
  await waitPly(page, 6);
  assert.equal(page.url(), url);
  await playSeeded(page, rng);
  await settled(page);
  const id = new URLSearchParams(url.split("?")[1]).get("id");
  const game = await (await fetch(`${session.server.url}/api/games/${id}`)).json();
  assert.equal(game.settings.mode, "ai");
  assert.equal(game.moves.length, 8);
  // …and replayable.
  await page.goto(`${session.server.url}/#/replay?id=${id}`);
  await waitPly(page, 0);
  await page.click("#end");
  await waitPly(page, 8);
  assert.deepEqual(page.errors, []);
});

test("the hard level answers within its second on Surakarta and Duck Chess", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser);
  for (const [game, move] of [["surakarta&size=6", "B2-B3"], ["duck", "a3-a4"]]) {
    await page.goto(`${session.server.url}/#/play?game=${game}&mode=ai&level=hard&colour=first`);
    await waitPly(page, 0);
    await typeMove(page, move);
    const asked = Date.now();
    await waitPly(page, 2);
    // `hard` thinks for one second; the rest is the page and the server on a busy machine.
    const took = Date.now() - asked;
    assert.ok(took < 4000, `${game}: the hard AI answered after ${took} ms`);
    assert.match((await drawn(page)).statusText, /to move \(you\)$/);
  }
  assert.deepEqual(page.errors, []);
});

test("undo while the AI thinks gives the move back at once", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(`${session.server.url}/#/play?game=duck&mode=ai&level=hard&colour=first`);
  await waitPly(page, 0);
  await typeMove(page, "a3-a4");
  await page.waitForFunction(() => /thinking/.test(document.getElementById("status").textContent));
  await page.click("#undo");
  await waitPly(page, 0);
  const board = await drawn(page);
  assert.match(board.statusText, /^Red to move \(you\)$/);
  await page.waitForTimeout(1500);
  assert.equal((await drawn(page)).ply, 0, "the abandoned search must not play");
  await shot(page, "duck-ai-desktop");
});

test("the AI plays first when the person takes the second side, on a turned board", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(`${session.server.url}/#/play?game=surakarta&size=6&mode=ai&level=easy&colour=second`);
  const board = await settled(page);
  assert.equal(board.ply, 1);
  assert.ok(board.flipped);
  assert.match(board.statusText, /White to move \(you\)/);
});
