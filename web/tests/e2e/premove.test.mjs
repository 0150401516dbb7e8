// Premoves, as lichess has them: during the opponent's turn a player picks a piece and a
// target, the move is queued and shown, and it is played at once when the turn comes if it is
// still legal (dropped if not); a click elsewhere on the board or a right-click cancels it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { drawn, sharedSession, typeMove, waitPly } from "./helpers.mjs";
import { clean, seatedPair, waitStatus } from "./rooms.mjs";

const session = sharedSession();

// Clicks point `square` of `page`'s board (with the right button when `right`).
async function clickPoint(page, square, right = false) {
  await page.click(`svg.board .hit[data-square="${square}"]`, right ? { button: "right" } : {});
}

// The premove `page` shows: its from and to squares, as marked on the board.
async function premoveShown(page) {
  return (await drawn(page)).marks.premove || [];
}

// Until `page`'s status no longer speaks of a premove.
async function noPremove(page) {
  await page.waitForFunction(() => !/premove/.test(document.getElementById("status").textContent), null, { timeout: 5000 });
  assert.deepEqual(await premoveShown(page), []);
}

async function queue(page, from, to) {
  await clickPoint(page, from);
  await clickPoint(page, to);
  await page.waitForFunction(([f, t]) => [...document.querySelectorAll('svg.board [data-mark="premove"]')]
    .map((m) => m.dataset.square).join() === `${f},${t}`, [from, to], { timeout: 5000 });
}

test("a premove is shown, cancelled by a right-click or a click elsewhere, dropped when illegal, played at once when legal", { timeout: 90000 }, async () => {
  const [black, white] = await seatedPair(session.browser, session.server.url, 5101);
  await typeMove(black, "B2-B3");
  await waitPly(white, 1);
  await waitStatus(black, /White to move/);

  // Queued on the opponent's turn: marked on the board and said in the status.
  await queue(black, "C2", "C3");
  assert.deepEqual(await premoveShown(black), ["C2", "C3"]);
  await waitStatus(black, /premove C2-C3/);
  assert.deepEqual(await premoveShown(white), [], "the opponent never sees a premove");
  // A right-click cancels it.
  await clickPoint(black, "C3", true);
  await noPremove(black);
  // So does a click elsewhere on the board (a point with none of this side's pieces).
  await queue(black, "C2", "C3");
  await clickPoint(black, "D4");
  await noPremove(black);

  // A premove the opponent's answer makes illegal is dropped: the turn waits for a move.
  await queue(black, "B3", "B4");
  await typeMove(white, "B5-B4");
  await waitPly(black, 2);
  await waitStatus(black, /Black to move \(you\)$/);
  await noPremove(black);
  assert.equal((await drawn(black)).ply, 2, "the dropped premove was not played");

  // A legal premove is played the moment the turn comes, without another click.
  await typeMove(black, "A2-A3");
  await waitPly(white, 3);
  await queue(black, "C2", "C3");
  await typeMove(white, "F5-F4");
  await waitPly(black, 5);
  await waitPly(white, 5);
  const seen = await drawn(white);
  assert.deepEqual([seen.marks.from, seen.marks.to], [["C2"], ["C3"]]);
  await waitStatus(white, /White to move \(you\)$/);
  await noPremove(black);
  const listed = await black.$$eval("#moves .ply", (plies) => plies.map((p) => p.textContent));
  assert.deepEqual(listed, ["B2-B3", "B5-B4", "A2-A3", "F5-F4", "C2-C3"]);
  clean(black, white);
  await black.close();
  await white.close();
});
