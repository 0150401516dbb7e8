// The analysis board and what a replay shares: the engine's bar and best line for the position
// shown (in a replay and once a game is over), the whole-game analysis with its judged moves and
// graph, links that carry the move shown, and the record's downloads — each read from what the
// page shows.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  acceptWarning, checkAccessibility, drawn, newPage, sharedSession, shot, storedGame, typeMove, waitPly,
} from "./helpers.mjs";

// A Surakarta 6×6 opening of twelve moves, ending in a resignation.
const RECORD = ["B2-B3", "B5-B4", "C2-C3", "C5-C4", "D2-D3", "D5-D4", "A2-A3", "E5-E4", "E2-E3", "F5-F4", "F2-F3", "A5-A4"];
// Duck Chess: red's fifth move leaves its captain to be taken, and blue takes it.
const BLUNDER_OPENING = ["a0-a1", "a6-a5", "e0-e1", "a7-c4", "c3-b2"];

let surakartaId;
let duckId;
let duckRecord;

async function post(url, path, body) {
  const answer = await fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return answer.json();
}

const session = sharedSession(async ({ server }) => {
  surakartaId = await storedGame(server.url, "surakarta", { size: 6 }, RECORD, "first");
  // Blue's answer that takes the red captain, found by the rules.
  const state = await post(server.url, "/api/state", { game: "duck", moves: BLUNDER_OPENING });
  let win = null;
  for (const move of state.legal.filter((m) => m.capture)) {
    const after = await post(server.url, "/api/state", { game: "duck", moves: [...BLUNDER_OPENING, move.text] });
    if (after.status === "won") win = move.text;
  }
  assert.ok(win, "blue can take the red captain");
  duckRecord = [...BLUNDER_OPENING, win];
  duckId = await storedGame(server.url, "duck", {}, duckRecord);
});

async function waitText(page, selector, re, timeout = 30000) {
  await page.waitForFunction(([sel, source]) => {
    const node = document.querySelector(sel);
    return node && !node.closest("[hidden]") && new RegExp(source).test(node.textContent || "");
  }, [selector, re.source], { timeout });
}

function clean(page) {
  assert.deepEqual(page.errors, [], "no error thrown in the page");
  assert.deepEqual(page.consoleErrors, [], "no error on the console");
}

test("the analysis board shows the bar, the score and the best line of the position shown", { timeout: 90000 }, async () => {
  const page = await newPage(session.browser);
  const url = session.server.url;
  await page.goto(`${url}/#/replay?id=${surakartaId}`);
  await waitPly(page, 0);
  assert.equal(await page.isVisible("#eval-bar"), false, "the engine is off until asked");
  await page.click("#analysis-toggle");
  await waitText(page, "#analysis-pv", /^[A-F][1-6]-[A-F][1-6]/);
  assert.equal(await page.getAttribute("#analysis-toggle", "aria-pressed"), "true");
  assert.match(await page.textContent("#analysis-score"), /^(Black \+\d+\.\d\d|White \+\d+\.\d\d|Even \(0\.00\)|(Black|White) wins in \d+ moves)$/);
  assert.match(await page.textContent("#analysis-line"), / · depth \d+ · best line: /);
  assert.match(await page.getAttribute("#eval-bar", "aria-label"), /^Black's chance to win: \d+%$/);
  // The line is the engine's for this position: its first move is legal here.
  const start = await post(url, "/api/state", { game: "surakarta", size: 6, moves: [] });
  const first = (await page.textContent("#analysis-pv")).split(" ")[0];
  assert.ok(start.legal.some((m) => m.text === first), `${first} is a legal first move`);
  // Another position: the line follows it.
  await page.click('.moves .ply[data-ply="3"]');
  await waitPly(page, 3);
  const after3 = await post(url, "/api/state", { game: "surakarta", size: 6, moves: RECORD.slice(0, 3) });
  await page.waitForFunction((legal) => {
    const pv = document.getElementById("analysis-pv");
    return pv && legal.includes(pv.textContent.split(" ")[0]);
  }, after3.legal.map((m) => m.text), { timeout: 30000 });
  await checkAccessibility(page, "the analysis board");
  await shot(page, "analysis-board");
  await page.click("#analysis-toggle");
  assert.equal(await page.isVisible("#eval-bar"), false);
  clean(page);
  await page.close();
});

test("a game over at this screen gets the analysis board; while it is played it has none", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(`${session.server.url}/#/play?game=surakarta&size=6&mode=local`);
  await waitPly(page, 0);
  await typeMove(page, "B2-B3");
  await typeMove(page, "B5-B4");
  assert.equal(await page.isVisible("#analysis"), false, "no engine during the game");
  await page.click("#resign");
  await acceptWarning(page);
  await waitText(page, "#status", /resigned/);
  await page.waitForSelector("#analysis:not([hidden])");
  assert.equal(await page.isVisible("#analyse-game"), true);
  await page.click("#analysis-toggle");
  await waitText(page, "#analysis-pv", /^[A-F][1-6]-[A-F][1-6]/);
  // Browsing back, the engine looks at the earlier position.
  await page.click("h1");
  await page.keyboard.press("Home");
  await page.waitForFunction(() => document.getElementById("nav-first")?.disabled === true);
  await waitText(page, "#analysis-line", /depth \d+/);
  clean(page);
  await page.close();
});

