/**
 * Log output (issue 15 §5): the log file's size cap and rotation, lines written in batches but
 * never lost at a normal exit, the request log that keeps only errors and paid calls, and the
 * free documents counted rather than logged one by one (the default).
 */
import { afterAll, describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contextOf } from "../src/http/request-context.ts";
import { createFreeTally } from "../src/http/free-tally.ts";
import { createRequestHandler } from "../src/serve.ts";
import { startService } from "../src/boot.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger, createMemoryLogger } from "../src/log.ts";
import { fileLogOutput } from "../src/log-output.ts";

const dir = mkdtempSync(join(tmpdir(), "tb-log-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : []);

describe("log file", () => {
  it("never grows past its size, keeps the newest lines in `keep` rotated files and deletes older ones", () => {
    const path = join(dir, "rotate.log");
    const output = fileLogOutput({ path, maxBytes: 1000, keep: 2 });
    const log = createLogger({ sink: output.sink });
    for (let i = 0; i < 100; i++) {
      log.info("line", { i, pad: "x".repeat(40) });
      output.flush();
    }
    for (const file of [path, `${path}.1`, `${path}.2`]) expect(statSync(file).size).toBeLessThanOrEqual(1000);
    expect(existsSync(`${path}.3`)).toBe(false);
    const kept = [...lines(`${path}.2`), ...lines(`${path}.1`), ...lines(path)].map((l) => (JSON.parse(l) as { i: number }).i);
    expect(kept.at(-1)).toBe(99);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, k) => 100 - kept.length + k));
    expect(kept.length).toBeGreaterThanOrEqual(20);
  });

  it("appends to an existing file and counts its size", () => {
    const path = join(dir, "append.log");
    writeFileSync(path, "x".repeat(950) + "\n");
    const output = fileLogOutput({ path, maxBytes: 1000, keep: 1 });
    createLogger({ sink: output.sink }).info("after", { pad: "y".repeat(60) });
    output.flush();
    expect(readFileSync(`${path}.1`, "utf8")).toBe("x".repeat(950) + "\n");
    expect(lines(path)).toHaveLength(1);
  });

  it("buffers info lines, and writes them with an error line at once", () => {
    const path = join(dir, "buffer.log");
    const output = fileLogOutput({ path, maxBytes: 1_000_000, keep: 1 });
    const log = createLogger({ sink: output.sink });
    log.info("first");
    log.info("second");
    expect(lines(path)).toHaveLength(0);
    log.error("broken");
    expect(lines(path).map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(["first", "second", "broken"]);
  });

  it("keeps every line whole and in order across flushes: multi-byte text, and a line longer than the buffer", () => {
    const path = join(dir, "whole.log");
    const output = fileLogOutput({ path, maxBytes: 10_000_000, keep: 1 });
    const log = createLogger({ sink: output.sink });
    const huge = "ü".repeat(200_000);
    const written: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const text = i === 1500 ? huge : i % 97 === 96 ? "€".repeat(40_000 + i) : `${"€".repeat(i % 50)}😀 ${i}`;
      written.push(text);
      log.info("line", { text });
    }
    output.flush();
    expect(lines(path).map((l) => (JSON.parse(l) as { text: string }).text)).toEqual(written);
  });

  it("writes every buffered line when the process exits, to stdout and to a file", async () => {
    const path = join(dir, "exit.log");
    const script = join(dir, "exit-child.ts");
    writeFileSync(
      script,
      `import { createLogger } from ${JSON.stringify(join(import.meta.dir, "..", "src", "log.ts"))};
import { fileLogOutput, stdoutLogOutput } from ${JSON.stringify(join(import.meta.dir, "..", "src", "log-output.ts"))};
const toStdout = createLogger({ sink: stdoutLogOutput().sink });
const toFile = createLogger({ sink: fileLogOutput({ path: ${JSON.stringify(path)}, maxBytes: 100_000_000, keep: 1 }).sink });
for (let i = 0; i < 5000; i++) { toStdout.info("l", { i }); toFile.info("l", { i }); }
process.exit(0);
`,
    );
    const child = Bun.spawn([process.execPath, script], { stdout: "pipe", stderr: "pipe" });
    const out = await new Response(child.stdout).text();
    expect(await child.exited).toBe(0);
    expect(out.split("\n").filter(Boolean)).toHaveLength(5000);
    expect(lines(path)).toHaveLength(5000);
  });
});

