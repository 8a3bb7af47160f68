// Drives the admin page in Debian's chromium through playwright-core, for
// page_browser_test.go. Steps arrive as lines on stdin; each result is one JSON
// line on stdout: {"step": ..., ...} or {"error": ...}.
//
//   env: PAGE_URL, PAGE_TOKEN, PAGE_PROFILE (a fresh --user-data-dir)
//   stdin: "list N" | "down ADDR" | "drain ADDR" | "quit"
"use strict";

const readline = require("readline");
const { chromium } = require("playwright-core");

const say = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

async function main() {
  const ctx = await chromium.launchPersistentContext(process.env.PAGE_PROFILE, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = ctx.pages()[0] || (await ctx.newPage());
    page.on("pageerror", (e) => say({ pageError: String(e) }));
    await page.goto(process.env.PAGE_URL);
    await page.locator("#login input[name=token]").fill(process.env.PAGE_TOKEN);
    await page.locator("#login button").click();
    await page.locator("#main").waitFor({ state: "visible", timeout: 10000 });
    await page.locator("#live.on").waitFor({ timeout: 10000 }); // the event stream is open
    await page.evaluate(() => { window.gateMarker = 1; }); // gone if the page reloads
    say({ step: "logged-in" });
    const rl = readline.createInterface({ input: process.stdin });
    for await (const line of rl) {
      const [cmd, arg] = line.trim().split(/\s+/);
      if (cmd === "quit") break;
      try {
        say(await step(page, cmd, arg));
      } catch (e) {
        say({ step: cmd, error: String(e && e.message || e) });
      }
    }
  } finally {
    await ctx.close();
  }
}

// row is the backend's row of the table.
const row = (page, addr) => page.locator(`#backends tbody tr[data-backend="${addr}"]`);

async function step(page, cmd, arg) {
  const start = Date.now();
  switch (cmd) {
    case "list": {
      const n = Number(arg);
      await page.waitForFunction((n) => document.querySelectorAll("#backends tbody tr").length === n, n, { timeout: 10000 });
      const states = await page.$$eval("#backends tbody tr", (rows) => rows.map((r) => r.dataset.backend + "=" + r.dataset.state));
      return { step: "list", rows: states };
    }
    case "down":
      await row(page, arg).and(page.locator('[data-state="down"]')).waitFor({ timeout: 10000 });
      return { step: "down", ms: Date.now() - start, sameDocument: await page.evaluate(() => window.gateMarker === 1) };
    case "drain":
      await row(page, arg).locator('button[data-action="drain"]').click();
      await row(page, arg).and(page.locator('[data-state="drained"]')).waitFor({ timeout: 10000 });
      return { step: "drain", ms: Date.now() - start };
  }
  throw new Error("unknown step " + cmd);
}

main().catch((e) => {
  say({ error: String(e && e.stack || e) });
  process.exit(1);
});
