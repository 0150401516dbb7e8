// Names and ratings, by real pages: a name in any script claimed for the browser's secret and
// refused to another browser; a rated room between two named players, ended by a resignation;
// both ratings moved, told on both pages, on the leaderboard and the player's page, and the
// stored game with its result.

import assert from "node:assert/strict";
import { test } from "node:test";
import { newPage, sharedSession } from "./helpers.mjs";
import { clean, resign, waitStatus, waitStored, waitText } from "./rooms.mjs";

const session = sharedSession();
const ANN = "中文玩家";
const BOB = "🦆 duck";

// Opens the home page and claims `name` in the name box; the line the page shows beside it.
async function chooseName(page, name) {
  await page.goto(`${session.server.url}/#/`);
  await page.waitForSelector("#name");
  await page.fill("#name", name);
  await page.press("#name", "Tab");
  await page.waitForFunction(() => document.getElementById("name-note").textContent || document.getElementById("name-error").textContent);
  return { note: await page.textContent("#name-note"), error: await page.textContent("#name-error") };
}

test("names are counted in graphemes, on the page and by the server: three family emoji are a name", { timeout: 60000 }, async () => {
  const family = "👨\u200D👩\u200D👧";
  const page = await newPage(session.browser);
  assert.deepEqual(await chooseName(page, family.repeat(3)), { note: " (yours)", error: "" });
  assert.match((await chooseName(page, family.repeat(21))).error, /^name: at most 20 characters, not 21$/);
  // The server counts alike (a page that skipped its own check).
  const claim = (name) => fetch(`${session.server.url}/api/players`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name, secret: "a".repeat(32) }),
  });
  assert.equal((await claim(`${family}${family}x`)).status, 200);
  const refused = await claim(family.repeat(21));
  assert.equal(refused.status, 400);
  assert.match((await refused.json()).error, /at most 20 characters, not 21/);
  clean(page);
  await page.close();
});

test("names in any script are held by the browser's secret; bad ones are refused with the field named", { timeout: 60000 }, async () => {
  const ann = await newPage(session.browser);
  assert.deepEqual(await chooseName(ann, "Ann 🦆"), { note: " (yours)", error: "" });
  const other = await newPage(session.browser);
  assert.match((await chooseName(other, "ann 🦆")).error, /^name: ann 🦆 is held by another player; choose another$/);
  assert.match((await chooseName(other, "x".repeat(21))).error, /^name: at most 20 characters, not 21$/);
  assert.match((await chooseName(other, "a\u0007b")).error, /^name: no control characters$/);
  // The same browser keeps its name after a reload.
  await ann.reload();
  await ann.waitForSelector("#name");
  assert.equal(await ann.inputValue("#name"), "Ann 🦆");
  assert.equal(await ann.textContent("#name-note"), " (yours)");
  clean(ann);
  for (const page of [ann, other]) await page.close();
});

test("a rated game between two named players changes both ratings, shown on the pages and the leaderboard", { timeout: 90000 }, async () => {
  const [ann, bob] = [await newPage(session.browser), await newPage(session.browser)];
  await chooseName(ann, ANN);
  await chooseName(bob, BOB);
  await ann.selectOption("#game-choice", "surakarta:6");
  await ann.check("#rated-room");
  await ann.click("#online-create");
  await waitStatus(ann, /Waiting for an opponent/);
  const room = Number(new URLSearchParams(ann.url().split("?")[1]).get("room"));
  assert.match(ann.url(), /rated=1/);
  // The lobby says the room is rated and how the waiting player is rated (1500 before a game).
  await waitText(bob, `#seeks li[data-room="${room}"]`, new RegExp(` · rated — ${ANN} \\(1500\\) Play$`));
  await bob.fill("#join-room", String(room));
  await bob.click("#online-join");
  await waitStatus(ann, /Black to move \(you\)/);
  await waitStatus(bob, /Black to move/);
  // The names stand by the clocks, with their ratings, and the game says it is rated.
  await waitText(bob, "#clock-first", new RegExp(`^black · ${ANN} \\(1500\\) `));
  await waitText(ann, "#clock-second", /^white · 🦆 duck \(1500\) /);
  for (const page of [ann, bob]) assert.equal(await page.textContent("#rated"), "Rated game: it counts for both players' ratings.");
  await resign(ann);
  for (const page of [ann, bob]) {
    await waitText(page, "#ratings", /^Ratings: /);
  }
  const line = await bob.textContent("#ratings");
  const [, annRating, annChange, bobRating, bobChange] = line.match(/^Ratings: 中文玩家 (\d+) \(−(\d+)\), 🦆 duck (\d+) \(\+(\d+)\)\.$/);
  assert.ok(Number(annRating) < 1500 && Number(bobRating) > 1500, line);
  assert.equal(Number(annRating) + Number(annChange), 1500);
  assert.equal(Number(bobRating) - Number(bobChange), 1500);
  const stored = await waitStored(session.server.url, room, (g) => g.end_reason);
  assert.deepEqual([stored.end_reason, stored.winner, stored.settings.rated, stored.first, stored.second], ["RESIGN", "second", 1, ANN, BOB]);
  // 20 s a move: 40 moves' time is 13 min, a rapid game.
  const board = await (await fetch(`${session.server.url}/api/leaderboard?class=surakarta/rapid`)).json();
  assert.deepEqual(board.players.map((p) => [p.name, Math.round(p.rating)]), [[BOB, Number(bobRating)], [ANN, Number(annRating)]]);
  await bob.goto(`${session.server.url}/#/leaderboard?class=surakarta/rapid`);
  await waitText(bob, "#leaderboard tbody", new RegExp(`^1🦆 duck${bobRating} ± \\d+12${ANN}${annRating}`));
  await bob.click(`#leaderboard a:text("${ANN}")`);
  await waitText(bob, "#player-ratings", new RegExp(`^surakarta/rapid: ${annRating} ± \\d+ \\(1 rated games\\)$`));
  await waitText(bob, "#player-games", /vs 🦆 duck: lost \(resign\), rated$/);
  clean(ann, bob);
  for (const page of [ann, bob]) await page.close();
});
