// Links to rooms that hold no game to watch or join (issue 76): a bad room number says so
// clearly, a room whose game is over offers its replay, a room nobody plays in offers the replay
// of its last game, and no page names "an unknown game (null)".

import assert from "node:assert/strict";
import { test } from "node:test";
import { newPage, sharedSession } from "./helpers.mjs";
import { clean, play, resign, seatedPair, storedOfRoom, waitStatus } from "./rooms.mjs";

const session = sharedSession();

async function bannerOf(page) {
  await page.waitForSelector("#banner:not([hidden])", { timeout: 10000 });
  return page.textContent("#banner");
}

test("a bad room to watch or join is named as such, never as an unknown game", { timeout: 60000 }, async () => {
  const url = session.server.url;
  const page = await newPage(session.browser);
  await page.goto(`${url}/#/watch?room=abc`);
  assert.match(await bannerOf(page), /There is no room “abc”: rooms are numbered 0 to 1000000\./);
  await waitStatus(page, /There is no room “abc”/);
  assert.equal(await page.getAttribute("#banner a", "href"), "#/");
  await page.goto(`${url}/#/online?room=abc`);
  assert.match(await bannerOf(page), /There is no room “abc”/);
  assert.doesNotMatch(await page.textContent("body"), /null|unknown game/);
  // A number past the last room.
  await page.goto(`${url}/#/watch?room=99999999`);
  assert.match(await bannerOf(page), /There is no room “99999999”/);
  clean(page);
  await page.close();
});

test("a finished room offers its game's replay, and an empty one the replay of its last game", { timeout: 90000 }, async () => {
  const url = session.server.url;
  const room = 7621;
  const [black, white] = await seatedPair(session.browser, url, room);
  await play(black, white, ["B2-B3", "B5-B4"]);
  await resign(white);
  await waitStatus(black, /^You won/);
  const stored = await storedOfRoom(url, room);
  const watcher = await newPage(session.browser);
  await watcher.goto(`${url}/#/watch?room=${room}`);
  assert.match(await bannerOf(watcher), new RegExp(`The game in room ${room} is over`));
  await waitStatus(watcher, new RegExp(`The game in room ${room} is over|won`));
  assert.equal(await watcher.getAttribute("#replay-last", "href"), `#/replay?id=${stored.id}`);
  assert.doesNotMatch(await watcher.textContent("#status"), /Nobody plays/);

  // A room nobody has played in: said so, no link to follow.
  await watcher.goto(`${url}/#/watch?room=7699`);
  assert.match(await bannerOf(watcher), /Nobody plays in room 7699 now, and no game of it is stored yet/);
  // The players gone, the room empty: the replay of its last game.
  await black.close();
  await white.close();
  await watcher.waitForTimeout(500);
  const other = await newPage(session.browser);
  await other.goto(`${url}/#/watch?room=${room}`);
  assert.match(await bannerOf(other), new RegExp(`room ${room}`));
  await other.waitForSelector("#replay-last");
  assert.equal(await other.getAttribute("#replay-last", "href"), `#/replay?id=${stored.id}`);
  clean(watcher, other);
  await watcher.close();
  await other.close();
});
