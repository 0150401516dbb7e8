// Fair play and what a player of a live game meets (issue 76): a game two people still play is
// listed to be watched, not replayed, and its replay page offers no engine until it ends (the
// server refuses its whole-game analysis too); a player resigns at once, on either turn.

import assert from "node:assert/strict";
import { test } from "node:test";
import { drawn, newPage, sharedSession, waitPly } from "./helpers.mjs";
import { clean, play, resign, seatedPair, storedOfRoom, waitStatus } from "./rooms.mjs";

const session = sharedSession();

// The home page's line for stored game `id`, once the list has loaded.
async function listed(page, id) {
  await page.waitForSelector(`#games li[data-game="${id}"]`, { timeout: 15000 });
  return page.$eval(`#games li[data-game="${id}"]`, (li) => ({
    text: li.textContent,
    links: [...li.querySelectorAll("a")].map((a) => ({ text: a.textContent, href: a.getAttribute("href") })),
  }));
}

test("a game in play is listed to watch, its replay offers no engine until it ends", { timeout: 90000 }, async () => {
  const url = session.server.url;
  const room = 7601;
  const [black, white] = await seatedPair(session.browser, url, room);
  await play(black, white, ["B2-B3", "B5-B4"]);
  const stored = await storedOfRoom(url, room);
  const home = await newPage(session.browser);
  await home.goto(`${url}/#/`);
  const line = await listed(home, stored.id);
  assert.deepEqual(line.links, [{ text: `Watch game ${stored.id}`, href: `#/watch?room=${room}` }], "a live game links to Watch only");
  assert.match(line.text, new RegExp(`being played in room ${room}`));

  // Its replay page, even asked for with the engine on: no engine, no bar, a way to watch.
  const replay = await newPage(session.browser);
  await replay.goto(`${url}/#/replay?id=${stored.id}&analysis=1`);
  await waitPly(replay, 0);
  await replay.waitForSelector("#banner:not([hidden])");
  assert.match(await replay.textContent("#banner"), /being played in room 7601: the engine and the analysis open when it ends/);
  assert.equal(await replay.getAttribute("#watch-live", "href"), `#/watch?room=${room}`);
  assert.equal(await replay.$("#analysis-toggle"), null, "no Show the engine on a live game");
  assert.equal(await replay.isVisible("#eval-bar"), false);
  await replay.click("#end");
  await waitPly(replay, 2);
  assert.equal(await replay.$("#analysis-toggle"), null);
  // The server refuses the whole-game analysis of a game not over.
  const refused = await fetch(`${url}/api/games/${stored.id}/analysis`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  assert.equal(refused.status, 409);

  // Once it ends: a replay, with the engine.
  await resign(white);
  await waitStatus(black, /^You won/);
  await home.reload();
  const over = await listed(home, stored.id);
  assert.deepEqual(over.links, [{ text: `Game ${stored.id}`, href: `#/replay?id=${stored.id}` }]);
  await replay.goto(`${url}/#/`);
  await replay.goto(`${url}/#/replay?id=${stored.id}`);
  await waitPly(replay, 0);
  await replay.waitForSelector("#analysis-toggle");
  clean(black, white, home, replay);
  for (const page of [black, white, home, replay]) await page.close();
});

test("a player resigns at once on the opponent's turn, and both pages say so", { timeout: 60000 }, async () => {
  const url = session.server.url;
  const [black, white] = await seatedPair(session.browser, url, 7602);
  await play(black, white, ["B2-B3"]);
  // Black's move is played: it is white's turn, and black resigns.
  await waitStatus(black, /White to move/);
  await resign(black);
  await waitStatus(black, /^You lost: /, 5000);
  await waitStatus(white, /^You won: /, 5000);
  assert.match((await drawn(white)).result, /Black resigned/);
  assert.equal(await black.isDisabled("#resign"), true);
  const stored = await storedOfRoom(url, 7602);
  assert.equal(stored.end_reason, "RESIGN");
  clean(black, white);
  for (const page of [black, white]) await page.close();
});
