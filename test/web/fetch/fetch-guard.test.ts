import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ApiError } from "../../../src/errors.ts";
import { createWebEngine, type ReadInput, type WebEngineOptions } from "../../../src/web/engine.ts";
import { createStaticResolver } from "../../../src/web/fetch/resolver.ts";
import { FIXTURES, type PageServer, ROBOTS_ALLOW, startPageServer } from "../../support/page-server.ts";
import { createRecordingConnector } from "./recording-connector.ts";

const USER_AGENT = "Tollbooth/0.1 (+https://tollbooth.example/contact)";
const never = new AbortController().signal;

let site: PageServer;
beforeAll(() => {
  site = startPageServer({ robots: ROBOTS_ALLOW });
});
afterAll(async () => {
  await site.stop();
});

const resolver = createStaticResolver({
  "site.test": ["127.0.0.1"],
  "internal.test": ["10.0.0.1"],
  "metadata.test": ["169.254.169.254"],
  "cgnat.test": ["100.64.0.1"],
  "mapped.test": ["::ffff:127.0.0.1"],
  "public.test": ["93.184.216.34"],
});

function setup(overrides: Partial<WebEngineOptions> = {}) {
  const recording = createRecordingConnector();
  const engine = createWebEngine({
    userAgent: USER_AGENT,
    allowLoopbackTargets: true,
    resolver,
    connector: recording.connector,
    ...overrides,
  });
  return { engine, attempts: recording.attempts };
}

function input(url: string, extra: Partial<ReadInput> = {}): ReadInput {
  return { url, format: "text", maxChars: 20000, ...extra };
}

async function errorOf(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected an ApiError");
}

describe("web/fetch-guard refused targets", () => {
  it.each(["internal.test", "metadata.test", "cgnat.test", "mapped.test"])("refuses %s before any connection", async (host) => {
    const { engine, attempts } = setup();
    const error = await errorOf(engine.read(input(`http://${host}/`), never));
    expect(error.code).toBe("TARGET_NOT_PUBLIC");
    expect(attempts).toEqual([]);
  });

  it.each(["http://2130706433:1/", "http://0x7f.1/", "http://017700000001/"])("refuses the numeric spelling %s before any connection", async (url) => {
    const { engine, attempts } = setup();
    expect((await errorOf(engine.read(input(url), never))).code).toBe("URL_NOT_ALLOWED");
    expect(attempts).toEqual([]);
  });

  it("refuses loopback when the test switch is off, before any connection", async () => {
    const { engine, attempts } = setup({ allowLoopbackTargets: false });
    expect((await errorOf(engine.read(input(site.url("/pages/article.html")), never))).code).toBe("URL_NOT_ALLOWED");
    expect((await errorOf(engine.read(input("http://site.test/pages/article.html"), never))).code).toBe("TARGET_NOT_PUBLIC");
    expect(attempts).toEqual([]);
  });

  it("refuses a public host on a non-standard port even with the test switch on", async () => {
    const { engine, attempts } = setup();
    expect((await errorOf(engine.read(input("http://public.test:8080/"), never))).code).toBe("URL_NOT_ALLOWED");
    expect(attempts).toEqual([]);
  });

  it("refuses userinfo and over-long URLs before any connection", async () => {
    const { engine, attempts } = setup();
    expect((await errorOf(engine.read(input(`http://u:p@127.0.0.1:${site.port}/`), never))).code).toBe("URL_NOT_ALLOWED");
    expect((await errorOf(engine.read(input(site.url(`/${"a".repeat(2050)}`)), never))).code).toBe("URL_NOT_ALLOWED");
    expect(attempts).toEqual([]);
  });

  it("connects to the vetted address (the name is never resolved again)", async () => {
    const { engine, attempts } = setup();
    const result = await engine.read(input(`http://site.test:${site.port}/pages/article.html`), never);
    expect(result.ok).toBe(true);
    expect(attempts.every((a) => a.startsWith(`127.0.0.1:${site.port} http://site.test:${site.port}/`))).toBe(true);
    expect(site.lastHeaders("/pages/article.html")?.get("host")).toBe(`site.test:${site.port}`);
  });
});

