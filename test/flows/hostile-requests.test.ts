/**
 * Hostile and malformed requests over raw TCP against the real server (issue 15 §2, §4): each gets
 * our JSON error, never a 500, an HTML page or a server path. Bad Host headers, CONNECT and
 * HTTP/1.0 without Host are 400; deeply nested JSON is refused before anything walks it; a short
 * Host routes; a declared oversize body is our JSON 413; an upload cut off is CLIENT_CLOSED (499)
 * logged below error level; a body trickled one byte at a time gets 408 at the deadline; with
 * payments on the server refuses to start without --public-url, and without one the documents a
 * shared cache could keep are private.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type RunningService, startService } from "../../src/boot.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { runDoctor } from "../../src/doctor/doctor.ts";
import { createMemoryLogger, type Logger } from "../../src/log.ts";
import { pluginFolder } from "../support/plugin-files.ts";
import { head, jsonPost, rawRequest, type RawResponse } from "../support/raw-http.ts";

const throwingPlugin = `import { definePlugin, t } from "tollbooth";
export default definePlugin({
  id: "test.boom",
  route: "POST /v1/test/boom",
  summary: "Throws an error whose message holds a server path.",
  input: t.Object({}, { additionalProperties: false }),
  price: "0.001",
  timeoutMs: 1000,
  examples: [{ input: {} }],
  async run() { throw new Error("ENOENT: no such file " + process.cwd() + "/secret.db"); },
});
`;

let free: RunningService;
let paid: RunningService;
let freeLog: ReturnType<typeof createMemoryLogger>;
let handlerFails = false;

/** A logger that fails while `handlerFails` is set: the request handler itself then throws. */
function fragile(inner: Logger): Logger {
  const wrap = (logger: Logger): Logger => ({
    debug: (m, f) => logger.debug(m, f),
    info: (m, f) => {
      if (handlerFails && m === "request") throw new Error(`log sink failed at ${process.cwd()}/data`);
      logger.info(m, f);
    },
    warn: (m, f) => logger.warn(m, f),
    error: (m, f) => logger.error(m, f),
    child: (b) => wrap(logger.child(b)),
  });
  return wrap(inner);
}

beforeAll(async () => {
  freeLog = createMemoryLogger();
  const folder = pluginFolder({ "test-boom.ts": throwingPlugin });
  free = await startService(loadConfig({ argv: ["--data", ":memory:", "--port", "0", "--render", "off", "--plugins", folder, "--request-timeout-ms", "2000"] }), {
    log: fragile(freeLog),
  });
  paid = await startService(
    loadConfig({
      argv: ["--data", ":memory:", "--port", "0", "--host", "127.0.0.1", "--render", "off", "--payments", "on", "--public-url", "https://paid.example",
        "--pay-to-base", "0x1111111111111111111111111111111111111111", "--facilitator-url", "http://127.0.0.1:9"],
    }),
    { log: createMemoryLogger() },
  );
}, 30_000);

afterAll(async () => {
  await free?.close();
  await paid?.close();
});

function expectOurJson(res: RawResponse, status: number, code?: string): Record<string, unknown> {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toStartWith("application/json");
  expect(res.body).not.toContain("<html");
  expect(res.body).not.toContain(process.cwd());
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(body.ok).toBe(false);
  if (code) expect(body.error).toBe(code);
  return body;
}

const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

