// Online play as people meet it: two pages in one room and a spectator seeing the same board, a
// reload that keeps the seat, the creator's time control taken by the joiner, a full room and a
// bad room number explained, leaving asked first, a lost server shown, and a browser against
// `arbiter connect` over the course protocol.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { seatedIn, waitStatus } from "./rooms.mjs";
import {
  arbiterBin, checkAccessibility, drawn, newPage, PHONE, playSeeded, seeded, settled, shot,
  sharedSession, startServer, typeMove, waitPly,
} from "./helpers.mjs";

const session = sharedSession();

// Two pages seated in `room` (the first as the game's first side) once the game has started.
async function seatedPair(query, room, viewport) {
  const colour = query.startsWith("game=duck") ? "RED" : "BLACK";
  return seatedIn(session.browser, session.server.url, { query, room, colour, viewport });
}

async function clockTexts(page) {
  return page.$$eval(".clock", (clocks) => clocks.map((c) => c.textContent));
}

test("two pages play to the end and a spectator sees the same board; a reload keeps the seat", { timeout: 120000 }, async () => {
  const room = 4242;
  // Duck Chess drawn after four quiet plies: a game short enough to finish here.
  const [red, blue] = await seatedPair("game=duck&max_no_capture_round=4", room);
  blue.on("dialog", (d) => d.accept());
  const watcher = await newPage(session.browser);
  await watcher.goto(`${session.server.url}/#/watch?room=${room}`);
  await waitStatus(watcher, /Red to move/);
  assert.match(await red.inputValue("#share-link"), new RegExp(`room=${room}`));
  await typeMove(red, "a0-a1");
  await waitPly(blue, 1);
  await typeMove(blue, "a9-a8");
  await waitPly(red, 2);
  // Blue reloads mid-game: the tab's token takes the seat back and the moves come again.
  await blue.reload();
  await waitPly(blue, 2);
  await waitStatus(blue, /Red to move$/);
  await typeMove(red, "a1-a0");
  await waitPly(blue, 3);
  await waitStatus(blue, /Blue to move \(you\)/);
  await shot(blue, "online-blue-turned");
  await typeMove(blue, "a8-a9");
  for (const page of [red, blue, watcher]) await waitStatus(page, /^Draw/);
  const boards = await Promise.all([red, blue, watcher].map(drawn));
  for (const board of boards) {
    assert.equal(board.ply, 4);
    assert.equal(board.status, "drawn");
    assert.deepEqual(board.pieces, boards[0].pieces);
    assert.deepEqual([board.marks.from, board.marks.to], [["a8"], ["a9"]]);
  }
  assert.match(boards[0].result, /^Draw: /);
  assert.equal(boards[1].flipped, true, "the second side sees its own pieces at the bottom");
  const listed = await watcher.$$eval("#moves .ply", (plies) => plies.map((p) => p.textContent));
  assert.deepEqual(listed, ["a0-a1", "a9-a8", "a1-a0", "a8-a9"]);
  await shot(watcher, "watch-finished");
  await checkAccessibility(red, "an online game that ended");
  await checkAccessibility(watcher, "watching a game");
  for (const page of [red, blue, watcher]) {
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test("the creator's time control is the room's: the joiner's clocks show it", { timeout: 60000 }, async () => {
  const creator = await newPage(session.browser);
  await creator.goto(`${session.server.url}/#/`);
  await creator.selectOption("#game-choice", "surakarta:6");
  await creator.selectOption("#time-control", "3+2");
  await checkAccessibility(creator, "the home page");
  await shot(creator, "home");
  await creator.click("#online-create");
  await waitStatus(creator, /Waiting for an opponent/);
  const room = new URLSearchParams(creator.url().split("?")[1]).get("room");
  assert.match(await creator.textContent("#time-control"), /3 min \+ 2 s/);
  const joiner = await newPage(session.browser, PHONE);
  await joiner.goto(`${session.server.url}/#/`);
  await joiner.selectOption("#game-choice", "rc02:8");
  await joiner.fill("#join-room", room);
  await joiner.click("#online-join");
  await waitStatus(joiner, /to move/);
  await waitStatus(creator, /to move \(you\)/);
  // The joiner asked for RC-02 but the room plays the creator's Surakarta 6×6 with its clock.
  assert.match(await joiner.textContent("h1, h2"), /Surakarta/);
  assert.match(await joiner.textContent("#time-control"), /^Time: 3 min \+ 2 s a game\.$/);
  for (const page of [creator, joiner]) {
    const clocks = await clockTexts(page);
    assert.match(clocks[1], / 3:00$/, `the second clock waits at three minutes: ${clocks}`);
    assert.match(clocks[0], / (3:00|2:5\d)$/, `the first clock runs from three minutes: ${clocks}`);
  }
  await shot(joiner, "online-joiner-phone");
  for (const page of [creator, joiner]) {
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test("a room opened without a time control gives 20 s a move", { timeout: 60000 }, async () => {
  const [first, second] = await seatedPair("game=surakarta&size=6", 5151);
  // Each side's first move is off the clock (lichess's rule); the third ply is on it.
  await typeMove(first, "B2-B3");
  await waitPly(second, 1);
  await typeMove(second, "B5-B4");
  await waitPly(first, 2);
  const clocks = await clockTexts(first);
  const seconds = Number(clocks[0].match(/0:(\d\d)$/)?.[1]);
  assert.ok(seconds > 10 && seconds <= 20, `the side to move has 20 s: ${clocks}`);
  for (const page of [first, second]) assert.match(await page.textContent("#time-control"), /^Time: 20 s a move/);
  for (const page of [first, second]) await page.close();
});

// The seconds a clock shows (`name m:ss`).
function seconds(text) {
  const [, m, s] = text.match(/(\d+):(\d\d)$/);
  return Number(m) * 60 + Number(s);
}

test("a reload mid-move shows the time left for the move, and so does a spectator who joins", { timeout: 60000 }, async () => {
  const room = 5252;
  const [first, second] = await seatedPair("game=surakarta&size=6", room);
  // Both first moves are off the clock; white's second move is on it.
  await typeMove(first, "B2-B3");
  await waitPly(second, 1);
  await typeMove(second, "B5-B4");
  await waitPly(first, 2);
  await typeMove(first, "C2-C3");
  await waitPly(second, 3);
  // Second thinks 7 s of its 20, then reloads.
  await second.waitForTimeout(7000);
  await second.reload();
  await waitPly(second, 3);
  await waitStatus(second, /White to move \(you\)/);
  const left = seconds((await clockTexts(second))[1]);
  assert.ok(left <= 14 && left >= 5, `after 7 s of 20 the clock shows ${left} s, not the whole move`);
  const watcher = await newPage(session.browser);
  await watcher.goto(`${session.server.url}/#/watch?room=${room}`);
  await waitPly(watcher, 3);
  await watcher.waitForFunction(() => /\d:\d\d$/.test(document.querySelectorAll(".clock")[1].textContent));
  const watched = seconds((await clockTexts(watcher))[1]);
  assert.ok(watched <= 14 && watched >= 4, `a spectator joining mid-move sees ${watched} s`);
  for (const page of [first, second, watcher]) {
    assert.deepEqual(page.errors, []);
    assert.deepEqual(page.consoleErrors, []);
    await page.close();
  }
});

test("a live game between people asks no engine: no analysis, no warning before a losing move", { timeout: 60000 }, async () => {
  const [red, blue] = await seatedPair("game=duck", 5353);
  const asked = [];
  for (const page of [red, blue]) {
    page.on("request", (r) => {
      if (/\/api\/(analyze|ai)\b/.test(new URL(r.url()).pathname)) asked.push(r.url());
    });
  }
  for (const [page, other, mv] of [[red, blue, "a0-a1"], [blue, red, "a6-a5"], [red, blue, "e0-e1"], [blue, red, "a7-c4"]]) {
    await typeMove(page, mv);
    await waitPly(other, (await drawn(page)).ply);
  }
  // c3-b2 leaves the captain to be taken (the AI's analysis calls it losing): played at once.
  await red.waitForTimeout(1500);
  await red.fill("#move-input", "c3-b2");
  await red.press("#move-input", "Enter");
  const warned = await red.waitForSelector("dialog[open]", { timeout: 2000 }).catch(() => null);
  assert.equal(warned && await warned.textContent(), null, "no warning before the losing move");
  await waitPly(blue, 5);
  assert.deepEqual(asked, [], "no request for the engine's help");
  for (const page of [red, blue]) {
    assert.deepEqual(page.errors, []);
    assert.deepEqual(page.consoleErrors, []);
    await page.close();
  }
});

test("a training room both players agree to warns before a losing move", { timeout: 60000 }, async () => {
  const red = await newPage(session.browser);
  await red.goto(`${session.server.url}/#/`);
  await red.selectOption("#game-choice", "duck");
  await red.check("#training-room");
  await red.click("#online-create");
  await waitStatus(red, /Waiting for an opponent/);
  assert.match(await red.textContent("#training"), /Training room/);
  const room = new URLSearchParams(red.url().split("?")[1]).get("room");
  const blue = await newPage(session.browser);
  await blue.goto(`${session.server.url}/#/`);
  await blue.fill("#join-room", room);
  await blue.click("#online-join");
  // The joiner is asked first.
  await blue.waitForSelector("dialog[open]");
  assert.match(await blue.textContent("#dialog-text"), new RegExp(`Room ${room} is a training room`));
  await blue.click("#dialog-yes");
  await waitStatus(red, /Red to move \(you\)/);
  assert.equal(await blue.isVisible("#training"), true);
  for (const [page, other, mv] of [[red, blue, "a0-a1"], [blue, red, "a6-a5"], [red, blue, "e0-e1"]]) {
    await typeMove(page, mv);
    await waitPly(other, (await drawn(page)).ply);
  }
  const analysed = red.waitForResponse((r) => r.url().endsWith("/api/analyze"));
  await typeMove(blue, "a7-c4");
  await waitPly(red, 4);
  await analysed;
  await red.fill("#move-input", "c3-b2");
  await red.press("#move-input", "Enter");
  await red.waitForSelector("dialog[open]");
  assert.match(await red.textContent("#dialog-text"), /c3-b2 loses/);
  await red.click("#dialog-no");
  await red.waitForTimeout(500);
  assert.equal((await drawn(red)).ply, 4, "Cancel keeps the move back");
  for (const page of [red, blue]) {
    assert.deepEqual(page.errors, []);
    assert.deepEqual(page.consoleErrors, []);
    await page.close();
  }
});

test("a full room and a bad room number are explained", { timeout: 60000 }, async () => {
  const [first, second] = await seatedPair("game=surakarta&size=6", 6161);
  const third = await newPage(session.browser);
  await third.goto(`${session.server.url}/#/online?game=surakarta&size=6&room=6161`);
  await third.waitForSelector("#banner:not([hidden])");
  assert.match(await third.textContent("#banner"), /refused/);
  assert.match(await third.textContent("#status"), /refused/);
  assert.equal(await third.isDisabled("#resign"), true);
  const home = await newPage(session.browser);
  await home.goto(`${session.server.url}/#/`);
  await home.click("#online-join");
  assert.match(await home.textContent("#join-error"), /Type the number of a room/);
  await home.fill("#join-room", "12x");
  await home.click("#online-join");
  assert.match(await home.textContent("#join-error"), /from 0 to 1000000/);
  await home.fill("#join-room", "6161");
  await home.click("#online-join");
  await home.waitForFunction(() => /is playing a game/.test(document.getElementById("join-error").textContent));
  assert.equal(await home.evaluate(() => document.body.dataset.view), "/");
  for (const page of [first, second, third, home]) {
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test("a guest name another browser holds gives way to a new one, and the page is seated", { timeout: 60000 }, async () => {
  // Another browser's READY (or its home page) made the name its own before these pages came.
  const held = "guest123456789";
  const claim = await fetch(`${session.server.url}/api/players`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: held, secret: "0123456789abcdef0123456789abcdef" }),
  });
  assert.equal(claim.status, 200, await claim.text());
  const prepare = (page) => page.addInitScript((name) => {
    if (!localStorage.getItem("arbiter-name")) localStorage.setItem("arbiter-name", name);
  }, held);
  const [first, second] = await seatedIn(session.browser, session.server.url,
    { query: "game=surakarta&size=6", room: 6262, colour: "BLACK", prepare });
  const names = [];
  for (const page of [first, second]) {
    const name = await page.evaluate(() => localStorage.getItem("arbiter-name"));
    assert.match(name, /^guest\d{9}$/);
    assert.notEqual(name, held);
    names.push(name);
  }
  assert.match(await second.textContent("h1"), new RegExp(`against ${names[0]}$`));
  for (const page of [first, second]) {
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test("leaving a running game asks first; Stay keeps the seat", { timeout: 60000 }, async () => {
  const [first, second] = await seatedPair("game=rc02&size=6", 7171);
  await first.click("#home");
  await first.waitForSelector("dialog[open]");
  assert.match(await first.textContent("#dialog-text"), /Leave this game\?/);
  await first.click("#dialog-no");
  assert.equal(await first.evaluate(() => document.body.dataset.view), "/online");
  await playSeeded(first, seeded(3));
  await waitPly(second, 1);
  // Leave for real: the opponent is told the seat is kept.
  await first.click("#home");
  await first.click("#dialog-yes");
  await first.waitForSelector("#game-choice");
  await second.waitForSelector("#banner:not([hidden])");
  assert.match(await second.textContent("#banner"), /lost the connection; their seat is kept for \d+ s/);
  for (const page of [first, second]) {
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test("a server that goes away is shown, and resigning waits for it", { timeout: 60000 }, async () => {
  const own = await startServer();
  const first = await newPage(session.browser);
  const second = await newPage(session.browser);
  await first.goto(`${own.url}/#/online?game=surakarta&size=6&room=9&colour=BLACK`);
  await waitStatus(first, /Waiting/);
  await second.goto(`${own.url}/#/online?game=surakarta&size=6&room=9`);
  await waitStatus(first, /to move \(you\)/);
  assert.equal(await first.isDisabled("#resign"), false);
  own.child.kill("SIGKILL");
  for (const page of [first, second]) {
    await waitStatus(page, /connection to the server was lost — reconnecting…/);
    assert.equal(await page.isDisabled("#resign"), true);
  }
  await shot(first, "online-lost");
  for (const page of [first, second]) {
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test("a browser plays `arbiter connect` over the course protocol; both records agree", { timeout: 300000 }, async () => {
  const page = await newPage(session.browser);
  const room = 777;
  await page.goto(`${session.server.url}/#/online?game=surakarta&size=6&room=${room}&colour=BLACK`);
  await waitStatus(page, /Waiting/);
  const client = spawn(arbiterBin, ["connect", "127.0.0.1", String(session.server.tcp), "WHITE", "--room", String(room),
    "--name", "cli", "--player", "random", "--seed", "5"], { stdio: ["ignore", "pipe", "ignore"] });
  let record = "";
  client.stdout.on("data", (d) => (record += d));
  const exited = new Promise((resolve) => client.on("exit", resolve));
  const rng = seeded(11);
  let board = await settled(page);
  for (let i = 0; i < 400 && !board.result; i++) {
    await playSeeded(page, rng);
    board = await settled(page);
  }
  assert.ok(board.result, `the game ended: ${board.statusText}`);
  assert.equal(await exited, 0, "arbiter connect ends cleanly");
  const listed = await page.$$eval("#moves .ply", (plies) => plies.map((p) => p.textContent.toUpperCase()));
  const recorded = record.trim().split(/\s+/).filter((w) => /^[A-Z]\d+-[A-Z]\d+$/i.test(w)).map((w) => w.toUpperCase());
  assert.deepEqual(recorded, listed, "the client's record is the page's move list");
  assert.deepEqual(page.errors, []);
  await page.close();
});

test("lists the server cannot give say so and offer to try again", { timeout: 30000 }, async () => {
  const page = await newPage(session.browser);
  let refuse = true;
  await page.route("**/api/games?*", (route) => (refuse ? route.abort() : route.continue()));
  await page.goto(`${session.server.url}/#/`);
  await page.waitForFunction(() => /Cannot load the stored games: the server cannot be reached/.test(document.getElementById("games")?.textContent || ""));
  refuse = false;
  await page.click("#games button");
  await page.waitForFunction(() => !/Cannot load|Loading/.test(document.getElementById("games")?.textContent ?? "Loading"));
  assert.deepEqual(page.errors, []);
  await page.close();
});