describe("web/fetch-guard redirects", () => {
  it("follows up to 4 redirects", async () => {
    const { engine } = setup();
    const result = await engine.read(input(site.url("/redirect/4")), never);
    expect(result.final_url).toBe(site.url("/pages/article.html"));
    expect(result.url).toBe(site.url("/redirect/4"));
  });

  it("refuses a fifth redirect without following it", async () => {
    const { engine } = setup();
    const before = site.hits("/pages/article.html");
    const error = await errorOf(engine.read(input(site.url("/redirect/5")), never));
    expect(error.code).toBe("TOO_MANY_REDIRECTS");
    expect(site.hits("/pages/article.html")).toBe(before);
  });

  it("re-vets every hop: a redirect to a name resolving to 10.x is refused before connecting", async () => {
    const { engine, attempts } = setup();
    const start = site.url(`/redirect-to?url=${encodeURIComponent("http://internal.test/secret")}`);
    const error = await errorOf(engine.read(input(start), never));
    expect(error.code).toBe("TARGET_NOT_PUBLIC");
    expect(attempts.filter((a) => !a.startsWith("127.0.0.1:"))).toEqual([]);
    expect(attempts.some((a) => a.includes("/redirect-to"))).toBe(true);
    expect(attempts.some((a) => a.includes("//internal.test"))).toBe(false);
  });

  it("re-vets the scheme and port of every hop", async () => {
    const { engine } = setup();
    const toFile = site.url(`/redirect-to?url=${encodeURIComponent("file:///etc/passwd")}`);
    expect((await errorOf(engine.read(input(toFile), never))).code).toBe("URL_NOT_ALLOWED");
    const toPort = site.url(`/redirect-to?url=${encodeURIComponent("http://public.test:8443/")}`);
    expect((await errorOf(engine.read(input(toPort), never))).code).toBe("URL_NOT_ALLOWED");
  });
});

describe("web/fetch-guard size cap", () => {
  it("stops an endless gzip bomb at the cap", async () => {
    const { engine } = setup({ totalTimeoutMs: 60_000 });
    const error = await errorOf(engine.read(input(site.url("/gzip-bomb")), never));
    expect(error.code).toBe("SOURCE_TOO_LARGE");
  });

  it("stops a small bomb whose length is announced (read in one piece) at the cap", async () => {
    const { engine } = setup({ totalTimeoutMs: 60_000 });
    const error = await errorOf(engine.read(input(site.url("/gzip-bomb-sized")), never));
    expect(error.code).toBe("SOURCE_TOO_LARGE");
  });

  it("stops an endless plain body at the cap", async () => {
    const { engine } = setup({ totalTimeoutMs: 60_000 });
    expect((await errorOf(engine.read(input(site.url("/endless")), never))).code).toBe("SOURCE_TOO_LARGE");
  });

  it("accepts exactly 1 MiB and refuses one byte more", async () => {
    const { engine } = setup();
    const ok = await engine.read(input(site.url(`/sized?bytes=${1024 * 1024}`)), never);
    expect(ok.ok).toBe(true);
    expect((await errorOf(engine.read(input(site.url(`/sized?bytes=${1024 * 1024 + 1}`)), never))).code).toBe("SOURCE_TOO_LARGE");
  });

  it("decompresses gzip pages", async () => {
    const { engine } = setup();
    const result = await engine.read(input(site.url("/gzip-page")), never);
    expect(result.title).toBe("River Survey Results | Example News");
  });

  it("uses the caller's code for an oversize raw download", async () => {
    const { engine } = setup();
    const error = await errorOf(engine.fetchBytes(site.url("/endless"), { maxBytes: 5 * 1024 * 1024, signal: never }));
    expect(error.code).toBe("PDF_TOO_LARGE");
    const custom = await errorOf(engine.fetchBytes(site.url("/endless"), { maxBytes: 1000, tooLargeCode: "SOURCE_TOO_LARGE", signal: never }));
    expect(custom.code).toBe("SOURCE_TOO_LARGE");
  });
});

