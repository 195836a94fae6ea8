/**
 * What Chromium's processes hold with the pool's two pages open: Chromium launched with
 * Tollbooth's switches (buildBrowserArgs, minus the proxy and resolver rules: the page comes from a
 * loopback server), two fresh incognito contexts each showing a script-built page, then per process
 * its RSS, PSS, private dirty and shared clean memory, and the sums. Shows why summed RSS overstates
 * the tree (each renderer's RSS is mostly Chromium's shared code) and measures a switch's effect:
 *   node_modules/.bin/bun scripts/bench/chromium-memory.ts [--drop=--switch ...] [--add=--switch ...] [--browser PATH]
 */
import { readFileSync } from "node:fs";
import puppeteer from "puppeteer-core";
import { findBrowser } from "../../src/web/render/browser-discovery.ts";
import { buildBrowserArgs } from "../../src/web/render/browser-launch.ts";
import { listProcessTree } from "./render-rss.ts";

const args = process.argv.slice(2);
const drop = new Set(args.filter((a) => a.startsWith("--drop=")).map((a) => a.slice("--drop=".length)));
const add = args.filter((a) => a.startsWith("--add=")).map((a) => a.slice("--add=".length));
const browserAt = args.indexOf("--browser");
const found = findBrowser(browserAt >= 0 ? args[browserAt + 1] : undefined);
if (!found.found) throw new Error(`no browser: ${found.detail}`);

const page = `<html><body><main id="app"></main><script>document.getElementById("app").textContent = "Built by script. ".repeat(200);</script></body></html>`;
const site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(page, { headers: { "content-type": "text/html" } }) });
const switches = buildBrowserArgs({ proxyUrl: "http://127.0.0.1:9", userAgent: "Tollbooth/bench", sandbox: process.getuid?.() !== 0 })
  .filter((a) => !a.startsWith("--proxy") && !a.startsWith("--host-resolver") && !drop.has(a))
  .concat(add);
const browser = await puppeteer.launch({ executablePath: found.path, headless: true, pipe: true, args: switches, ignoreDefaultArgs: ["--disable-popup-blocking"] });
for (const tab of await browser.pages()) await tab.close();
const contexts = [];
for (let i = 0; i < 2; i++) {
  const context = await browser.createBrowserContext();
  const tab = await context.newPage();
  await tab.goto(site.url.href, { waitUntil: "load" });
  contexts.push(context);
}

const kib = (rollup: string, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? 0) / 1024;
const totals = { rss: 0, pss: 0, privateDirty: 0, sharedClean: 0 };
console.log(`dropped: ${[...drop].join(" ") || "none"}; added: ${add.join(" ") || "none"}`);
console.log("process        RSS MiB   PSS MiB   private dirty   shared clean");
for (const pid of listProcessTree(browser.process()?.pid ?? 0)) {
  let rollup: string;
  let cmdline: string;
  try {
    rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    continue;
  }
  const row = { rss: kib(rollup, "Rss"), pss: kib(rollup, "Pss"), privateDirty: kib(rollup, "Private_Dirty"), sharedClean: kib(rollup, "Shared_Clean") };
  for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += row[key];
  const kind = /--utility-sub-type=([\w.]+)/.exec(cmdline)?.[1] ?? /--type=([a-z-]+)/.exec(cmdline)?.[1] ?? "browser";
  console.log(`${kind.slice(0, 13).padEnd(13)} ${row.rss.toFixed(0).padStart(8)} ${row.pss.toFixed(0).padStart(9)} ${row.privateDirty.toFixed(0).padStart(15)} ${row.sharedClean.toFixed(0).padStart(14)}`);
}
console.log(`sum          ${totals.rss.toFixed(0).padStart(9)} ${totals.pss.toFixed(0).padStart(9)} ${totals.privateDirty.toFixed(0).padStart(15)} ${totals.sharedClean.toFixed(0).padStart(14)}`);
for (const context of contexts) await context.close();
await browser.close();
site.stop(true);
