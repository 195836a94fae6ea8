/**
 * `/docs`: Swagger UI (through @elysiajs/openapi) over our own /openapi.json, rendered in headless
 * Chromium with payments on. Every request the page makes stays on the server (no CDN), the
 * x402 extension is shown, and "Try it out" on a paid route shows the free 402 price preview.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "puppeteer-core";
import { type RunningService, startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { type FacilitatorServer, startFacilitatorServer } from "../support/facilitator.ts";
import { onFreshPort } from "../support/ports.ts";
import { launchChromium } from "../support/browser.ts";
import { skipWithout } from "../support/requirements.ts";

let service: RunningService;
let facilitator: FacilitatorServer;
const noBrowser = skipWithout("chromium", "Swagger UI at /docs in a real browser");
let browser: Browser | undefined;
let base: string;

beforeAll(async () => {
  facilitator = startFacilitatorServer({
    verify: async () => ({ isValid: false, invalidReason: "not used" }),
    settle: async () => ({ success: false }),
    supported: async () => ({ kinds: [{ x402Version: 2, scheme: "exact", network: "eip155:8453" }], extensions: [], signers: {} }),
  });
  // Payments on needs --public-url (issue 15 §2), so the port is chosen first.
  service = await onFreshPort((port) => {
    const config = loadConfig({
      argv: ["--port", String(port), "--public-url", `http://127.0.0.1:${port}`, "--host", "127.0.0.1", "--data", ":memory:", "--payments", "on", "--pay-to-base", `0x${"ab".repeat(20)}`, "--facilitator-url", facilitator.url, "--render", "off", "--extract-workers", "0"],
    });
    return startService(config, { log: createMemoryLogger() });
  });
  base = service.server.url.toString().replace(/\/$/, "");
});
afterAll(async () => {
  await browser?.close();
  await service.close();
  await facilitator.stop();
});

describe("/docs", () => {
  it("serves the page and Swagger UI's files from the server itself", async () => {
    const page = await fetch(`${base}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('src="/docs/swagger-ui-bundle.js"');
    expect(html).toContain('"url":"/openapi.json"');
    expect(html).not.toMatch(/unpkg|jsdelivr|https:\/\//);
    const bundle = await fetch(`${base}/docs/swagger-ui-bundle.js`);
    expect(bundle.headers.get("content-type")).toContain("javascript");
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
  });

  it.skipIf(noBrowser)("renders our document in Chromium and tries a paid route into its 402 preview", async () => {
    browser = await launchChromium();
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 1000 });
    const requested: string[] = [];
    page.on("request", (r) => requested.push(r.url()));
    await page.goto(`${base}/docs`, { waitUntil: "networkidle0" });
    await page.waitForSelector("#operations-web-web\\.read, .opblock");
    const text = await page.$eval(".swagger-ui", (n) => n.textContent ?? "");
    expect(text).toContain("/v1/web/read");
    expect(text).toContain("/v1/jobs");
    expect(text).toContain("x402 v2");

    // Open POST /v1/web/read, try it with its example body, execute.
    const block = await page.waitForSelector('.opblock-post [data-path="/v1/web/read"]');
    await block!.click();
    // Swagger UI opens the block first and fills its body in a later render: wait for the body's
    // extensions (a timeout here fails the test as the assertion below would).
    await page.waitForFunction(() => (document.querySelector(".opblock.is-open")?.textContent ?? "").includes("x-payment-info"), { timeout: 15_000 });
    expect(await page.$eval(".opblock.is-open", (n) => n.textContent ?? "")).toContain("x-payment-info");
    const tryIt = await page.$(".opblock.is-open .try-out__btn");
    if (tryIt && (await tryIt.evaluate((b) => b.textContent ?? "")).includes("Try it out")) await tryIt.click();
    await page.waitForSelector(".opblock.is-open .execute");
    await page.click(".opblock.is-open .execute");
    await page.waitForSelector(".opblock.is-open .live-responses-table tr.response .response-col_status");
    const status = await page.$eval(".opblock.is-open .live-responses-table tr.response .response-col_status", (n) => n.textContent?.trim() ?? "");
    expect(status).toStartWith("402");
    const shown = await page.$eval(".opblock.is-open .live-responses-table", (n) => n.textContent ?? "");
    expect(shown.toLowerCase()).toContain("payment-required");
    expect(shown).toContain("PAYMENT_REQUIRED");
    await page.screenshot({ path: join(mkdtempSync(join(tmpdir(), "tb-docs-")), "docs.png"), fullPage: false });

    // Nothing left the server: no CDN, no other host.
    expect(requested.length).toBeGreaterThan(2);
    for (const url of requested) expect(url.startsWith(`${base}/`) || url.startsWith("data:")).toBe(true);
    expect(requested).toContain(`${base}/openapi.json`);
  }, 60_000);
});
