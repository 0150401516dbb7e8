// The Duck Chess pieces' glyphs (issue 76): the Chinese glyphs or Latin letters, chosen once per
// browser and kept for every view (a game here, a spectator's, the judge visualiser), and the
// Latin letters by themselves where the Chinese glyphs cannot be drawn.

import assert from "node:assert/strict";
import { test } from "node:test";
import { newPage, sharedSession, waitPly } from "./helpers.mjs";
import { clean, seatedIn, waitStatus } from "./rooms.mjs";

const session = sharedSession();

// The glyph on red's captain.
const captain = (page) => page.textContent('svg.board .pieces [data-piece="first captain"] text');

async function waitCaptain(page, glyph) {
  await page.waitForFunction((g) => document.querySelector('svg.board .pieces [data-piece="first captain"] text')?.textContent === g,
    glyph, { timeout: 15000 });
}

test("the Latin letters chosen once are kept on reload, for a spectator and in the judge visualiser", { timeout: 90000 }, async () => {
  const url = session.server.url;
  const page = await newPage(session.browser);
  await page.goto(`${url}/#/play?game=duck&mode=local`);
  await waitPly(page, 0);
  assert.equal(await captain(page), "王");
  assert.equal(await page.textContent("#letters"), "Latin letters");
  await page.click("#letters");
  await waitCaptain(page, "K");
  assert.equal(await page.textContent("#letters"), "Chinese pieces");
  await page.reload();
  await waitPly(page, 0);
  await waitCaptain(page, "K");
  assert.equal(await page.textContent("#letters"), "Chinese pieces", "the choice is kept on reload");

  // A spectator of a Duck Chess room (same browser): the switch is offered, the choice kept.
  const [red, blue] = await seatedIn(session.browser, url, { query: "game=duck", room: 7611, colour: "RED", side: "Red " });
  const watcher = await page.context().newPage();
  watcher.errors = [];
  watcher.on("pageerror", (e) => watcher.errors.push(e.message));
  await watcher.goto(`${url}/#/watch?room=7611`);
  await waitStatus(watcher, /Red to move/);
  await waitCaptain(watcher, "K");
  await watcher.waitForSelector("#letters");
  await watcher.click("#letters");
  await waitCaptain(watcher, "王");

  // The judge visualiser: the switch, and the choice the spectator just made.
  await page.goto(`${url}/#/judge?game=duck`);
  await page.selectOption("#judge-game", "duck");
  await page.click("#judge-example");
  await page.click("#judge-run");
  await page.waitForSelector('svg.board .pieces [data-piece="first captain"]');
  await waitCaptain(page, "王");
  assert.equal(await page.textContent("#letters"), "Latin letters");
  await page.click("#letters");
  await waitCaptain(page, "K");
  await page.goto(`${url}/#/play?game=duck&mode=local&new=1`);
  await waitCaptain(page, "K");
  clean(page, red, blue);
  assert.deepEqual(watcher.errors, []);
  for (const p of [page, watcher, red, blue]) await p.close();
});

test("where the Chinese glyphs cannot be drawn, the pieces wear Latin letters", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser);
  // A machine with no font for the glyphs: text leaves no ink on a canvas.
  await page.addInitScript(() => {
    CanvasRenderingContext2D.prototype.fillText = function fillText() {};
  });
  await page.goto(`${session.server.url}/#/play?game=duck&mode=local`);
  await waitPly(page, 0);
  await waitCaptain(page, "K");
  assert.equal(await page.isDisabled("#letters"), true);
  assert.match(await page.getAttribute("#letters", "title"), /no font for the Chinese pieces/);
  clean(page);
  await page.close();
});
