// Live play as a lichess player expects it, by two real pages in one room: a tone for every move
// and a warning beep when one's own time runs low (counted where the page makes them: the
// oscillators its AudioContext starts), a tab title that says whose move it is, rematches that
// swap the colours, and the lobby.

import assert from "node:assert/strict";
import { test } from "node:test";
import { drawn, newPage, sharedSession, typeMove, waitPly } from "./helpers.mjs";
import { clean, resign, seatedPair, waitStatus, waitText } from "./rooms.mjs";

const session = sharedSession();
const BASE_TITLE = "arbiter — board games, their judges and a server";
const MOVE_TONE = 440;
const LOW_TIME_TONE = 1320;

// Records the frequency of every oscillator the page starts (the page's own AudioContext,
// wrapped before any of its scripts runs).
async function countTones(page) {
  await page.addInitScript(() => {
    window.tones = [];
    const Real = window.AudioContext;
    window.AudioContext = class extends Real {
      createOscillator() {
        const osc = super.createOscillator();
        const start = osc.start.bind(osc);
        osc.start = (...args) => {
          window.tones.push(osc.frequency.value);
          return start(...args);
        };
        return osc;
      }
    };
  });
}

const tones = (page, frequency) => page.evaluate((f) => window.tones.filter((t) => t === f).length, frequency);

async function waitTitle(page, title) {
  await page.waitForFunction((t) => document.title === t, title, { timeout: 10000 });
}

test("an ordinary move sounds on both pages; the tab title says whose move it is, and goes back at the end", { timeout: 60000 }, async () => {
  const [black, white] = await seatedPair(session.browser, session.server.url, 3201, { prepare: countTones });
  await waitTitle(black, "Your move — arbiter");
  await waitTitle(white, "Opponent's move — arbiter");
  assert.equal(await tones(black, MOVE_TONE), 0);
  await typeMove(black, "B2-B3");
  await waitPly(white, 1);
  // No capture, no check: the plain move tone, once on each page.
  await white.waitForFunction((f) => window.tones.includes(f), MOVE_TONE);
  assert.equal(await tones(white, MOVE_TONE), 1);
  assert.equal(await tones(black, MOVE_TONE), 1);
  await waitTitle(black, "Opponent's move — arbiter");
  await waitTitle(white, "Your move — arbiter");
  await resign(white);
  await waitStatus(black, /^You won/);
  await waitTitle(black, BASE_TITLE);
  await waitTitle(white, BASE_TITLE);
  assert.equal(await tones(black, LOW_TIME_TONE), 0, "20 s a move never ran low");
  clean(black, white);
  for (const page of [black, white]) await page.close();
});

test("low time beeps once on the page whose clock runs low, not on the opponent's", { timeout: 60000 }, async () => {
  // 3 s a move, once both first moves (off the clock) are played: under a quarter of it left
  // (0.75 s), black's page beeps, then black loses on time.
  const [black, white] = await seatedPair(session.browser, session.server.url, 3202, { query: "&tc=3s", prepare: countTones });
  await typeMove(black, "B2-B3");
  await waitPly(white, 1);
  await typeMove(white, "B5-B4");
  await waitPly(black, 2);
  await waitStatus(black, /^You lost/, 10000);
  await waitStatus(white, /^You won/, 10000);
  // One warning: two beeps of the low-time tone.
  assert.equal(await tones(black, LOW_TIME_TONE), 2);
  assert.equal(await tones(white, LOW_TIME_TONE), 0);
  clean(black, white);
  for (const page of [black, white]) await page.close();
});

// The colour a page plays, as its status says: "(you)" beside the side to move, or not.
async function playsToMove(page) {
  return /\(you\)/.test(await page.textContent("#status"));
}

