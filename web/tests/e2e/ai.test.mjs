// A whole game against the AI in each game, and a screenshot of each board.

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { clickMove, launch, newPage, screenshotDir, settled, startServer } from "./helpers.mjs";

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launch();
  mkdirSync(screenshotDir, { recursive: true });
});

after(async () => {
  await browser?.close();
  server?.stop();
});

for (const [name, hash] of [
  ["duck", "#/play?game=duck&mode=ai&level=easy&colour=first"],
  ["surakarta", "#/play?game=surakarta&size=6&mode=ai&level=easy&colour=first"],
  ["rc02", "#/play?game=rc02&size=4&mode=ai&level=easy&colour=second"],
]) {
  test(`a whole ${name} game against the AI`, { timeout: 600000 }, async () => {
    const page = await newPage(browser);
    await page.goto(`${server.url}/${hash}`);
    let state = await settled(page);
    await page.screenshot({ path: path.join(screenshotDir, `${name}-start.png`) });
    for (let i = 0; i < 400 && !state.over; i++) {
      await clickMove(page);
      state = await settled(page);
    }
    assert.ok(state.over, `the ${name} game should end: ${state.status}`);
    assert.match(state.status, /wins|Draw/);
    await page.screenshot({ path: path.join(screenshotDir, `${name}-end.png`) });
    // Undo takes the game back to a position where the person moves again.
    await page.click("#undo");
    const back = await settled(page);
    assert.ok(back.ply < state.ply);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test("the losing-move warning asks before the move is played", async () => {
  const page = await newPage(browser);
  // Duck Chess: blue's car stands on the e-file and only red's soldier on e3 shields red's
  // captain, so moving that soldier aside loses the captain.
  const moves = ["a0-a1", "e6-d5", "a1-a0", "i9-i8", "a0-a1", "i8-e8"];
  await page.goto(`${server.url}/#/play?game=duck&mode=local`);
  await settled(page);
  const losing = await page.evaluate(async (moves) => {
    const r = await fetch("/api/analyze", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ game: "duck", moves }) });
    return (await r.json()).losing;
  }, moves);
  assert.ok(losing.includes("e3-d2"), `moving the shielding soldier loses: ${losing}`);
  await page.evaluate((moves) => {
    window.arbiter.moves = moves;
    return window.arbiter.refresh();
  }, moves);
  await page.waitForFunction(() => window.arbiter.losing.size > 0, null, { timeout: 10000 });
  const [from, to] = ["e3", "d2"];
  await page.click(`svg.board [data-square="${from}"]`);
  await page.click(`svg.board [data-square="${to}"]`);
  await page.waitForSelector("#modal:not([hidden])");
  await page.click("#modal-no");
  assert.equal(await page.evaluate(() => window.arbiter.moves.length), 6, "cancelled: nothing played");
  await page.click(`svg.board [data-square="e3"]`);
  await page.click(`svg.board [data-square="d2"]`);
  await page.waitForSelector("#modal:not([hidden])");
  await page.click("#modal-yes");
  await page.waitForFunction(() => window.arbiter.moves.length === 7);
  await page.close();
});
