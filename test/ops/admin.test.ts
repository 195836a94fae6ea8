/**
 * The admin listener: /metrics (Prometheus text from prom-client) and the dashboard, on their
 * own port and never on the public one. The dashboard is driven in headless Chromium over
 * seeded data: the figures it shows equal the database's, and pause/resume work from it.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "puppeteer-core";
import { type RunningService, startService } from "../../src/boot.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { seedOperatorData } from "../support/operator-seed.ts";
import { launchChromium } from "../support/browser.ts";
import { skipWithout } from "../support/requirements.ts";

const tmp = mkdtempSync(join(tmpdir(), "tb-admin-"));
const data = join(tmp, "data");
let service: RunningService;
const noBrowser = skipWithout("chromium", "the admin dashboard in a real browser");
let browser: Browser | undefined;
let adminUrl: string;
let publicUrl: string;

beforeAll(async () => {
  await seedOperatorData(data);
  const config = loadConfig({ argv: ["--port", "0", "--admin-port", "0", "--data", data, "--render", "off", "--extract-workers", "0"] });
  service = await startService(config, { log: createMemoryLogger() });
  adminUrl = service.admin!.url.toString().replace(/\/$/, "");
  publicUrl = service.server.url.toString().replace(/\/$/, "");
});
afterAll(async () => {
  await browser?.close();
  await service.close();
});

/** The figures straight from the database, computed here without the server's code. */
function expected() {
  const db = new Database(join(data, "tollbooth.db"), { readonly: true });
  try {
    const since = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    const settled = db.query<{ day: string; operation: string; network: string; amount: string }, [string]>(
      "SELECT substr(settled_at, 1, 10) AS day, operation_id AS operation, network, amount FROM payment_receipts WHERE state = 'settled' AND substr(settled_at, 1, 10) >= ?",
    ).all(since);
    const byDay = new Map<string, number>();
    const byRoute = new Map<string, number>();
    let total = 0;
    for (const r of settled) {
      const usd = Number(r.amount) / 1e6;
      total += usd;
      byDay.set(r.day, (byDay.get(r.day) ?? 0) + usd);
      byRoute.set(r.operation, (byRoute.get(r.operation) ?? 0) + usd);
    }
    const count = (sql: string) => db.query<{ n: number }, []>(sql).get()!.n;
    return {
      total,
      calls: settled.length,
      byDay,
      byRoute,
      pending: count("SELECT count(*) AS n FROM payment_receipts WHERE state = 'pending'"),
      failed: count("SELECT count(*) AS n FROM payment_receipts WHERE state = 'failed'"),
      refundsDue: count("SELECT count(*) AS n FROM jobs WHERE refund_state = 'due'"),
      queued: count("SELECT count(*) AS n FROM jobs WHERE status = 'queued'"),
      running: count("SELECT count(*) AS n FROM jobs WHERE status = 'running'"),
      receipts: count("SELECT count(*) AS n FROM payment_receipts"),
      callRoutes: count(`SELECT count(DISTINCT route) AS n FROM request_outcomes WHERE at >= '${since}'`),
      manager: JSON.parse(db.query<{ value: string }, []>("SELECT value FROM settings WHERE key = 'manager'").get()?.value ?? '{"openForWork":true}') as { openForWork: boolean; pauseReason?: string },
    };
  } finally {
    db.close();
  }
}

const money = (text: string) => Number(text.replace(/[^0-9.]/g, ""));

