// A game the page has never heard of: the hexapawn example (crates/cli/examples/hexapawn, one
// line to register) served by its own build of arbiter, played to its end by clicks. Everything
// drawn — the cells, the labels, the pieces, the example move, the end — comes from the game's
// definition through the catalogue; no file under web/ names it.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  acceptWarning, checkAccessibility, drawn, hexapawnBin, newPage, sharedSession, waitPly,
} from "./helpers.mjs";

const session = sharedSession(async () => {}, hexapawnBin);

// Clicks `from` then `to` (yes to a warning that the move loses) and waits for the board to
// show the move.
async function play(page, from, to) {
  const before = (await drawn(page)).ply;
  await page.click(`svg.board .hit[data-square="${from}"]`);
  assert.ok(await page.$(`svg.board [data-target="${to}"]`), `${to} is a target of ${from}`);
  await page.click(`svg.board .hit[data-square="${to}"]`);
  await acceptWarning(page);
  await waitPly(page, before + 1);
}

test("hexapawn is chosen, drawn and played to its end by clicks", { timeout: 90000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(session.server.url);
  await page.selectOption("#game-choice", "hexapawn:3");
  await page.click("#mode-local");
  await waitPly(page, 0);
  const start = await drawn(page);
  assert.deepEqual(start.pieces, {
    a1: "first", b1: "first", c1: "first", a3: "second", b3: "second", c3: "second",
  });
  assert.equal(start.toMove, "WHITE");
  // The board as the game describes it: nine cells, columns a-c, rows 3 to 1 from the top.
  const looks = await page.evaluate(() => ({
    cells: document.querySelectorAll("svg.board .lines rect.cell").length,
    columns: [...document.querySelectorAll('svg.board [data-coord="column"]')].map((t) => t.textContent),
    rows: [...document.querySelectorAll('svg.board [data-coord="row"]')].map((t) => t.textContent),
    placeholder: document.getElementById("move-input").placeholder,
    letters: Boolean(document.getElementById("letters")),
    tagline: document.querySelector(".tagline").textContent,
  }));
  const { tagline, ...board } = looks;
  assert.deepEqual(board, { cells: 9, columns: ["a", "b", "c"], rows: ["3", "2", "1"], placeholder: "a1-a2", letters: false });
  assert.match(tagline, /Hexapawn/);
  // The board changes what changed: a piece no move touches keeps its element.
  await page.evaluate(() => {
    document.querySelector('svg.board .pieces [data-at="b3"]').dataset.kept = "yes";
  });
  await play(page, "b1", "b2");
  await play(page, "a3", "b2");
  assert.deepEqual((await drawn(page)).marks.captured, ["b2"]);
  await play(page, "c1", "b2");
  await play(page, "c3", "b2");
  assert.equal(await page.evaluate(() => document.querySelector('svg.board .pieces [data-at="b3"]').dataset.kept), "yes");
  await play(page, "a1", "b2");
  // Black's last pawn is blocked: white wins.
  const end = await drawn(page);
  assert.deepEqual(end.pieces, { b2: "first", b3: "second" });
  assert.equal(end.status, "won");
  assert.equal(end.result, "White won: Black cannot move.");
  assert.equal(await page.isHidden("#move-input"), true);
  await checkAccessibility(page, "a finished hexapawn game");
  // Stored move by move: the replay has the five moves.
  const id = new URLSearchParams(page.url().split("?")[1]).get("id");
  const stored = await (await fetch(`${session.server.url}/api/games/${id}`)).json();
  assert.deepEqual(stored.moves.map((m) => m.move), ["b1-b2", "a3-b2", "c1-b2", "c3-b2", "a1-b2"]);
  assert.equal(stored.end_reason, "TRAPPED");
  assert.deepEqual(page.errors, []);
});