test("a rematch is offered to the opponent, declined, asked back and accepted; each time the colours swap", { timeout: 90000 }, async () => {
  const [black, white] = await seatedPair(session.browser, session.server.url, 3203);
  assert.equal((await drawn(black)).flipped, false);
  await resign(black);
  await waitStatus(white, /^You won/);
  // White asks; black is asked, and declines.
  await white.click("#rematch");
  await waitStatus(white, /^Rematch asked: waiting for your opponent/);
  await waitText(black, "#offer", /Your opponent asks for a rematch/);
  await black.click("#rematch-decline");
  await waitText(white, "#offer-note", /Your opponent declined the rematch/);
  await waitText(black, "#offer-note", /You declined the rematch/);
  assert.equal(await black.isVisible("#offer"), false);
  // Black asks after all: white's request still stands, so the game starts with white first.
  await black.click("#rematch");
  await waitStatus(white, /^Black to move \(you\)/);
  await waitStatus(black, /^Black to move(?! \(you\))/);
  assert.equal((await drawn(black)).flipped, true, "black's page now plays white, at the bottom");
  assert.equal((await drawn(white)).flipped, false);
  await typeMove(white, "B2-B3");
  await waitPly(black, 1);
  await resign(black);
  await waitStatus(white, /^You won/);
  // The page now playing white asks; the other accepts with a click: the colours swap back.
  await black.click("#rematch");
  await waitText(white, "#offer", /Your opponent asks for a rematch/);
  await white.click("#rematch-accept");
  await waitStatus(black, /^Black to move \(you\)/);
  await waitStatus(white, /^Black to move(?! \(you\))/);
  assert.equal(await playsToMove(black), true);
  assert.equal((await drawn(black)).flipped, false);
  assert.equal(await white.isVisible("#offer"), false);
  const list = await (await fetch(`${session.server.url}/api/games?limit=10`)).json();
  const games = list.filter((g) => g.room === 3203).sort((a, b) => a.id - b.id);
  assert.equal(games.length, 3);
  assert.deepEqual(games.map((g) => g.first === games[0].first), [true, false, true], "the first player alternates");
  clean(black, white);
  for (const page of [black, white]) await page.close();
});

test("the lobby lists a waiting player by game and time control; one click pairs; a finished room leaves the watch list", { timeout: 90000 }, async () => {
  const url = session.server.url;
  const [seeker, joiner, watcher] = [await newPage(session.browser), await newPage(session.browser), await newPage(session.browser)];
  await seeker.goto(`${url}/#/`);
  await seeker.waitForSelector("#game-choice");
  await seeker.selectOption("#game-choice", "surakarta:6");
  await seeker.selectOption("#time-control", "3+2");
  await seeker.click("#online-create");
  await waitStatus(seeker, /Waiting for an opponent/);
  const room = new URLSearchParams(seeker.url().split("?")[1]).get("room");
  const name = await seeker.evaluate(() => localStorage.getItem("arbiter-name"));
  for (const page of [joiner, watcher]) await page.goto(`${url}/#/`);
  const seek = `#seeks li[data-room="${room}"]`;
  await waitText(joiner, seek, new RegExp(`^Surakarta 6×6 · 3 min \\+ 2 s a game · casual — ${name} Play$`));
  assert.equal(await joiner.locator(`#rooms li[data-room="${room}"]`).count(), 0, "a waiting room is not a game to watch");
  await joiner.click(`${seek} button`);
  await waitStatus(seeker, /Black to move \(you\)/);
  await waitStatus(joiner, /Black to move(?! \(you\))/);
  assert.match(await joiner.textContent("#time-control"), /3 min \+ 2 s a game/);
  // The watcher's home page sees the seek go and the game come, then leave when it ends.
  await watcher.waitForSelector(`#rooms li[data-room="${room}"]`);
  assert.equal(await watcher.locator(seek).count(), 0);
  await resign(seeker);
  await waitStatus(joiner, /^You won/);
  await watcher.waitForSelector(`#rooms li[data-room="${room}"]`, { state: "detached", timeout: 10000 });
  assert.equal(await watcher.locator(seek).count(), 0, "a finished room is no seek");
  clean(seeker, joiner, watcher);
  for (const page of [seeker, joiner, watcher]) await page.close();
});
