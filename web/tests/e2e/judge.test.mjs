// The judge visualiser on the official samples of all three judges: every step's verdict, as the
// page shows it, put together equals the judge's expected answer byte for byte; an invalid
// operation is marked; stepping draws the board the judge sees.

import assert from "node:assert/strict";
import { test } from "node:test";
import { checkAccessibility, drawn, judgeData, newPage, PHONE, shot, sharedSession,
} from "./helpers.mjs";

const session = sharedSession();

// Opens the visualiser on `input` for `game`; the number of operations it judged.
async function judge(page, game, input) {
  await page.goto(`${session.server.url}/#/judge`);
  await page.selectOption("#judge-game", game);
  await page.fill("#judge-input", input);
  await page.click("#judge-run");
  await page.waitForSelector(".replay[aria-label=Steps]:not([hidden])");
  const message = await page.textContent("#judge-message");
  return Number(/^(\d+) operation/.exec(message)[1]);
}

// What the page shows at operation `k`: the verdict, and whether it is marked invalid.
async function stepTo(page, k) {
  await page.fill("#judge-goto", String(k));
  await page.click("#judge-go");
  await page.waitForFunction((n) => document.getElementById("judge-step").textContent.startsWith(n === 0 ? "The start" : `Operation ${n} of`), k);
  return page.evaluate(() => {
    const verdict = document.getElementById("judge-verdict");
    return { text: verdict.textContent, invalid: verdict.classList.contains("invalid") };
  });
}

// Streaming judges (Duck Chess, Surakarta) answer each operation: the answers, in order, are
// the judge's output.
async function streamedOutput(page, steps) {
  let output = "";
  const invalid = [];
  for (let k = 1; k <= steps; k++) {
    const shown = await stepTo(page, k);
    if (shown.text !== "(nothing printed)") output += shown.text;
    if (shown.invalid) invalid.push(k);
  }
  return { output, invalid };
}

test("Duck Chess: the official sample, operation by operation", { timeout: 120000 }, async () => {
  const data = judgeData("duck/official");
  const page = await newPage(session.browser);
  const steps = await judge(page, "duck", data("sample.in"));
  assert.equal(steps, 18);
  const { output, invalid } = await streamedOutput(page, steps);
  assert.equal(output, data("sample.ans"));
  const expectedInvalid = data("sample.ans").split("\n").flatMap((l, i) => (l === "Invalid command" ? [i + 1] : []));
  assert.deepEqual(invalid, expectedInvalid, "each invalid command is marked, and only those");
  // The last operation takes the blue captain: the board no longer has it.
  const board = await drawn(page);
  assert.ok(!Object.values(board.pieces).includes("second captain"));
  await checkAccessibility(page, "the judge visualiser");
  await shot(page, "judge-duck-desktop");
  assert.deepEqual(page.errors, []);
});

for (const sample of ["sample1", "sample2", "sample3", "sample4"]) {
  test(`RC-02: ${sample}, its answer at the last operation`, { timeout: 60000 }, async () => {
    const data = judgeData("rc02");
    const page = await newPage(session.browser, sample === "sample4" ? PHONE : undefined);
    const input = data(`${sample}.in`);
    const steps = await judge(page, "rc02", input);
    assert.equal(steps, Number(input.split(/\s+/)[1]));
    const last = await stepTo(page, steps);
    assert.equal(last.text, data(`${sample}.ans`));
    if (sample === "sample4") await shot(page, "judge-rc02-phone");
    assert.deepEqual(page.errors, []);
  });
}

test("Surakarta: the course's reference answers on its positions", { timeout: 300000 }, async () => {
  const data = judgeData("surakarta/reference");
  const page = await newPage(session.browser);
  const steps = await judge(page, "surakarta", data("positions.in"));
  const { output } = await streamedOutput(page, steps);
  assert.equal(output, data("positions.ans"));
  await shot(page, "judge-surakarta-desktop");
  assert.deepEqual(page.errors, []);
});

test("input the judge refuses is explained", { timeout: 30000 }, async () => {
  const page = await newPage(session.browser);
  await page.goto(`${session.server.url}/#/judge`);
  await page.selectOption("#judge-game", "rc02");
  await page.fill("#judge-input", "4 x\n");
  await page.click("#judge-run");
  await page.waitForFunction(() => /The judge stopped/.test(document.getElementById("judge-message").textContent));
  assert.match(await page.textContent("#judge-message"), /line 1/);
});
