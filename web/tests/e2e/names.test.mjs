// A name is shown as its player wrote it everywhere (issue 76): one with `<` and `>` reads the
// same in the records of games played at this screen (the home page's list, the replay) as on
// the home page and in a room.

import assert from "node:assert/strict";
import { test } from "node:test";
import { newPage, sharedSession, typeMove, waitPly } from "./helpers.mjs";
import { clean } from "./rooms.mjs";

const session = sharedSession();
const NAME = "<b>Zoë</b> > 1";

test("a name with < and > reads the same in a local game's record as on the home page", { timeout: 60000 }, async () => {
  const url = session.server.url;
  const page = await newPage(session.browser);
  await page.goto(`${url}/#/`);
  await page.fill("#name", NAME);
  await page.press("#name", "Tab");
  await page.waitForFunction(() => document.getElementById("name-note").textContent.includes("yours"), null, { timeout: 10000 });
  assert.equal(await page.inputValue("#name"), NAME);

  await page.selectOption("#game-choice", "surakarta:6");
  await page.click("#mode-local");
  await page.waitForFunction(() => /#\/play\?.*id=\d+/.test(location.hash), null, { timeout: 10000 });
  await waitPly(page, 0);
  await typeMove(page, "B2-B3");
  const id = new URLSearchParams(page.url().split("?")[1]).get("id");
  const stored = await (await fetch(`${url}/api/games/${id}`)).json();
  assert.deepEqual([stored.first, stored.second], [`${NAME} (black)`, `${NAME} (white)`]);

  await page.goto(`${url}/#/`);
  const listed = page.locator(`#games li[data-game="${id}"]`);
  await listed.waitFor({ timeout: 10000 });
  assert.match(await listed.textContent(), new RegExp(`— ${escape(NAME)} \\(black\\) vs ${escape(NAME)} \\(white\\)`));
  await page.goto(`${url}/#/replay?id=${id}`);
  await page.waitForFunction(() => / vs /.test(document.querySelector(".game-title")?.textContent || ""), null, { timeout: 10000 });
  assert.equal(await page.textContent(".game-title"), `Replay of game ${id}: Surakarta 6×6 — ${NAME} (black) vs ${NAME} (white)`);
  clean(page);
  await page.close();
});

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
