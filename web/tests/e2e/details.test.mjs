// Smaller things a player meets (issue 76): the replay's ¼× speed, tenths of a second on a clock
// under 10 s, the judge visualiser's step buttons before anything was judged, and how many
// watch a game, shown to its players.

import assert from "node:assert/strict";
import { test } from "node:test";
import { drawn, newPage, sharedSession, storedGame, waitPly } from "./helpers.mjs";
import { clean, play, seatedPair } from "./rooms.mjs";

let gameId;
const RECORD = ["B2-B3", "B5-B4", "C2-C3", "C5-C4"];

const session = sharedSession(async ({ server }) => {
  gameId = await storedGame(server.url, "surakarta", { size: 6 }, RECORD, "first");
});

test("the replay plays at ¼×: a move every 3.2 s", { timeout: 30000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(`${session.server.url}/#/replay?id=${gameId}`);
  await waitPly(page, 0);
  const speeds = await page.$$eval("#speed option", (os) => os.map((o) => [o.value, o.textContent]));
  assert.deepEqual(speeds[0], ["3200", "¼×"]);
  await page.selectOption("#speed", "3200");
  await page.click("#play");
  await page.waitForTimeout(2000);
  assert.equal((await drawn(page)).ply, 0, "¼×: no move within 2 s");
  await waitPly(page, 1, 4000);
  clean(page);
  await page.close();
});

test("a clock under 10 s shows tenths of a second", { timeout: 60000 }, async () => {
  const [black, white] = await seatedPair(session.browser, session.server.url, 7631, { query: "&tc=3s" });
  // Each side's first move is off the clock (30 s): whole seconds above 10 s.
  assert.match(await black.textContent("#clock-first"), / 0:[23]\d$/);
  await play(black, white, ["B2-B3", "B5-B4"]);
  // Black has 3 s a move now: tenths.
  const shown = await black.textContent("#clock-first");
  assert.match(shown, / 0:0[0-3]\.\d$/, `black's clock under 10 s: ${shown}`);
  clean(black, white);
  for (const page of [black, white]) await page.close();
});

test("the judge visualiser's step buttons before a run throw nothing", { timeout: 30000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(`${session.server.url}/#/judge`);
  await page.waitForSelector("#judge-run");
  for (const id of ["judge-last", "judge-first", "judge-next", "judge-back", "judge-go", "judge-play"]) {
    await page.evaluate((i) => document.getElementById(i).click(), id);
  }
  await page.waitForTimeout(800);
  assert.equal(await page.textContent("#judge-message"), "");
  clean(page);
  await page.close();
});

test("the players see how many spectators watch their game, and that it is casual", { timeout: 60000 }, async () => {
  const url = session.server.url;
  const [black, white] = await seatedPair(session.browser, url, 7632);
  assert.equal(await black.isVisible("#spectators"), false, "nobody watches yet");
  assert.equal(await white.textContent("#rated"), "Casual game: no rating changes.");
  const watchers = [await newPage(session.browser), await newPage(session.browser)];
  for (const w of watchers) await w.goto(`${url}/#/watch?room=7632`);
  for (const page of [black, white]) {
    await page.waitForFunction(() => /^2 spectators watch this game\.$/.test(document.getElementById("spectators")?.textContent || "")
      && !document.getElementById("spectators").hidden, null, { timeout: 12000 });
  }
  await watchers[1].close();
  await black.waitForFunction(() => document.getElementById("spectators").textContent === "1 spectator watches this game.", null, { timeout: 12000 });
  clean(black, white, watchers[0]);
  for (const page of [black, white, watchers[0]]) await page.close();
});
