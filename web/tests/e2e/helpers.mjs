// Shared by the end-to-end tests: a fresh `arbiter serve` per test file, Debian's chromium
// through playwright-core, moves made like a person (clicks, keys, typing) and chosen with a
// seeded random generator, and reading what the page *draws* — never a hook into its code.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before } from "node:test";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, "../../..");
export const arbiterBin = process.env.ARBITER_BIN || path.join(repo, "target/release/arbiter");
// The hexapawn example: arbiter's whole command line with one more game registered.
export const hexapawnBin = process.env.HEXAPAWN_BIN || path.join(repo, "target/release/examples/hexapawn");
export const screenshotDir = process.env.SCREENSHOT_DIR || path.join(repo, "target/e2e-screenshots");
mkdirSync(screenshotDir, { recursive: true });

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

// The servers' folders not removed yet (a server a test killed itself, or one whose test failed
// before stopping it): seen to when the process exits.
const folders = new Set();
process.on("exit", () => folders.forEach(removeUnlessFailed));

// A server's folder goes when its test file is done, unless a test of the file failed (node:test
// has set the exit code by then): then it stays for a look, and its path is printed.
function removeUnlessFailed(dir) {
  if (!folders.delete(dir)) return;
  if (process.exitCode) {
    console.error(`kept ${dir} for the failed test`);
  } else {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Ctrl-C, then the folder removed once the server is gone; after 2 s it goes anyway (games the
// server gives its grace period to end write only to the database it already has open). The
// server's log goes into the folder first, so a failed test's folder has it.
async function stopServer(child, dir, log) {
  const gone = new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    child.once("exit", resolve);
  });
  child.kill("SIGINT");
  await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
  writeFileSync(path.join(dir, "server.log"), log());
  removeUnlessFailed(dir);
}

// The server binds ports the system picks (`:0`) and says which on standard error, so no other
// process can take a port between our choosing it and the server binding it. `stop()` stops it
// and removes its folder (see `removeUnlessFailed`). `again`: `{ dir, http }` of a server that
// was killed, to start another on its database and its HTTP port (the pages reconnect there).
export async function startServer(extra = [], bin = arbiterBin, again = null) {
  const dir = again ? again.dir : mkdtempSync(path.join(os.tmpdir(), "arbiter-e2e-"));
  folders.add(dir);
  const httpAt = again ? `127.0.0.1:${again.http}` : "127.0.0.1:0";
  const child = spawn(bin, ["serve", "--tcp", "127.0.0.1:0", "--http", httpAt,
    "--db", path.join(dir, "games.sqlite"), ...extra], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, RUST_LOG: "warn" } });
  let log = "";
  let exited = false;
  child.stderr.on("data", (d) => (log += d));
  child.on("exit", () => (exited = true));
  for (let i = 0; i < 200 && !exited; i++) {
    const bound = log.match(/protocol on 127\.0\.0\.1:(\d+) and (http:\/\/127\.0\.0\.1:(\d+))/);
    if (bound) {
      const [, tcp, url, http] = bound;
      const up = await fetch(`${url}/api/rooms`).then((r) => r.ok, () => false);
      if (up) {
        return { child, tcp: Number(tcp), http: Number(http), url, dir, log: () => log, stop: () => stopServer(child, dir, () => log) };
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill();
  throw new Error(`the server did not start: ${log}`);
}

// One server and one browser for a test file, started before its first test and stopped after
// its last: `session.server` and `session.browser` once the tests run; `setup(session)` runs
// once both are up.
// `bin`: the server's program (another build of arbiter's command line, like an example's).
export function sharedSession(setup = async () => {}, bin = arbiterBin) {
  const session = {};
  before(async () => {
    session.server = await startServer([], bin);
    session.browser = await launch();
    await setup(session);
  });
  after(async () => {
    await session.browser?.close();
    await session.server?.stop();
  });
  return session;
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

// ARBITER_WEB_DIR: the page's files from this folder instead of the binary's embedded copy (to
// work on the page without rebuilding the server).
const webDir = process.env.ARBITER_WEB_DIR;

// `options`: more of the browser context's settings (a `colorScheme`, …).
export async function newPage(browser, viewport = DESKTOP, options = {}) {
  const context = await browser.newContext({ viewport, ...options });
  const page = await context.newPage();
  if (webDir) {
    await page.route(/\/[a-z]+\.(js|css)$/, (route) => {
      const file = path.join(webDir, new URL(route.request().url()).pathname);
      if (!existsSync(file)) return route.continue();
      const type = file.endsWith(".css") ? "text/css" : "text/javascript";
      return route.fulfill({ body: readFileSync(file, "utf8"), contentType: type });
    });
  }
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  // What the console shows as errors, a request the server refused among them.
  page.consoleErrors = [];
  page.on("console", (m) => m.type() === "error" && page.consoleErrors.push(m.text()));
  return page;
}

// A small seeded generator (mulberry32): the same seed, the same moves.
export function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// What the board shows: its ply, whose move, the status, every piece by square, the marks.
export async function drawn(page) {
  return page.evaluate(() => {
    const svg = document.querySelector("svg.board");
    if (!svg) return null;
    const pieces = {};
    for (const p of svg.querySelectorAll(".pieces [data-piece]")) pieces[p.dataset.at] = p.dataset.piece;
    const marks = {};
    for (const m of svg.querySelectorAll("[data-mark]")) (marks[m.dataset.mark] ||= []).push(m.dataset.square);
    return {
      ply: Number(svg.dataset.ply),
      toMove: svg.dataset.toMove,
      status: svg.dataset.status,
      flipped: svg.dataset.flipped === "true",
      pieces,
      marks,
      statusText: (document.getElementById("status") || {}).textContent || "",
      result: document.getElementById("result") && !document.getElementById("result").hidden
        ? `${document.getElementById("result-title").textContent}: ${document.getElementById("result-reason").textContent}` : null,
    };
  });
}

// Waits until the drawn board shows ply `n` (and the page is not busy drawing it).
export async function waitPly(page, n, timeout = 20000) {
  await page.waitForSelector(`svg.board[data-ply="${n}"]`, { timeout });
}

// Waits until someone may move on this screen, or the game is over; what is drawn then.
export async function settled(page, timeout = 30000) {
  await page.waitForFunction(() => {
    const status = document.getElementById("status");
    const over = document.getElementById("status")?.dataset.over === "true";
    const form = document.querySelector(".move-entry");
    return status && (over || (form && !form.hidden));
  }, null, { timeout });
  return drawn(page);
}

// Plays a move like a person: picks, with `rng`, a piece that has targets and one of them,
// clicking both; says yes to a losing-move warning. Returns the move's text.
export async function playSeeded(page, rng) {
  const before = await drawn(page);
  const movable = await page.evaluate(() => {
    const svg = document.querySelector("svg.board");
    const colour = svg.dataset.toMove.toLowerCase();
    return [...svg.querySelectorAll(`.pieces .piece.${colour}`)].map((p) => p.dataset.at);
  });
  const order = movable.map((sq) => [rng(), sq]).sort((a, b) => a[0] - b[0]).map(([, sq]) => sq);
  for (const from of order) {
    await page.click(`svg.board .hit[data-square="${from}"]`);
    const targets = await page.$$eval("svg.board [data-target]", (ts) => ts.map((t) => t.dataset.target));
    if (!targets.length) continue;
    const to = targets[Math.floor(rng() * targets.length)];
    await page.click(`svg.board .hit[data-square="${to}"]`);
    await acceptWarning(page);
    await page.waitForFunction((n) => Number(document.querySelector("svg.board").dataset.ply) > n, before.ply, { timeout: 15000 });
    return `${from}-${to}`;
  }
  throw new Error("no piece of the side to move has a move");
}

// Says yes to the losing-move warning if the page shows it.
export async function acceptWarning(page) {
  const warned = await page.waitForSelector("dialog[open]", { timeout: 500 }).catch(() => null);
  if (warned) await page.click("#dialog-yes");
}

// The stored game the address of a page's own game names (GET /api/games/ID).
export async function storedOf(page, url) {
  const id = new URLSearchParams(page.url().split("?")[1]).get("id");
  return (await fetch(`${url}/api/games/${id}`)).json();
}

// Types a move into the move box; returns once the board has moved past it. The board may
// already show a later ply (an opponent's premove answers at once), so "past" is at least one.
export async function typeMove(page, text) {
  const before = (await drawn(page)).ply;
  await page.fill("#move-input", text);
  await page.press("#move-input", "Enter");
  await acceptWarning(page);
  await page.waitForFunction((n) => Number(document.querySelector("svg.board")?.dataset.ply) > n, before, { timeout: 20000 });
}

// The axe-core accessibility check: no serious or critical violation on what is shown.
export async function checkAccessibility(page, what) {
  const axe = path.join(repo, "web/tests/node_modules/axe-core/axe.min.js");
  await page.addScriptTag({ path: axe });
  const result = await page.evaluate(async () => window.axe.run(document, { resultTypes: ["violations"] }));
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const words = bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
  assert.deepEqual(words, [], `${what}: accessibility violations`);
}

export async function shot(page, name) {
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`), fullPage: false });
}

// Official judge samples: the repository's copy in tests/data.
export function judgeData(sub) {
  for (const base of [path.join(repo, "tests/data")]) {
    const dir = path.join(base, sub);
    if (existsSync(dir)) return (name) => readFileSync(path.join(dir, name), "utf8");
  }
  throw new Error(`no judge data for ${sub}`);
}

// Makes a stored game through the API (as the page does) with `moves` played.
export async function storedGame(url, game, options, moves, resign = null) {
  const created = await (await fetch(`${url}/api/games`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ game, ...options, players: ["alice", "bob"], mode: "local" }),
  })).json();
  const put = await fetch(`${url}/api/games/${created.id}`, {
    method: "PUT", headers: { "content-type": "application/json" },
    body: JSON.stringify({ token: created.token, moves, ...(resign ? { resign } : {}) }),
  });
  assert.equal(put.status, 200, await put.text());
  return created.id;
}