test("the whole game analysed: progress, the blunder marked in the move list, a graph to click", { timeout: 120000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(`${session.server.url}/#/replay?id=${duckId}`);
  await waitPly(page, 0);
  await page.click("#analyse-game");
  await waitText(page, "#analysis-summary", /^Red: .*\. Blue: .*\.$/, 100000);
  assert.equal(await page.isVisible("#analysis-progress"), false, "the progress bar goes once done");
  assert.equal(await page.isVisible("#analyse-game"), false, "analysed once");
  // Red's fifth move lost the captain: a blunder, marked where the move is listed.
  const fifth = await page.$eval('.moves .ply[data-ply="5"]', (p) => ({
    classes: [...p.classList], mark: p.querySelector(".judgement-mark")?.textContent, title: p.title,
  }));
  assert.ok(fifth.classes.includes("blunder"), JSON.stringify(fifth));
  assert.equal(fifth.mark, "??");
  assert.match(fifth.title, /^Blunder: \d+% of the chance to win given away; the engine preferred [a-i]\d-[a-i]\d$/);
  assert.match(await page.textContent("#analysis-summary"), /^Red: [^.]*\b[1-9]\d* blunders?\./);
  // One column of the graph per position; a click goes there.
  const columns = await page.$$eval("#eval-graph .graph-ply", (r) => r.length);
  assert.equal(columns, duckRecord.length + 1);
  assert.equal(await page.$$eval("#eval-graph .graph-dot.blunder", (d) => d.length) >= 1, true);
  await page.click('#eval-graph .graph-ply[data-ply="4"]');
  await waitPly(page, 4);
  assert.match((await drawn(page)).statusText, /^Move 4 of 6/);
  await checkAccessibility(page, "the whole-game analysis");
  await shot(page, "analysis-whole-game");
  clean(page);
  await page.close();
});

test("a link carries the move shown, the address follows the moves, and Copy link copies it", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser);
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: session.server.url });
  await page.goto(`${session.server.url}/#/replay?id=${surakartaId}&ply=5`);
  await waitPly(page, 5);
  assert.match((await drawn(page)).statusText, /^Move 5 of 12/);
  await page.click("h1");
  await page.keyboard.press("ArrowRight");
  await waitPly(page, 6);
  await page.waitForFunction(() => /[?&]ply=6\b/.test(location.hash));
  const link = await page.inputValue("#share-link");
  assert.equal(link, `${session.server.url}/#/replay?id=${surakartaId}&ply=6`);
  await page.click("#copy-link");
  await waitText(page, "#copy-note", /Link copied/);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
  // The link opens at that move for anyone.
  const other = await newPage(session.browser);
  await other.goto(link);
  await waitPly(other, 6);
  assert.match((await drawn(other)).statusText, /^Move 6 of 12/);
  clean(page);
  clean(other);
  await page.close();
  await other.close();
});

test("the record downloads in the course notation, and the game as JSON", { timeout: 60000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(`${session.server.url}/#/replay?id=${surakartaId}`);
  await waitPly(page, 0);
  const [record] = await Promise.all([page.waitForEvent("download"), page.click("#download-record")]);
  assert.equal(record.suggestedFilename(), `arbiter-surakarta-${surakartaId}.txt`);
  assert.equal(readFileSync(await record.path(), "utf8"), `${RECORD.join(" ")} R#`);
  const [json] = await Promise.all([page.waitForEvent("download"), page.click("#download-json")]);
  assert.equal(json.suggestedFilename(), `arbiter-surakarta-${surakartaId}.json`);
  const game = JSON.parse(readFileSync(await json.path(), "utf8"));
  assert.equal(game.id, surakartaId);
  assert.deepEqual(game.moves.map((m) => m.move), RECORD);
  assert.equal(game.end_reason, "RESIGN");
  clean(page);
  await page.close();
});
