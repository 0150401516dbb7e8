// Shared by the end-to-end tests: a fresh `arbiter serve`, Debian's chromium through
// playwright-core, and moves made by clicking the board like a person.

import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, "../../..");
export const arbiterBin = process.env.ARBITER_BIN || path.join(repo, "target/release/arbiter");
export const screenshotDir = process.env.SCREENSHOT_DIR || path.join(repo, "target/e2e-screenshots");

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

export async function startServer() {
  const [tcp, http] = [await freePort(), await freePort()];
  const dir = mkdtempSync(path.join(os.tmpdir(), "arbiter-e2e-"));
  const child = spawn(arbiterBin, ["serve", "--tcp", `127.0.0.1:${tcp}`, "--http", `127.0.0.1:${http}`,
    "--db", path.join(dir, "games.sqlite"), "--timeout-ms", "20000"], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, RUST_LOG: "warn" } });
  let log = "";
  child.stderr.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${http}`;
  for (let i = 0; i < 200; i++) {
    try {
      const r = await fetch(`${url}/api/rooms`);
      if (r.ok) return { child, tcp, http, url, dir, log: () => log, stop: () => child.kill("SIGINT") };
    } catch (e) {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill();
  throw new Error(`the server did not start: ${log}`);
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

export async function newPage(browser) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 850 } });
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(e.message));
  return page;
}

// Waits until the page's game view has settled: a person may move, or the game is over.
export async function settled(page, timeout = 20000) {
  await page.waitForFunction(() => {
    const a = window.arbiter;
    if (!a || !a.view) return false;
    const over = a.outcome || a.view.status !== "ongoing";
    return over || a.humanToMove();
  }, null, { timeout });
  return page.evaluate(() => {
    const a = window.arbiter;
    return { over: Boolean(a.outcome || a.view.status !== "ongoing"), ply: a.moves.length, status: document.getElementById("status").textContent };
  });
}

// Picks a legal move (a capture when there is one, else a random move) and makes it by
// clicking the piece and then its target; confirms the losing-move warning if it comes.
export async function clickMove(page, pick = "capture-first") {
  const move = await page.evaluate((pick) => {
    const legal = window.arbiter.view.legal;
    const captures = legal.filter((m) => m.capture);
    const pool = pick === "capture-first" && captures.length ? captures : legal;
    return pool[Math.floor(Math.random() * pool.length)];
  }, pick);
  const before = await page.evaluate(() => window.arbiter.moves.length);
  await page.click(`svg.board [data-square="${move.from}"]`);
  await page.click(`svg.board [data-square="${move.to}"]`);
  const warned = await page.waitForSelector("#modal:not([hidden])", { timeout: 400 }).catch(() => null);
  if (warned) await page.click("#modal-yes");
  await page.waitForFunction((n) => window.arbiter.moves.length > n || window.arbiter.outcome, before, { timeout: 10000 });
  return move;
}
