// Playing at one screen: with the keyboard alone, what the board draws (labels outside the grid
// however it is turned, one check ring, captured pieces marked), resigning and undo, and the
// game stored as it is played.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  checkAccessibility, DESKTOP, drawn, newPage, shot, storedOf, typeMove, waitPly,
  sharedSession,
} from "./helpers.mjs";

const session = sharedSession();

test("a whole game played with the keyboard alone", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser);
  // Duck Chess drawn after four quiet moves: short enough to play to its end here.
  await page.goto(`${session.server.url}/#/play?game=duck&mode=local&max_no_capture_round=4`);
  await waitPly(page, 0);
  // Tab to the board, walk with the arrows, pick with Enter, play with Space.
  await page.focus('svg.board .hit[tabindex="0"]');
  const walkTo = async (name) => {
    for (let i = 0; i < 30; i++) {
      const at = await page.evaluate(() => document.activeElement.dataset.square);
      if (at === name) return;
      const [col, row] = [at.charCodeAt(0), Number(at.slice(1))];
      const [wantCol, wantRow] = [name.charCodeAt(0), Number(name.slice(1))];
      const key = col < wantCol ? "ArrowRight" : col > wantCol ? "ArrowLeft" : row < wantRow ? "ArrowUp" : "ArrowDown";
      await page.keyboard.press(key);
    }
    throw new Error(`cannot reach ${name}`);
  };
  await walkTo("a0");
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute("aria-label")), "a0, red car");
  await page.keyboard.press("Enter");
  await walkTo("a1");
  assert.match(await page.evaluate(() => document.activeElement.getAttribute("aria-label")), /a move can go here/);
  await page.keyboard.press(" ");
  await waitPly(page, 1);
  // The rest typed in the move box, reached with Tab.
  await typeMove(page, "a9-a8");
  await typeMove(page, "a1a0");
  await typeMove(page, "a8-a9");
  const board = await drawn(page);
  assert.equal(board.status, "drawn");
  assert.equal(board.result, "Draw: No capture in 4 plies: a draw.");
  assert.deepEqual([board.marks.from, board.marks.to], [["a8"], ["a9"]]);
  assert.equal(board.pieces.a9, "second car");
  await checkAccessibility(page, "a finished game at one screen");
  assert.deepEqual(page.errors, []);
});

test("a check rings the captain attacked, and only that one", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(`${session.server.url}/#/play?game=duck&mode=local`);
  await waitPly(page, 0);
  for (const mv of ["a0-a1", "a6-a5", "e0-e1", "a7-c4", "c3-b2"]) await typeMove(page, mv);
  const board = await drawn(page);
  assert.deepEqual(board.marks.check, ["e1"]);
  assert.equal(board.pieces.e1, "first captain");
  assert.match(board.statusText, /check/);
  await shot(page, "duck-check-desktop");
});

test("an RC-02 capture is marked where the piece was", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(`${session.server.url}/#/play?game=rc02&size=4&mode=local`);
  await waitPly(page, 0);
  for (const mv of ["b1-b2", "c1-b1", "b4-b3"]) await typeMove(page, mv);
  const board = await drawn(page);
  assert.deepEqual(board.marks.captured, ["b1"]);
  assert.equal(board.pieces.b1, undefined);
  // The sides differ in shape as well as colour.
  const shapes = await page.evaluate(() => ["first", "second"].map((side) => document.querySelector(`.pieces .piece.${side} .disc`).tagName));
  assert.deepEqual(shapes, ["circle", "rect"]);
  await shot(page, "rc02-capture-desktop");
});

test("resigning asks first, ends the game for good, and the game is stored", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser, DESKTOP);
  await page.goto(`${session.server.url}/#/play?game=surakarta&size=6&mode=local`);
  await waitPly(page, 0);
  await typeMove(page, "A2-A3");
  await page.click("#resign");
  assert.ok(await page.isVisible("dialog[open]"));
  assert.equal(await page.evaluate(() => document.activeElement.id), "dialog-no");
  await page.keyboard.press("Escape");
  assert.equal((await drawn(page)).result, null, "Escape keeps playing");
  await page.click("#resign");
  await page.click("#dialog-yes");
  await page.waitForSelector("#result:not([hidden])");
  const board = await drawn(page);
  assert.equal(board.result, "Black won: White resigned.");
  assert.ok(await page.isDisabled("#undo"), "undo after resigning would revive the game");
  // The address names the stored game; the server has it, resignation and all.
  const id = new URLSearchParams(page.url().split("?")[1]).get("id");
  const game = await (await fetch(`${session.server.url}/api/games/${id}`)).json();
  assert.equal(game.record, "A2-A3 R#");
  assert.equal(game.settings.mode, "local");
});

