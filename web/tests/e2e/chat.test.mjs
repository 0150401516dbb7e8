// A room's chat as its players and spectators see it (issue 76): a box of at most 500
// characters with a counter, a long word wrapped inside the panel, and the spectators' own
// channel, which the players never see.

import assert from "node:assert/strict";
import { test } from "node:test";
import { newPage, PHONE, sharedSession } from "./helpers.mjs";
import { clean, seatedPair, waitStatus } from "./rooms.mjs";

const session = sharedSession();

// The chat lines a page shows.
const lines = (page) => page.$$eval("#chat p", (ps) => ps.map((p) => p.textContent));

async function waitLine(page, re, timeout = 10000) {
  await page.waitForFunction((source) => [...document.querySelectorAll("#chat p")].some((p) => new RegExp(source).test(p.textContent)),
    re.source, { timeout });
}

async function say(page, text) {
  await page.fill("#chat-input", text);
  await page.click("#chat-send");
}

test("chat: at most 500 characters with a counter, long words wrap, spectators have their own channel", { timeout: 90000 }, async () => {
  const url = session.server.url;
  const room = 7603;
  const [black, white] = await seatedPair(session.browser, url, room, { viewport: PHONE });
  const watchers = [await newPage(session.browser, PHONE), await newPage(session.browser)];
  for (const w of watchers) {
    await w.goto(`${url}/#/watch?room=${room}`);
    await waitStatus(w, /Black to move/);
  }

  // The box: 500 characters at most, counted as they are typed.
  assert.equal(await black.getAttribute("#chat-input", "maxlength"), "500");
  assert.equal(await black.textContent("#chat-count"), "0/500");
  await black.fill("#chat-input", "hello");
  assert.equal(await black.textContent("#chat-count"), "5/500");
  await black.fill("#chat-input", "y".repeat(600));
  assert.ok((await black.inputValue("#chat-input")).length <= 500, "the box takes 500 characters at most");
  assert.equal(await black.textContent("#chat-count"), "500/500");

  // A long word wraps inside the panel, on the phone and for a spectator.
  const word = "w".repeat(300);
  await say(black, word);
  await waitLine(white, /w{300}/);
  await waitLine(watchers[0], /w{300}/);
  for (const page of [black, white, watchers[0]]) {
    const fits = await page.$eval("#chat", (chat) => ({ scroll: chat.scrollWidth, client: chat.clientWidth,
      right: chat.getBoundingClientRect().right, page: document.documentElement.clientWidth }));
    assert.ok(fits.scroll <= fits.client + 1, `the long word stays inside the panel: ${JSON.stringify(fits)}`);
    assert.ok(fits.right <= fits.page + 1, `the panel stays on the screen: ${JSON.stringify(fits)}`);
  }

  // Spectators: their own channel, which they are told of; the players never see it.
  assert.match(await watchers[0].textContent("#chat-channel"), /the players do not see it/);
  await say(watchers[0], "nice opening");
  await waitLine(watchers[1], /\(spectator\): nice opening$/);
  assert.ok((await lines(watchers[0])).includes("you (spectator): nice opening"));
  await say(white, "thanks all");
  for (const page of [black, ...watchers]) await waitLine(page, /: thanks all$/);
  for (const player of [black, white]) {
    assert.ok(!(await lines(player)).some((l) => /nice opening/.test(l)), "a player never sees the spectators' chat");
  }
  clean(black, white, ...watchers);
  for (const page of [black, white, ...watchers]) await page.close();
});

test("a line over 500 characters is refused with a reason shown in the chat", { timeout: 60000 }, async () => {
  const url = session.server.url;
  const [black, white] = await seatedPair(session.browser, url, 7604);
  await say(black, "short");
  await waitLine(white, /: short$/);
  // The page's own box refuses too, before sending, should its limit be bypassed.
  await black.evaluate(() => {
    const input = document.getElementById("chat-input");
    input.removeAttribute("maxlength");
    input.value = "z".repeat(501);
  });
  await black.click("#chat-send");
  await waitLine(black, /A chat message has at most 500 characters/);
  assert.ok(!(await lines(white)).some((l) => /z{501}/.test(l)));
  clean(black, white);
  for (const page of [black, white]) await page.close();
});
