/**
 * The service under Deno (issue 28): scripts/build-deno.ts's bundle run by `deno run -A` (Deno from
 * npm, node_modules/.bin/deno), payments on with a real anvil and the official x402 buyer. One start
 * covers /health, a paid web/read (its receipt looked up after), a paid PDF read on the mupdf WASM and
 * the PDF thread, and a paid async job from an operator skill file loaded from a folder (its
 * `import … from "tollbooth"` goes through the bundle's import map) polled to completion.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { buildDenoBundle } from "../../scripts/build-deno.ts";
import { decodePaymentResponse } from "../../src/x402/headers.ts";
import { pluginFolder } from "../support/plugin-files.ts";
import { onFreshPort } from "../support/ports.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { type StartedProcess, startProcess } from "../support/spawn-binary.ts";
import { type EvmFixture, startEvmFixture } from "../x402/evm-fixture.ts";

const repoRoot = join(import.meta.dir, "../..");
const deno = join(repoRoot, "node_modules/.bin/deno");
const fixture = (path: string) => readFileSync(join(repoRoot, "test/fixtures", path));

const operatorSkill = `import { defineSkill, t } from "tollbooth";
export default defineSkill({
  skill: "smoke.echo",
  summary: "Echoes its text after a short wait (the Deno smoke test's operator file).",
  input: t.Object({ text: t.String({ maxLength: 100 }) }, { additionalProperties: false }),
  price: "0.002",
  async: true,
  timeoutMs: 10_000,
  examples: [{ input: { text: "hi" } }],
  async run({ text }) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { echoed: text, runtime: typeof Deno === "undefined" ? "not deno" : "deno" };
  },
});
`;

let fx: EvmFixture;
let site: SiteServer;
/** Serves the article gzipped to a reader that accepts gzip (as most sites do), plain otherwise. */
let gzipSite: ReturnType<typeof Bun.serve>;
let server: StartedProcess;
let bundle: string;
let data: string;

beforeAll(async () => {
  bundle = mkdtempSync(join(tmpdir(), "tb-deno-bundle-"));
  await buildDenoBundle(bundle);
  fx = await startEvmFixture();
  site = startSiteServer();
  const article = fixture("pages/article.html");
  gzipSite = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      if (new URL(request.url).pathname === "/robots.txt") return new Response("User-agent: *\nAllow: /\n");
      const gzip = (request.headers.get("accept-encoding") ?? "").includes("gzip");
      return new Response(gzip ? gzipSync(article) : article, { headers: { "content-type": "text/html; charset=utf-8", ...(gzip ? { "content-encoding": "gzip" } : {}) } });
    },
  });
  site.set("/report.pdf", new Uint8Array(fixture("pdf/multi-page.pdf")), "application/pdf");
  const plugins = pluginFolder({ "smoke-echo.ts": operatorSkill });
  data = mkdtempSync(join(tmpdir(), "tb-deno-data-"));
  const x402 = JSON.stringify(fx.config());
  server = await onFreshPort((port) =>
    startProcess(
      [deno, "run", "-A", "--v8-flags=--expose-gc", "--no-lock", "--import-map", join(bundle, "import-map.json"), join(bundle, "main.js"), "serve"].concat(
        ["--host", "127.0.0.1", "--port", String(port), "--public-url", `http://127.0.0.1:${port}`, "--data", data, "--plugins", plugins],
        ["--payments", "on", "--x402", x402, "--unsafe-allow-loopback-targets", "--memory-soft-limit-mb", "0"],
      ),
      { cwd: bundle, timeoutMs: 60_000, env: { NO_COLOR: "1" } },
    ),
  );
}, 600_000);

afterAll(async () => {
  await server?.stop();
  await site?.stop();
  await gzipSite?.stop(true);
  await fx?.stop();
  for (const dir of [bundle, data]) if (dir) rmSync(dir, { recursive: true, force: true });
});

type Json = Record<string, unknown>;
const paidPost = (path: string, body: unknown) =>
  fx.officialFetch()(`${server.baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("the service under Deno", () => {
  it("answers /health", async () => {
    const health = (await (await fetch(`${server.baseUrl}/health`)).json()) as Json;
    expect(health).toMatchObject({ ok: true, payments: "on", open_for_work: true });
  });

  it("sells a web/read of a site that gzips to the official x402 buyer, settles it on anvil and keeps the receipt", async () => {
    const before = await fx.token.balanceOf(fx.buyer.address);
    const url = `http://127.0.0.1:${gzipSite.port}/article.html`;
    const res = await paidPost("/v1/web/read", { url });
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ ok: true, url });
    expect(String(body.text).length).toBeGreaterThan(200);
    const settlement = decodePaymentResponse(res.headers.get("payment-response") ?? "");
    if (!settlement.ok) throw new Error(settlement.reason);
    expect(settlement.value).toMatchObject({ success: true, payer: fx.buyer.address });
    const paid = before - (await fx.token.balanceOf(fx.buyer.address));
    expect(paid).toBeGreaterThan(0n);

    const lookup = await fetch(`${server.baseUrl}/v1/payments/${settlement.value.transaction}`);
    const receipt = (await lookup.json()) as Json;
    expect(lookup.status, JSON.stringify(receipt)).toBe(200);
    expect(JSON.stringify(receipt)).toContain(settlement.value.transaction);
    expect(JSON.stringify(receipt)).toContain("settled");
  }, 60_000);

  it("reads a PDF's pages with the bundled mupdf WASM", async () => {
    const res = await paidPost("/v1/pdf/read", { url: site.url("/report.pdf") });
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ ok: true, page_count: 3 });
  }, 60_000);

  it("runs a paid async job from an operator skill file in --plugins, polled to completion", async () => {
    const res = await paidPost("/v1/jobs", { skill: "smoke.echo", text: "from deno" });
    const accepted = (await res.json()) as Json;
    expect(res.status, JSON.stringify(accepted)).toBe(202);
    const id = String(accepted.job_id);
    let job: Json = {};
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
      job = (await (await fetch(`${server.baseUrl}/v1/jobs/${id}`)).json()) as Json;
      if (job.status === "completed" || job.status === "failed") break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(job).toMatchObject({ status: "completed", result: { echoed: "from deno", runtime: "deno" } });
  }, 60_000);
});