describe("bad request targets and Host headers", () => {
  for (const [name, bytes] of [
    ["Host: a b", head("GET /health HTTP/1.1", { Host: "a b", Connection: "close" })],
    ["Host: a:99999", head("GET /health HTTP/1.1", { Host: "a:99999", Connection: "close" })],
    ["Host: %", head("GET /v1/capabilities HTTP/1.1", { Host: "%", Connection: "close" })],
    ["HTTP/1.0 without Host", "GET /health HTTP/1.0\r\n\r\n"],
    ["CONNECT", head("CONNECT 127.0.0.1:1 HTTP/1.1", { Host: "127.0.0.1:1" })],
  ] as const) {
    it(`answers ${name} with JSON 400`, async () => {
      expectOurJson(await rawRequest(free.server.port, bytes), 400, "INVALID_HOST");
    });
  }

  it("answers Host: % on a paid POST with JSON 400 (payments on)", async () => {
    expectOurJson(await rawRequest(paid.server.port, jsonPost("/v1/jobs", '{"skill":"capabilities"}', { Host: "%" })), 400, "INVALID_HOST");
  });

  it("routes a request with a 1-3 character Host", async () => {
    for (const host of ["a", "ab", "app"]) {
      const health = await rawRequest(free.server.port, head("GET /health HTTP/1.1", { Host: host, Connection: "close" }));
      expect(health.status).toBe(200);
      const job = await rawRequest(free.server.port, jsonPost("/v1/jobs", '{"skill":"capabilities"}', { Host: host }));
      expect(job.status).toBe(200);
      expect((JSON.parse(job.body) as { result: { ok: boolean } }).result.ok).toBe(true);
    }
  });

  it("answers GET /v1/payments/%ff with JSON 400 (payments on)", async () => {
    expectOurJson(await rawRequest(paid.server.port, head("GET /v1/payments/%ff HTTP/1.1", { Host: "127.0.0.1", Connection: "close" })), 400, "INVALID_REQUEST");
  });
});

describe("deeply nested JSON", () => {
  const cases: [string, string, Record<string, string>][] = [
    ["/v1/jobs", `{"skill": ${deep(20_000)}}`, {}],
    ["/v1/jobs/host.report", `{"skill": ${deep(20_000)}}`, {}],
    ["/v1/jobs (Idempotency-Key)", `{"skill": "capabilities", "x": ${deep(100_000)}}`, { "Idempotency-Key": "deep-1" }],
    ["/v1/web/read", `{"urls": ${deep(20_000)}}`, {}],
  ];
  for (const [name, body, headers] of cases) {
    it(`refuses ${name} with 400 JSON_TOO_DEEP`, async () => {
      const path = name.split(" ")[0] ?? name;
      expectOurJson(await rawRequest(free.server.port, jsonPost(path, body, headers)), 400, "JSON_TOO_DEEP");
    });
  }

  it("lets 64 levels through to validation", async () => {
    const res = await rawRequest(free.server.port, jsonPost("/v1/web/read", `{"urls": ${deep(63)}}`));
    expect(JSON.parse(res.body)).toMatchObject({ error: "INVALID_REQUEST" });
  });

  it("refuses a deeply nested PAYMENT-SIGNATURE as an invalid header", async () => {
    const signature = Buffer.from(`{"x402Version":2,"payload":${deep(5_000)}}`).toString("base64");
    const res = await rawRequest(paid.server.port, jsonPost("/v1/jobs", '{"skill":"capabilities"}', { "PAYMENT-SIGNATURE": signature }));
    expectOurJson(res, 400, "PAYMENT_HEADER_INVALID");
  });
});

describe("bodies", () => {
  it("answers a declared Content-Length over the cap with our JSON 413 and closes", async () => {
    const res = await rawRequest(free.server.port, head("POST /v1/jobs HTTP/1.1", { Host: "127.0.0.1", "Content-Type": "application/json", "Content-Length": 99_999_999 }) + "{}");
    expectOurJson(res, 413, "BODY_TOO_LARGE");
    expect(res.headers.connection).toBe("close");
  });

  it("leaves a 20 KB header to Bun, which answers an empty 431 (documented: it never reaches us)", async () => {
    const res = await rawRequest(free.server.port, head("GET /health HTTP/1.1", { Host: "127.0.0.1", "X-Big": "a".repeat(20_000) }));
    expect(res.status).toBe(431);
    expect(res.body).toBe("");
  });

  it("records an upload the client cut off as CLIENT_CLOSED 499, logged below error level", async () => {
    const before = freeLog.lines.length;
    await rawRequest(free.server.port, head("POST /v1/jobs HTTP/1.1", { Host: "127.0.0.1", "Content-Type": "application/json", "Content-Length": 1000 }) + '{"skill":', {
      timeoutMs: 1_000,
      then: async (socket) => {
        await Bun.sleep(100);
        socket.destroy();
      },
    });
    const deadline = Date.now() + 3_000;
    let line: Record<string, unknown> | undefined;
    while (!line && Date.now() < deadline) {
      line = freeLog.lines.slice(before).find((l) => l.msg === "request" && l.path === "/v1/jobs");
      if (!line) await Bun.sleep(20);
    }
    expect(line).toMatchObject({ level: "info", status: 499, outcome: "CLIENT_CLOSED" });
    expect(freeLog.lines.slice(before).filter((l) => l.level === "error")).toEqual([]);
    await free.store.requestOutcomes.flush();
    expect((await free.store.requestOutcomes.recent(1))[0]).toMatchObject({ status: 499, outcome: "CLIENT_CLOSED" });
  });

  it("answers a body sent one byte at a time with 408 JSON at the deadline and closes the connection", async () => {
    const body = JSON.stringify({ skill: "capabilities", pad: "x".repeat(200) });
    let stop = false;
    const res = await rawRequest(free.server.port, head("POST /v1/jobs HTTP/1.1", { Host: "127.0.0.1", "Content-Type": "application/json", "Content-Length": body.length }), {
      timeoutMs: 10_000,
      then: async (socket) => {
        for (const byte of body) {
          if (stop || socket.destroyed) return;
          socket.write(byte);
          await Bun.sleep(50);
        }
      },
    });
    stop = true;
    expectOurJson(res, 408, "REQUEST_TIMEOUT");
    expect(res.headers.connection).toBe("close");
    expect(res.ms).toBeGreaterThan(1_900);
    expect(res.ms).toBeLessThan(5_000);
  }, 15_000);
});

