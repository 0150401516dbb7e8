// An offer made while the other page is away: a player who reloads (and a spectator who comes
// in) while a draw offer waits sees it with its buttons, and can answer it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { drawn, newPage, sharedSession, typeMove, waitPly } from "./helpers.mjs";

const session = sharedSession();

async function waitText(page, selector, re, timeout = 20000) {
  await page.waitForFunction(([sel, source]) => {
    const node = document.querySelector(sel);
    return node && !node.closest("[hidden]") && new RegExp(source).test(node.textContent || "");
  }, [selector, re.source], { timeout });
}

test("a draw offer waiting through a reload is shown to both players and a spectator, and can be accepted", { timeout: 90000 }, async () => {
  const url = session.server.url;
  const black = await newPage(session.browser);
  const white = await newPage(session.browser);
  await black.goto(`${url}/#/online?game=surakarta&size=6&room=4141&colour=BLACK`);
  await waitText(black, "#status", /Waiting for an opponent/);
  await white.goto(`${url}/#/online?game=surakarta&size=6&room=4141`);
  await waitText(black, "#status", /Black to move \(you\)/);
  await typeMove(black, "B2-B3");
  await waitPly(white, 1);
  await black.click("#offer-draw");
  await waitText(white, "#offer", /Your opponent offers a draw/);
  // White reloads: the offer is still there, with its answers.
  await white.reload();
  await waitPly(white, 1);
  await waitText(white, "#offer", /Your opponent offers a draw/);
  assert.equal(await white.isVisible("#offer-accept"), true);
  assert.equal(await white.isDisabled("#offer-draw"), true, "one offer at a time");
  // Black reloads: its own offer, which it may withdraw.
  await black.reload();
  await waitPly(black, 1);
  await waitText(black, "#offer", /You offered a draw/);
  assert.equal(await black.isVisible("#offer-withdraw"), true);
  assert.equal(await black.isVisible("#offer-accept"), false);
  // A spectator who comes now sees it too, without buttons.
  const watcher = await newPage(session.browser);
  await watcher.goto(`${url}/#/watch?room=4141`);
  await waitPly(watcher, 1);
  await waitText(watcher, "#offer", /offers a draw/);
  assert.equal(await watcher.isVisible("#offer-accept"), false);
  await white.click("#offer-accept");
  for (const page of [black, white, watcher]) {
    await waitText(page, "#status", /^Draw/);
    assert.equal(await page.isVisible("#offer"), false);
  }
  assert.equal((await drawn(white)).ply, 1);
  for (const page of [black, white, watcher]) {
    assert.deepEqual(page.errors, [], "no error thrown in the page");
    assert.deepEqual(page.consoleErrors, [], "no error on the console");
    await page.close();
  }
});
