// Online play between two browser pages, a browser against `arbiter connect`, watching,
// errors in plain words, and the replay controls.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { after, before, test } from "node:test";
import { arbiterBin, clickMove, launch, newPage, screenshotDir, settled, startServer } from "./helpers.mjs";

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.stop();
});

async function statusText(page) {
  return page.textContent("#status");
}

async function waitStatus(page, re, timeout = 20000) {
  await page.waitForFunction((source) => new RegExp(source).test(document.getElementById("status").textContent), re.source, { timeout });
}

test("two browser pages play each other online, a spectator watches, one resigns, rematch", { timeout: 120000 }, async () => {
  const black = await newPage(browser);
  const white = await newPage(browser);
  const room = 4242;
  await black.goto(`${server.url}/#/online?game=surakarta&size=6&room=${room}&colour=BLACK`);
  await waitStatus(black, /Waiting for an opponent/);
  assert.match(await black.inputValue("#share-link"), new RegExp(`room=${room}`));
  await white.goto(`${server.url}/#/online?game=surakarta&size=6&room=${room}`);
  await waitStatus(black, /to move/);
  await waitStatus(white, /to move/);
  const watcher = await newPage(browser);
  await watcher.goto(`${server.url}/#/watch?room=${room}`);
  await waitStatus(watcher, /BLACK to move/);
  for (let i = 0; i < 3; i++) {
    await settled(black);
    await clickMove(black, "random");
    await settled(white);
    await clickMove(white, "random");
  }
  await watcher.waitForFunction(() => window.arbiter.moves.length === 6, null, { timeout: 10000 });
  assert.deepEqual(await watcher.evaluate(() => window.arbiter.moves), await black.evaluate(() => window.arbiter.moves));
  await black.screenshot({ path: path.join(screenshotDir, "online-black.png") });
  await black.click("#resign");
  await waitStatus(black, /WHITE wins — resign/);
  await waitStatus(white, /WHITE wins — resign/);
  await waitStatus(watcher, /WHITE wins/);
  // A rematch: both ask again.
  await white.click("#rematch");
  await black.click("#rematch");
  await waitStatus(black, /BLACK to move/);
  assert.equal(await black.evaluate(() => window.arbiter.moves.length), 0);
  // A third page is refused: the room is full.
  const third = await newPage(browser);
  await third.goto(`${server.url}/#/online?game=surakarta&size=6&room=${room}`);
  await third.waitForSelector("#banner:not([hidden])");
  assert.match(await third.textContent("#banner"), /refused/);
  // A lost connection is explained and can be retried.
  await black.evaluate(() => window.arbiter.connection.socket.close());
  await black.waitForSelector("#banner:not([hidden])");
  assert.match(await black.textContent("#banner"), /connection to the server was lost/);
  await waitStatus(white, /wins/);
  for (const p of [black, white, watcher, third]) {
    assert.deepEqual(p.errors, []);
    await p.close();
  }
});

test("a browser plays arbiter connect over the course protocol", { timeout: 300000 }, async () => {
  const page = await newPage(browser);
  const room = 777;
  await page.goto(`${server.url}/#/online?game=surakarta&size=6&room=${room}&colour=BLACK`);
  await waitStatus(page, /Waiting/);
  const client = spawn(arbiterBin, ["connect", "127.0.0.1", String(server.tcp), "WHITE", "--room", String(room), "--name", "cli", "--player", "random"], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  client.stdout.on("data", (d) => (out += d));
  const exited = new Promise((resolve) => client.on("exit", resolve));
  await waitStatus(page, /to move/);
  let state = await settled(page, 30000);
  for (let i = 0; i < 300 && !state.over; i++) {
    await clickMove(page);
    state = await settled(page, 30000);
  }
  assert.ok(state.over, state.status);
  assert.equal(await exited, 0, "arbiter connect ends cleanly");
  const moves = await page.evaluate(() => window.arbiter.moves.join(" "));
  assert.ok(out.startsWith(moves), `the client's record starts with the page's moves:\n${out}\n${moves}`);
  await page.close();
});

test("the replay controls", { timeout: 120000 }, async () => {
  const list = await (await fetch(`${server.url}/api/games?limit=50`)).json();
  const details = await Promise.all(list.map(async (g) => (await fetch(`${server.url}/api/games/${g.id}`)).json()));
  const game = details.find((g) => g.end_reason && g.moves.length >= 10);
  assert.ok(game, "a finished game of ten moves or more is stored");
  const page = await newPage(browser);
  await page.goto(`${server.url}/#/replay?id=${game.id}`);
  const ply = () => page.evaluate(() => window.arbiter.moves.length);
  await page.waitForFunction(() => window.arbiter && window.arbiter.view);
  assert.equal(await ply(), 0);
  await page.click("#forward");
  await page.click("#forward");
  await page.click("#forward");
  await page.waitForFunction(() => window.arbiter.moves.length === 3 && !window.arbiter.loading);
  await page.click("#back");
  await page.waitForFunction(() => window.arbiter.moves.length === 2 && !window.arbiter.loading);
  await page.fill("#goto", "5");
  await page.click("#go");
  await page.waitForFunction(() => window.arbiter.moves.length === 5 && !window.arbiter.loading);
  await page.selectOption("#speed", "200");
  await page.click("#play");
  await page.waitForFunction(() => window.arbiter.moves.length >= 8, null, { timeout: 10000 });
  await page.click("#play");
  const paused = await ply();
  await page.waitForTimeout(600);
  assert.equal(await ply(), paused, "paused");
  await page.click("#end");
  await page.waitForFunction((n) => window.arbiter.moves.length === n && !window.arbiter.loading, game.moves.length);
  await waitStatus(page, /wins|Draw|illegal/);
  await page.click("#start");
  await page.waitForFunction(() => window.arbiter.moves.length === 0 && !window.arbiter.loading);
  await page.click("#forward");
  await page.waitForFunction(() => window.arbiter.moves.length === 1 && !window.arbiter.loading);
  // Try from here: a local game branches off the record, and can return to it.
  await page.click("#try");
  await settled(page);
  await clickMove(page, "random");
  await page.waitForFunction(() => window.arbiter.moves.length === 2);
  await page.click("#back-to-record");
  await page.waitForFunction(() => window.arbiter.mode === "replay" && window.arbiter.moves.length === 1 && !window.arbiter.loading);
  await page.screenshot({ path: path.join(screenshotDir, "replay.png") });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("the home page lists live rooms and stored games", async () => {
  const page = await newPage(browser);
  await page.goto(`${server.url}/#/`);
  await page.waitForSelector("#games a");
  await page.screenshot({ path: path.join(screenshotDir, "home.png") });
  await page.selectOption("#game-choice", "rc02:8");
  await page.click("#mode-local");
  await settled(page);
  assert.equal(await page.evaluate(() => window.arbiter.view.cols), 8);
  await page.screenshot({ path: path.join(screenshotDir, "rc02-8.png") });
  await page.goto(`${server.url}/#/`);
  await page.selectOption("#game-choice", "surakarta:12");
  await page.click("#mode-local");
  await settled(page);
  await page.screenshot({ path: path.join(screenshotDir, "surakarta-12.png") });
  await page.close();
});