describe("web/fetch-guard timeouts and failures", () => {
  it("answers 504 when the source sends no headers in time", async () => {
    const { engine } = setup({ totalTimeoutMs: 300 });
    const error = await errorOf(engine.read(input(site.url("/slow-headers")), never));
    expect(error.code).toBe("SOURCE_TIMEOUT");
    expect(error.status).toBe(504);
  });

  it("answers 504 when the headers are later than the headers limit, long before the total limit", async () => {
    const { engine } = setup({ headersTimeoutMs: 300, totalTimeoutMs: 60_000 });
    const error = await errorOf(engine.read(input(site.url("/slow-headers")), never));
    expect(error.code).toBe("SOURCE_TIMEOUT");
  });

  it("connects to the vetted address even when the environment names a proxy", async () => {
    let proxied = 0;
    const proxy = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => {
        proxied++;
        return new Response("<p>the proxy's page</p>", { headers: { "content-type": "text/html" } });
      },
    });
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy };
    process.env.HTTP_PROXY = process.env.http_proxy = `http://127.0.0.1:${proxy.port}`;
    try {
      const { engine } = setup();
      const result = await engine.read(input(site.url("/pages/article.html")), never);
      expect(result.text).toContain("River Survey Results");
      expect(proxied).toBe(0);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      await proxy.stop(true);
    }
  });

  it("answers 504 when the body stalls", async () => {
    const { engine } = setup({ totalTimeoutMs: 300 });
    expect((await errorOf(engine.read(input(site.url("/slow-body")), never))).code).toBe("SOURCE_TIMEOUT");
  });

  it("answers 504 when a body of announced length stalls (read in one piece)", async () => {
    // Bun.serve would send a stream chunked: a raw socket announces a length it never reaches.
    let pageSocketsClosed = 0;
    const stalling = Bun.listen<{ page?: boolean }>({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data(socket, request) {
          if (request.toString().startsWith("GET /robots.txt ")) {
            socket.end("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
          } else {
            socket.data = { page: true };
            socket.write("HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 4096\r\n\r\n<html><body><p>first bytes");
          }
        },
        close(socket) {
          if (socket.data?.page) pageSocketsClosed++;
        },
      },
    });
    try {
      const { engine } = setup({ totalTimeoutMs: 300 });
      expect((await errorOf(engine.read(input(`http://127.0.0.1:${stalling.port}/`), never))).code).toBe("SOURCE_TIMEOUT");
      // The connection is given up, not left waiting for the rest of the body.
      for (let waited = 0; pageSocketsClosed === 0 && waited < 2_000; waited += 20) await Bun.sleep(20);
      expect(pageSocketsClosed).toBe(1);
    } finally {
      stalling.stop(true);
    }
  });

  it("answers 502 when nothing listens", async () => {
    const closed = startPageServer();
    const url = closed.url("/pages/article.html");
    await closed.stop();
    const { engine } = setup();
    const error = await errorOf(engine.read(input(url), never));
    expect(error.code).toBe("SOURCE_UNREACHABLE");
    expect(error.status).toBe(502);
  });

  it("answers 422 with source_status for a non-2xx source", async () => {
    const { engine } = setup();
    const error = await errorOf(engine.read(input(site.url("/status/404")), never));
    expect(error.code).toBe("SOURCE_ERROR_STATUS");
    expect(error.status).toBe(422);
    expect(error.details?.source_status).toBe(404);
    expect((await errorOf(engine.read(input(site.url("/status/503")), never))).details?.source_status).toBe(503);
  });

  it("sends our User-Agent", async () => {
    const { engine } = setup();
    const result = await engine.read(input(site.url("/echo-user-agent")), never);
    expect(result.text).toBe(USER_AGENT);
  });
});

describe("web/fetch-guard TLS", () => {
  const pem = (name: string) => readFileSync(join(FIXTURES, "tls", name), "utf8");
  let tlsSite: PageServer;
  beforeAll(() => {
    tlsSite = startPageServer({
      tls: [
        { serverName: "tls.test", cert: pem("tls.test.crt"), key: pem("tls.test.key") },
        { serverName: "other.test", cert: pem("other.test.crt"), key: pem("other.test.key") },
      ],
    });
  });
  afterAll(async () => {
    await tlsSite.stop();
  });
  const tlsResolver = createStaticResolver({ "tls.test": ["127.0.0.1"], "other.test": ["127.0.0.1"], "wrong.test": ["127.0.0.1"] });

  it("verifies the certificate for the host name and sends SNI while connecting to the vetted address", async () => {
    const recording = createRecordingConnector({ ca: [pem("tls.test.crt"), pem("other.test.crt")] });
    const engine = createWebEngine({ userAgent: USER_AGENT, allowLoopbackTargets: true, resolver: tlsResolver, connector: recording.connector });
    const a = await engine.read(input(`https://tls.test:${tlsSite.port}/pages/article.html`), never);
    expect(a.ok).toBe(true);
    // other.test gets its own certificate only if SNI named it; verification would fail otherwise.
    const b = await engine.read(input(`https://other.test:${tlsSite.port}/pages/article.html`), never);
    expect(b.ok).toBe(true);
    expect(recording.attempts.every((attempt) => attempt.startsWith(`127.0.0.1:${tlsSite.port} `))).toBe(true);
  });

  it("refuses a certificate that does not name the host (502)", async () => {
    const recording = createRecordingConnector({ ca: [pem("tls.test.crt"), pem("other.test.crt")] });
    const engine = createWebEngine({ userAgent: USER_AGENT, allowLoopbackTargets: true, resolver: tlsResolver, connector: recording.connector });
    const error = await errorOf(engine.read(input(`https://wrong.test:${tlsSite.port}/pages/article.html`), never));
    expect(error.code).toBe("SOURCE_UNREACHABLE");
  });

  it("refuses an untrusted certificate (502)", async () => {
    const recording = createRecordingConnector();
    const engine = createWebEngine({ userAgent: USER_AGENT, allowLoopbackTargets: true, resolver: tlsResolver, connector: recording.connector });
    expect((await errorOf(engine.read(input(`https://tls.test:${tlsSite.port}/pages/article.html`), never))).code).toBe("SOURCE_UNREACHABLE");
  });
});