describe("request log", () => {
  const app = (request: Request): Response => {
    const path = new URL(request.url).pathname;
    if (path === "/missing") return new Response("{}", { status: 404 });
    if (path === "/broken") return new Response("{}", { status: 500 });
    if (path === "/paid") {
      const paid = request.headers.has("payment-signature");
      if (!paid) contextOf(request).outcome = "challenge";
      return new Response("{}", { status: paid ? 200 : 402 });
    }
    return new Response("{}", { status: 200 });
  };
  const send = async (mode: "all" | "errors-and-paid") => {
    const log = createMemoryLogger();
    const handle = createRequestHandler(app, { log, logRequests: mode });
    for (const [path, headers] of [["/health", {}], ["/missing", {}], ["/broken", {}], ["/paid", {}], ["/paid", { "PAYMENT-SIGNATURE": "e30=" }]] as const) {
      await handle(new Request(`http://127.0.0.1${path}`, { headers }), "127.0.0.1");
    }
    return log.lines.filter((l) => l.msg === "request").map((l) => `${String(l.path)} ${String(l.status)}`);
  };

  it("logs every request by default", async () => {
    expect(await send("all")).toEqual(["/health 200", "/missing 404", "/broken 500", "/paid 402", "/paid 200"]);
  });

  it("with errors-and-paid, logs errors and calls that carried a payment, not successes or price previews", async () => {
    expect(await send("errors-and-paid")).toEqual(["/missing 404", "/broken 500", "/paid 200"]);
  });
});

describe("free documents under --log-requests calls (the default)", () => {
  // Free documents are answered before the app; /doc/gone stands for one that fails.
  const freeAnswers = new Map([
    ["/doc", () => new Response("{}", { status: 200 })],
    ["/doc/gone", () => new Response("{}", { status: 503 })],
  ]);
  const app = (request: Request) => new Response("{}", { status: new URL(request.url).pathname === "/missing" ? 404 : 200 });
  const send = async (mode: "all" | "calls") => {
    const log = createMemoryLogger();
    const freeTally = createFreeTally(log);
    const handle = createRequestHandler(app, { log, logRequests: mode, freeAnswers, freeTally });
    for (const path of ["/doc", "/doc", "/doc/gone", "/other", "/missing"]) await handle(new Request(`http://127.0.0.1${path}`), "127.0.0.1");
    const requests = log.lines.filter((l) => l.msg === "request").map((l) => `${String(l.path)} ${String(l.status)}`);
    freeTally.stop();
    return { requests, tallies: log.lines.filter((l) => l.msg === "free documents served") };
  };

  it("counts free documents answered below 400 in one line instead of a line each, and logs every other request", async () => {
    const { requests, tallies } = await send("calls");
    expect(requests).toEqual(["/doc/gone 503", "/other 200", "/missing 404"]);
    expect(tallies).toHaveLength(1);
    expect(tallies[0]).toMatchObject({ level: "info", served: { "/doc": 2 } });
    expect(typeof tallies[0]!.period_sec).toBe("number");
  });

  it("with all, logs the free documents too", async () => {
    const { requests } = await send("all");
    expect(requests).toEqual(["/doc 200", "/doc 200", "/doc/gone 503", "/other 200", "/missing 404"]);
  });

  it("writes no tally line when nothing was counted, and starts a new count after each line", () => {
    const log = createMemoryLogger();
    const tally = createFreeTally(log);
    tally.flush();
    expect(log.lines).toHaveLength(0);
    tally.count("/health");
    tally.flush();
    tally.count("/v1/capabilities");
    tally.stop();
    expect(log.lines.map((l) => l.served)).toEqual([{ "/health": 1 }, { "/v1/capabilities": 1 }]);
  });

  it("is the server's default, and a stopping server writes what it counted", async () => {
    expect(loadConfig({ argv: [] }).logRequests).toBe("calls");
    const log = createMemoryLogger();
    const service = await startService(loadConfig({ argv: ["--port", "0", "--data", ":memory:", "--render", "off", "--extract-workers", "0"] }), { log });
    const base = `http://127.0.0.1:${service.server.port}`;
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}/health`)).status).toBe(200);
    expect((await fetch(`${base}/v1/jobs/job_none`)).status).toBe(404);
    await service.close();
    expect(log.lines.filter((l) => l.msg === "request").map((l) => l.path)).toEqual(["/v1/jobs/:id"]);
    expect(log.lines.find((l) => l.msg === "free documents served")).toMatchObject({ served: { "/health": 3 } });
  });
});

describe("request line", () => {
  it("carries every field as its own JSON value, also for a path with quotes and backslashes, with the operation when one ran", async () => {
    const log = createMemoryLogger();
    const handle = createRequestHandler(
      (request) => {
        const context = contextOf(request);
        if (new URL(request.url).pathname === "/op") context.operationId = 'web.read"x';
        return new Response("{}", { status: 200 });
      },
      { log },
    );
    await handle(new Request('http://127.0.0.1/a"b\\c%22'), "127.0.0.1");
    await handle(new Request("http://127.0.0.1/op", { method: "POST", body: "{}" }), "10.0.0.7");
    const [first, second] = log.lines.filter((l) => l.msg === "request");
    expect(first).toMatchObject({ level: "info", method: "GET", status: 200, outcome: "ok", client: "127.0.0.1" });
    expect(first!.path).toBe(new URL('http://127.0.0.1/a"b\\c%22').pathname);
    expect(first!.request_id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(typeof first!.ms).toBe("number");
    expect(first!.operation).toBeUndefined();
    expect(second).toMatchObject({ method: "POST", path: "/op", operation: 'web.read"x', client: "10.0.0.7" });
  });
});