describe("errors never leak pages or paths", () => {
  it("a plugin's thrown error is our JSON 500 without its message", async () => {
    const res = await rawRequest(free.server.port, jsonPost("/v1/test/boom", "{}"));
    const body = expectOurJson(res, 500, "INTERNAL_ERROR");
    expect(JSON.stringify(body)).not.toContain("secret.db");
  });

  it("a failure of the request handler itself is still our JSON, not the runtime's error page", async () => {
    handlerFails = true;
    try {
      // A request with a log line of its own (free documents are counted, not logged, by default).
      const res = await rawRequest(free.server.port, head("GET /v1/jobs/job_none HTTP/1.1", { Host: "127.0.0.1", Connection: "close" }));
      expectOurJson(res, 500, "INTERNAL_ERROR");
    } finally {
      handlerFails = false;
    }
  });
});

describe("public URLs never come from an arbitrary Host", () => {
  it("refuses to serve with payments on and no --public-url, and doctor says so", async () => {
    const config = loadConfig({ argv: ["--data", ":memory:", "--port", "0", "--payments", "on", "--pay-to-base", "0x1111111111111111111111111111111111111111", "--facilitator-url", "http://127.0.0.1:9"] });
    const error = await startService(config, { log: createMemoryLogger() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems[0]).toContain("--public-url");
    const report = await runDoctor(config);
    expect(report.results.find((r) => r.name === "public URL")).toMatchObject({ status: "fail" });
  });

  it("with payments on, documents and 402 resources name the public URL whatever Host is sent", async () => {
    for (const path of ["/llms.txt", "/.well-known/agent-card.json", "/.well-known/x402"]) {
      const doc = await rawRequest(paid.server.port, head(`GET ${path} HTTP/1.1`, { Host: "evil.example", Connection: "close" }));
      expect(doc.status).toBe(200);
      expect(doc.body).not.toContain("evil.example");
      expect(doc.body).toContain("https://paid.example");
    }
    const challenge = await rawRequest(paid.server.port, jsonPost("/v1/jobs", '{"skill":"capabilities"}', { Host: "evil.example" }));
    expect(challenge.status).toBe(402);
    expect(challenge.body).not.toContain("evil.example");
    expect(challenge.headers["payment-required"] ? Buffer.from(challenge.headers["payment-required"], "base64").toString() : "").toContain("https://paid.example/v1/jobs");
  });

  it("without a public URL (payments off), documents naming the caller's Host are not for shared caches", async () => {
    const doc = await rawRequest(free.server.port, head("GET /.well-known/agent-card.json HTTP/1.1", { Host: "evil.example", Connection: "close" }));
    expect(doc.status).toBe(200);
    expect(doc.body).toContain("http://evil.example");
    expect(doc.headers["cache-control"]).toStartWith("private");
    expect(doc.headers.vary).toBe("Host");
  });
});
