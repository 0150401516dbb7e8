// Every board of every game, at 1280×800 and at 390×844, upright and turned: the labels are
// beside the grid (never over a piece, never clipped), the points are far enough apart for a
// finger, and the status and clocks are on the screen without scrolling. Each case leaves a
// screenshot in target/e2e-screenshots to look at.

import assert from "node:assert/strict";
import { test } from "node:test";
import { checkAccessibility, DESKTOP, newPage, PHONE, shot, waitPly, sharedSession,
} from "./helpers.mjs";

const session = sharedSession();

const BOARDS = [
  ["duck", null], ["surakarta", 6], ["surakarta", 8], ["surakarta", 10], ["surakarta", 12],
  ["rc02", 4], ["rc02", 6], ["rc02", 8], ["rc02", 10],
];
const SMALLEST_TAP = 24; // CSS pixels between two points

// What the eye sees: the boxes of labels, pieces, points, status and clocks on the screen.
async function layout(page) {
  return page.evaluate(() => {
    const box = (e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, right: r.right, bottom: r.bottom, width: r.width }; };
    const svg = document.querySelector("svg.board");
    return {
      discs: [...svg.querySelectorAll(".pieces .disc")].map(box),
      labels: [...svg.querySelectorAll("[data-coord]")].map((t) => ({ kind: t.dataset.coord, text: t.textContent, ...box(t) })),
      hits: [...svg.querySelectorAll(".hit")].map(box),
      frame: box(svg.parentElement),
      status: box(document.getElementById("status")),
      clocks: [...document.querySelectorAll(".clock")].map(box),
      viewport: { width: window.innerWidth, height: window.innerHeight },
    };
  });
}

const overlap = (a, b) => a.x < b.right && b.x < a.right && a.y < b.bottom && b.y < a.bottom;

for (const [game, size] of BOARDS) {
  for (const [screen, viewport] of [["desktop", DESKTOP], ["phone", PHONE]]) {
    const name = `${game}${size ? `-${size}` : ""}-${screen}`;
    test(`${name}: labels beside the grid, points a finger apart, status in view`, { timeout: 60000 }, async () => {
      const page = await newPage(session.browser, viewport);
      await page.goto(`${session.server.url}/#/play?game=${game}${size ? `&size=${size}` : ""}&mode=local`);
      await waitPly(page, 0);
      for (const turned of [false, true]) {
        if (turned) {
          await page.click("#flip"); // below the board on a phone: the page scrolls to it …
          await page.evaluate(() => window.scrollTo(0, 0)); // … and back, as a person would
        }
        await page.waitForSelector(`svg.board[data-flipped="${turned}"]`);
        const seen = await layout(page);
        const where = `(${turned ? "turned" : "upright"})`;
        for (const l of seen.labels) {
          assert.ok(!seen.discs.some((d) => overlap(l, d)), `label ${l.text} is drawn over a piece ${where}`);
        }
        const pitch = Math.min(...seen.hits.map((h) => h.width));
        assert.ok(pitch >= SMALLEST_TAP, `points ${pitch.toFixed(1)} px apart ${where}`);
        for (const [what, b] of [["status", seen.status], ...seen.clocks.map((c, i) => [`clock ${i}`, c])]) {
          assert.ok(b.y >= 0 && b.bottom <= seen.viewport.height && b.right <= seen.viewport.width, `${what} is off the screen ${where}: ${JSON.stringify(b)}`);
        }
        if (game === "duck") {
          // P5380 has no palace and no river: a plain grid, every line along a row or a column.
          const slanted = await page.$$eval("svg.board line", (lines) => lines.filter((l) =>
            l.getAttribute("x1") !== l.getAttribute("x2") && l.getAttribute("y1") !== l.getAttribute("y2")).length);
          assert.equal(slanted, 0, `diagonal lines on the Duck Chess board ${where}`);
          assert.equal(await page.$$eval("svg.board .river, svg.board .palace", (e) => e.length), 0);
        }
        // Labels are whole: the scrolled frame holds them (a zoomed board scrolls, never clips).
        const rows = seen.labels.filter((l) => l.kind === "row").sort((a, b) => a.y - b.y).map((l) => l.text);
        assert.ok(rows.every((r) => /^\d+$/.test(r)), `row labels ${rows}`);
        if (game === "surakarta" && size === 12) {
          const down = ["12", "11", "10", "9", "8", "7", "6", "5", "4", "3", "2", "1"];
          assert.deepEqual(rows, turned ? [...down].reverse() : down);
        }
        await shot(page, `${name}-${turned ? "turned" : "upright"}`);
      }
      if (screen === "phone" && game === "surakarta" && size === 12) await checkAccessibility(page, "a zoomed board on a phone");
      assert.deepEqual(page.errors, []);
      await page.close();
    });
  }
}