test("undo is stored: the game plays on, is saved and ends stored after a takeback", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(`${session.server.url}/#/play?game=rc02&size=4&mode=local`);
  await waitPly(page, 0);
  await typeMove(page, "b1-b2");
  await typeMove(page, "c1-b1");
  await page.click("#undo");
  await waitPly(page, 1);
  assert.deepEqual((await storedOf(page, session.server.url)).moves.map((m) => m.move), ["b1-b2"],
    "the stored copy forgets the move taken back");
  await typeMove(page, "c1-c2");
  await typeMove(page, "b2-b3");
  await page.click("#resign");
  await page.click("#dialog-yes");
  await page.waitForSelector("#result:not([hidden])");
  const game = await storedOf(page, session.server.url);
  assert.deepEqual(game.moves.map((m) => m.move), ["b1-b2", "c1-c2", "b2-b3"]);
  assert.equal(game.record, "b1-b2 c1-c2 b2-b3 R#");
  assert.equal(game.winner, "first");
  assert.equal(await page.isHidden("#banner"), true, `no error shown: ${await page.textContent("#banner")}`);
  // The replay shows the line played, not the one taken back.
  await page.goto(`${session.server.url}/#/replay?id=${game.id}`);
  await waitPly(page, 0);
  const listed = await page.$$eval("#moves .ply", (plies) => plies.map((p) => p.textContent));
  assert.deepEqual(listed, ["b1-b2", "c1-c2", "b2-b3"]);
  assert.deepEqual(page.errors, []);
  assert.deepEqual(page.consoleErrors, []);
});

// What is drawn on square `name` above the pieces (a cross, a ghost), and the marks beneath them.
async function drawnAt(page, name) {
  return page.evaluate((sq) => {
    const svg = document.querySelector("svg.board");
    const layers = [...svg.children];
    const piecesAt = layers.indexOf(svg.querySelector(".pieces"));
    const hits = svg.querySelector(".hits");
    const over = [];
    const under = [];
    for (const e of svg.querySelectorAll(`[data-square="${sq}"], [data-at="${sq}"]`)) {
      const layer = e.closest("svg > g");
      if (!layer || layer === hits || layer.classList.contains("pieces")) continue;
      const what = `${layer.getAttribute("class")}: ${e.getAttribute("class")}`;
      (layers.indexOf(layer) > piecesAt ? over : under).push(what);
    }
    return { over, under, crosses: [...svg.querySelectorAll(".taken")].filter((c) => c.dataset.square === sq).length };
  }, name);
}

test("the piece that captured is not crossed out (Duck Chess and Surakarta)", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser);
  const games = [
    ["game=duck", ["a0-a1", "a6-a5", "e0-e1", "a7-c4"], "c3-c4", "first"],
    ["game=surakarta&size=6", ["B2-C3", "B5-A4", "C3-B4"], "D6-B4", "second"],
  ];
  for (const [query, before, capture, side] of games) {
    await page.goto(`${session.server.url}/#/play?${query}&mode=local`);
    await waitPly(page, 0);
    for (const mv of before) await typeMove(page, mv);
    await typeMove(page, capture);
    const to = capture.split("-")[1];
    const board = await drawn(page);
    assert.match(board.pieces[to], new RegExp(`^${side}`), `${query}: the capturing piece stands on ${to}`);
    assert.deepEqual(board.marks.captured, [to], `${query}: the capture is still shown`);
    const at = await drawnAt(page, to);
    assert.equal(at.crosses, 0, `${query}: no cross on ${to}`);
    assert.deepEqual(at.over, [], `${query}: nothing drawn over the piece on ${to}`);
    assert.ok(at.under.includes("marks: mark captured"), `${query}: the square is marked beneath the piece: ${at.under}`);
    await shot(page, `capture-${query.split("&")[0].slice(5)}`);
  }
  assert.deepEqual(page.errors, []);
  assert.deepEqual(page.consoleErrors, []);
});

test("the no-capture count starts again at a capture and is hidden when the limit is off; ← looks back", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(`${session.server.url}/#/play?game=rc02&size=4&mode=local`);
  await waitPly(page, 0);
  assert.match(await page.textContent("#no-capture"), /^Moves without a capture: 0 of 80$/);
  await typeMove(page, "b1-b2");
  await typeMove(page, "c1-b1");
  assert.match(await page.textContent("#no-capture"), /: 2 of 80$/);
  await typeMove(page, "b4-b3");
  assert.match(await page.textContent("#no-capture"), /: 0 of 80$/);
  // A look back: read-only, with the count of that position; End comes back to play on.
  await page.click("h1");
  await page.keyboard.press("ArrowLeft");
  await waitPly(page, 2);
  assert.match(await page.textContent("#no-capture"), /: 2 of 80$/);
  assert.equal(await page.isVisible("#move-input"), false);
  await page.keyboard.press("End");
  await waitPly(page, 3);
  assert.equal(await page.isVisible("#move-input"), true);
  const off = await newPage(session.browser);
  await off.goto(`${session.server.url}/#/play?game=duck&mode=local&max_no_capture_round=0`);
  await waitPly(off, 0);
  assert.equal(await off.isVisible("#no-capture"), false);
  for (const p of [page, off]) {
    assert.deepEqual(p.errors, []);
    assert.deepEqual(p.consoleErrors, []);
    await p.close();
  }
});