describe("admin listener", () => {
  it("serves /metrics in the Prometheus format, with figures from the database and from requests", async () => {
    expect((await fetch(`${publicUrl}/health`)).status).toBe(200);
    const response = await fetch(`${adminUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1]);
    const db = new Database(join(data, "tollbooth.db"), { readonly: true });
    const base = db.query<{ n: number; sum: number }, []>("SELECT count(*) AS n, sum(CAST(amount AS INTEGER)) AS sum FROM payment_receipts WHERE state = 'settled' AND network = 'eip155:8453'").get()!;
    db.close();
    expect(value(/^tollbooth_paid_calls_total\{network="eip155:8453"\} (\S+)$/m)).toBe(base.n);
    expect(value(/^tollbooth_revenue_atomic_total\{network="eip155:8453"\} (\S+)$/m)).toBe(base.sum);
    expect(value(/^tollbooth_revenue_usd_total\{network="eip155:8453"\} (\S+)$/m)).toBeCloseTo(base.sum / 1e6, 9);
    expect(value(/^tollbooth_receipts\{state="pending"\} (\S+)$/m)).toBe(expected().pending);
    expect(value(/^tollbooth_refunds\{state="due"\} (\S+)$/m)).toBe(expected().refundsDue);
    expect(value(/^tollbooth_jobs\{status="queued"\} (\S+)$/m)).toBe(expected().queued);
    expect(value(/^tollbooth_http_requests_total\{method="GET",route="\/health",status="200"\} (\S+)$/m)).toBeGreaterThanOrEqual(1);
    for (const name of ["process_resident_memory_bytes", "nodejs_eventloop_lag_p99_seconds", "tollbooth_extraction_threads", "tollbooth_browser_launches", "tollbooth_job_duration_seconds", "tollbooth_settlement_duration_seconds"]) {
      expect(text).toContain(`# TYPE ${name}`);
    }
  });

  it("is never on the public port", async () => {
    for (const path of ["/metrics", "/api/summary", "/dashboard"]) expect((await fetch(`${publicUrl}${path}`)).status).toBe(404);
    expect((await fetch(`${publicUrl}/api/pause`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(404);
  });

  it("refuses pages from another origin or host name", async () => {
    expect((await fetch(`${adminUrl}/api/summary`, { headers: { origin: "https://evil.example" } })).status).toBe(403);
    expect((await fetch(`${adminUrl}/api/summary`, { headers: { host: "rebind.example" } })).status).toBe(403);
    const form = await fetch(`${adminUrl}/api/pause`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "reason=x" });
    expect(form.status).toBe(415);
    expect(expected().manager.openForWork).toBe(true);
  });

  it.skipIf(noBrowser)("shows the database's figures in a real browser, and pauses and resumes from it", async () => {
    browser = await launchChromium();
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 1100 });
    const scriptErrors: string[] = [];
    page.on("pageerror", (error) => scriptErrors.push(String(error)));
    await page.goto(`${adminUrl}/`, { waitUntil: "load" });
    await page.waitForSelector("body[data-loaded]");
    const want = expected();
    const text = (selector: string) => page.$eval(selector, (n) => n.textContent ?? "");

    expect(money(await text("#revenue-total"))).toBeCloseTo(want.total, 6);
    expect(Number(await text("#revenue-calls"))).toBe(want.calls);
    expect(Number(await text("#settlements-pending"))).toBe(want.pending);
    expect(Number(await text("#settlements-failed"))).toBe(want.failed);
    expect(Number(await text("#refunds-due"))).toBe(want.refundsDue);
    expect(Number(await text("#jobs-queued"))).toBe(want.queued);
    expect(Number(await text("#jobs-running"))).toBe(want.running);

    const dayBars = await page.$$eval("#chart-revenue-day g[data-day]", (gs) =>
      gs.map((g) => ({ day: g.getAttribute("data-day")!, usd: Number(g.querySelector("rect")?.getAttribute("data-value") ?? 0) })),
    );
    expect(dayBars).toHaveLength(30);
    for (const bar of dayBars) expect(bar.usd).toBeCloseTo(want.byDay.get(bar.day) ?? 0, 6);
    expect(dayBars.filter((b) => b.usd > 0).length).toBe(want.byDay.size);

    const routes = await page.$$eval("#revenue-routes tbody tr", (trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")));
    expect(routes).toHaveLength(want.byRoute.size);
    for (const [operation, , usd] of routes) expect(money(usd!)).toBeCloseTo(want.byRoute.get(operation!)!, 6);
    const routeBars = await page.$$eval("#chart-revenue-route rect", (rects) => rects.map((r) => [r.getAttribute("data-operation"), Number(r.getAttribute("data-usd"))] as const));
    for (const [operation, usd] of routeBars) expect(usd).toBeCloseTo(want.byRoute.get(operation!)!, 6);

    expect(await page.$$eval("#receipts tbody tr", (trs) => trs.length)).toBe(Math.min(20, want.receipts));
    expect(await page.$$eval("#call-routes tbody tr", (trs) => trs.length)).toBe(want.callRoutes);

    // Pause with a reason, then resume: the switch in the database follows the clicks.
    await page.type("#pause-reason", "maintenance until 14:00");
    await page.click("#pause");
    await page.waitForFunction(() => document.getElementById("status")?.textContent === "Paused");
    expect(expected().manager).toEqual({ openForWork: false, pauseReason: "maintenance until 14:00" });
    expect(await text("#status-reason")).toBe("maintenance until 14:00");
    const paid = await fetch(`${publicUrl}/v1/web/read`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: "https://example.com/" }) });
    expect(((await paid.json()) as { error: string }).error).toBe("SERVICE_PAUSED");
    const shot = join(tmp, "dashboard.png");
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(10_000);

    await page.click("#resume");
    await page.waitForFunction(() => document.getElementById("status")?.textContent === "Open for work");
    expect(expected().manager.openForWork).toBe(true);
    expect(scriptErrors).toEqual([]);
    console.log(`dashboard screenshot: ${shot}`);
  }, 60_000);
});

describe("admin token", () => {
  it("is required for a non-loopback bind", () => {
    expect(() => loadConfig({ argv: ["--admin-port", "9000", "--admin-host", "0.0.0.0"] })).toThrow(ConfigError);
    expect(() => loadConfig({ argv: ["--admin-port", "9000", "--admin-host", "0.0.0.0"] })).toThrow(/--admin-host: .*--admin-token/);
    expect(loadConfig({ argv: ["--admin-port", "9000", "--admin-host", "0.0.0.0", "--admin-token", "0123456789abcdef"] }).adminHost).toBe("0.0.0.0");
  });

  it("guards every route but the page when set", async () => {
    const token = "s3cret-admin-token-000";
    const config = loadConfig({ argv: ["--port", "0", "--admin-port", "0", "--admin-token", token, "--data", ":memory:", "--render", "off", "--extract-workers", "0"] });
    const guarded = await startService(config, { log: createMemoryLogger() });
    try {
      const url = guarded.admin!.url.toString().replace(/\/$/, "");
      expect((await fetch(`${url}/`)).status).toBe(200);
      const denied = await fetch(`${url}/metrics`);
      expect(denied.status).toBe(401);
      expect(await denied.json()).toMatchObject({ ok: false, error: "ADMIN_UNAUTHORIZED", status: 401 });
      expect((await fetch(`${url}/metrics`, { headers: { authorization: "Bearer wrong-token-wrong-00" } })).status).toBe(401);
      expect((await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      const pause = await fetch(`${url}/api/pause`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify({ reason: "x" }) });
      expect(pause.status).toBe(200);
      expect((await guarded.store.settings.manager()).openForWork).toBe(false);
    } finally {
      await guarded.close();
    }
  });
});
