// The page follows the system's light or dark theme, and stays readable in both: text against
// its background at WCAG's 4.5:1 at least, on the page, a panel and a button.

import assert from "node:assert/strict";
import { test } from "node:test";
import { newPage, sharedSession } from "./helpers.mjs";

const session = sharedSession();

// Relative luminance of a computed `rgb(…)` colour (WCAG 2).
function luminance(css) {
  const [r, g, b] = css.match(/[\d.]+/g).slice(0, 3).map(Number).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

for (const scheme of ["light", "dark"]) {
  test(`with a ${scheme} system theme the page is ${scheme} and readable`, { timeout: 30000 }, async () => {
    const page = await newPage(session.browser, undefined, { colorScheme: scheme });
    await page.goto(session.server.url + "/");
    await page.waitForSelector(".mode");
    const seen = await page.evaluate(() => {
      const colours = (el) => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor];
      return {
        page: colours(document.body),
        panel: colours(document.querySelector(".mode")),
        button: colours(document.querySelector("button:not(.primary)")),
      };
    });
    const background = luminance(seen.page[1]);
    if (scheme === "dark") assert.ok(background < 0.05, `a dark page, not ${seen.page[1]}`);
    else assert.ok(background > 0.7, `a light page, not ${seen.page[1]}`);
    for (const [part, [text, back]] of Object.entries(seen)) {
      const ratio = contrast(text, back);
      assert.ok(ratio >= 4.5, `${part}: ${text} on ${back} is ${ratio.toFixed(2)}:1`);
    }
    assert.deepEqual(page.errors, []);
    assert.deepEqual(page.consoleErrors, []);
    await page.context().close();
  });
}
