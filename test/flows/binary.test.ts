/**
 * The compiled binary: built once, run from another directory with no node_modules, it serves
 * every route and discovers external plugin files; bad declarations and config fail at start.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SERVE_JIT_OPTIONS } from "../../src/runtime/jit-options.ts";
import { BUILD_WAIT_MS, binaryPath, buildBinary } from "../support/binary-build.ts";
import { pluginFolder, skillSource } from "../support/plugin-files.ts";
import { startSiteServer } from "../support/site-server.ts";
import { type StartedProcess, startProcess } from "../support/spawn-binary.ts";

const root = join(import.meta.dir, "../..");
const binary = binaryPath;
let workdir: string;
let server: StartedProcess;

beforeAll(async () => {
  await buildBinary();
  workdir = mkdtempSync(join(tmpdir(), "tb-binary-"));
  mkdirSync(join(workdir, "plugins"));
  copyFileSync(join(root, "examples/word-count.ts"), join(workdir, "plugins/word-count.ts"));
  server = await startProcess([binary, "serve", "--port", "0", "--plugins", "plugins", "--data", "data"], { cwd: workdir });
}, BUILD_WAIT_MS);

afterAll(async () => {
  await server?.stop();
});

describe("dist/tollbooth", () => {
  it("was built as one file and runs outside the repository", () => {
    expect(existsSync(binary)).toBe(true);
    expect(existsSync(join(workdir, "node_modules"))).toBe(false);
    expect(existsSync(join(workdir, "data/tollbooth.db"))).toBe(true);
  });

  it("serves with the JIT inlining less: started again at once (same pid, same arguments) with the options in its environment (issue 41)", () => {
    const environ = readFileSync(`/proc/${server.proc.pid}/environ`, "utf8").split("\0");
    for (const [name, value] of Object.entries(SERVE_JIT_OPTIONS)) expect(environ).toContain(`${name}=${value}`);
    expect(readFileSync(`/proc/${server.proc.pid}/cmdline`, "utf8").split("\0").slice(1, 6)).toEqual(["serve", "--port", "0", "--plugins", "plugins"]);
  });

  it("serves /health and /openapi.json", async () => {
    const health = await fetch(`${server.baseUrl}/health`);
    expect(await health.json()).toMatchObject({ ok: true, payments: "off" });
    const doc = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.paths["/v1/jobs/word.count"]).toBeDefined();
  });

  it("runs a skill loaded from the external folder", async () => {
    const res = await fetch(`${server.baseUrl}/v1/jobs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ skill: "word.count", text: "one two three" }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, skill: "word.count", result: { words: 3 } });
  });

  it("loads the payment code it splits into its own chunk: payments on answer a 402 challenge, its offers signed (offer-receipt)", async () => {
    // The facilitator is never called for a challenge; nothing listens on the discard port.
    const paid = await startProcess(
      [binary, "serve", "--port", "0", "--data", "data-paid", "--payments", "on", "--pay-to-base", "0x1111111111111111111111111111111111111111", "--facilitator-url", "http://127.0.0.1:9", "--public-url", "http://127.0.0.1:8402"],
      { cwd: workdir },
    );
    try {
      const res = await fetch(`${paid.baseUrl}/v1/web/read`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: "https://example.com/" }),
      });
      expect(res.status).toBe(402);
      const required = JSON.parse(Buffer.from(res.headers.get("payment-required") ?? "", "base64").toString("utf8")) as { extensions?: Record<string, { info?: { offers?: { format: string }[] } }> };
      // The official extension is bundled and loaded with the payment code.
      expect(required.extensions?.["offer-receipt"]?.info?.offers?.[0]?.format).toBe("jws");
    } finally {
      await paid.stop();
    }
  });

  it("runs web/changes' filters: re2js patterns and ignore_selectors in the extraction thread", async () => {
    const site = startSiteServer();
    const page = (stamp: string) =>
      `<html><head><title>Kettle</title></head><body><main><h1>Blue kettle</h1><p>A kettle that boils a litre in three minutes, with a steel body and a blue handle for every kitchen.</p><p>Price: 30 EUR</p><p>Updated ${stamp} minutes ago</p><div class="ad"><p>Sale ${stamp}</p></div><p>${"a".repeat(30_000)}!</p></main></body></html>`;
    site.set("/k", page("5"));
    const local = await startProcess([binary, "serve", "--port", "0", "--data", "data-changes", "--unsafe-allow-loopback-targets"], { cwd: workdir });
    try {
      const check = async (body: unknown) => {
        const res = await fetch(`${local.baseUrl}/v1/web/changes`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> & { comparison: Record<string, unknown> } };
      };
      const filters = { ignore_selectors: [".ad"], ignore_patterns: ["^Updated \\d+ minutes ago$", "(a+)+$"], trigger_patterns: ["^Price"] };
      const first = await check({ url: site.url("/k"), max_chars: 60_000, ...filters });
      expect(first.status).toBe(200);
      expect(first.body.comparison.filters).toEqual({ ignore_selectors: { elements: 1, lines: 1 }, ignore_patterns: { lines: 1, by_pattern: [1, 0] } });
      site.set("/k", page("9"));
      const again = await check({ url: site.url("/k"), max_chars: 60_000, previous_text: first.body.text, ...filters });
      expect(again.body.comparison).toMatchObject({ changed: false, added: [], removed: [] });
      const bad = await check({ url: site.url("/k"), ignore_patterns: ["(a)\\1"] });
      expect(bad).toMatchObject({ status: 400, body: { error: "PATTERN_INVALID" } });
    } finally {
      await local.stop();
      await site.stop();
    }
  });

  it("refuses to start on bad declarations, naming each file and field", () => {
    const dir = pluginFolder({ "a-one.ts": skillSource("a.one", { price: `"free"` }), "b-two.ts": skillSource("b.two", { timeoutMs: "-5" }) });
    const run = Bun.spawnSync([binary, "serve", "--port", "0", "--plugins", dir, "--data", join(workdir, "data2")], { cwd: workdir, stdout: "pipe", stderr: "pipe" });
    expect(run.exitCode).toBe(1);
    const err = run.stderr.toString();
    expect(err).toContain("refusing to start");
    expect(err).toContain("a-one.ts: price:");
    expect(err).toContain("b-two.ts: timeoutMs:");
  });

  it("refuses bad config, naming the flag or variable", () => {
    const run = Bun.spawnSync([binary, "serve", "--port", "99999", "--payments", "maybe"], {
      cwd: workdir,
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, TOLLBOOTH_LOG_LEVEL: "chatty" },
    });
    expect(run.exitCode).toBe(2);
    const err = run.stderr.toString();
    expect(err).toContain("--port:");
    expect(err).toContain("--payments:");
    expect(err).toContain("TOLLBOOTH_LOG_LEVEL:");
  });

  it("pauses and resumes through the CLI against a running server's database", async () => {
    const data = join(workdir, "data");
    const pause = Bun.spawnSync([binary, "pause", "--reason", "disk swap", "--data", data], { stdout: "pipe", stderr: "pipe" });
    expect(pause.exitCode).toBe(0);
    const res = await fetch(`${server.baseUrl}/v1/jobs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ skill: "word.count", text: "x" }) });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: "SERVICE_PAUSED", pause_reason: "disk swap" });
    expect(Bun.spawnSync([binary, "resume", "--data", data]).exitCode).toBe(0);
    const again = await fetch(`${server.baseUrl}/v1/capabilities`);
    expect(await again.json()).toMatchObject({ open_for_work: true });
  });

  it("lists the registry with `skills`", () => {
    const run = Bun.spawnSync([binary, "skills", "--plugins", join(workdir, "plugins")], { stdout: "pipe" });
    const out = run.stdout.toString();
    expect(out).toMatch(/word\.count\s+skill word\.count\s+\$0\.001\s+\$0\.001\s+no\s+2s\s+external/);
  });
});
