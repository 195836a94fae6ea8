/**
 * web.search through the whole service (in-process app, payments off) against a real searx whose two
 * engines ask a loopback source of ours, reading results from a loopback site: searx's merging and
 * de-duplication, reads signed like web/read, hostile result URLs refused before any fetch, engine
 * failures as 502/504, bad input as 400, and no offer anywhere without an engine.
 * @see issue 42
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { a2aSkillsOf } from "../../src/a2a/skills.ts";
import { buildCatalogue } from "../../src/plugin/catalogue.ts";
import { runDoctor } from "../../src/doctor/doctor.ts";
import { compileTools } from "../../src/mcp/tools.ts";
import { loadConfig } from "../../src/config.ts";
import { priceSearch } from "../../src/search/search-schemas.ts";
import { type Searx, startSearx } from "../support/searx.ts";
import { skipWithout } from "../support/requirements.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { type TestService, testService } from "../support/service.ts";

const missing = skipWithout("searx", "web.search on a real searx") ? "searx" : undefined;

type Body = Record<string, unknown> & { results?: (Record<string, unknown> & { read?: Record<string, unknown> })[] };

const page = (title: string, para: string) => `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${para}</p><p>It is long enough to be the main text of the page.</p></main></body></html>`;

async function post(service: TestService, json: unknown): Promise<{ status: number; body: Body }> {
  const res = await service.request("/v1/web/search", { method: "POST", json });
  return { status: res.status, body: (await res.json()) as Body };
}

/** A loopback server answering every request with `answer` (a searx instance gone wrong). */
function brokenEngine(answer: (request: Request) => Response | Promise<Response>) {
  return Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: answer });
}

describe.skipIf(missing !== undefined)("web.search on a real searx", () => {
  let searx: Searx;
  let site: SiteServer;
  let service: TestService;

  beforeAll(async () => {
    searx = await startSearx();
    site = startSiteServer();
    site.set("/one", page("First page", "The first page speaks of otters."));
    site.set("/two", page("Second page", "The second page speaks of beavers."));
    site.set("/three", page("Third page", "The third page speaks of herons."));
    site.set("/robots.txt", "User-agent: *\nDisallow: /private\n", "text/plain");
    site.set("/private", page("Private", "Kept to itself."));
    service = await testService(["--unsafe-allow-loopback-targets", "--search-url", searx.url]);
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await site?.stop();
    await searx?.stop();
  });

  it("returns searx's merged, de-duplicated results ranked, each with the engines that found it", async () => {
    searx.answer("otters", {
      alpha: [
        { url: site.url("/one"), title: "First page", content: "otters" },
        { url: site.url("/two"), title: "Second page", content: "beavers" },
      ],
      beta: [
        { url: site.url("/one"), title: "First page", content: "otters again" },
        { url: site.url("/three"), title: "Third page", content: "herons" },
      ],
    });
    const { status, body } = await post(service, { query: "otters", limit: 5 });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, query: "otters", engine: "searx", count: 3, content_is_untrusted: true });
    const results = body.results!;
    expect(results.map((r) => r.rank)).toEqual([1, 2, 3]);
    // Found by both engines: searx merged it into one result at the top.
    expect(results[0]).toMatchObject({ url: site.url("/one"), title: "First page" });
    expect([...(results[0]!.engines as string[])].sort()).toEqual(["alpha", "beta"]);
    expect(results.map((r) => r.url).sort()).toEqual([site.url("/one"), site.url("/three"), site.url("/two")]);
    expect(results.every((r) => r.read === undefined)).toBe(true);
    expect(body.reads).toBeUndefined();
    expect(searx.asked.alpha.at(-1)).toBe("otters");
    expect(searx.asked.beta.at(-1)).toBe("otters");
  });

  it("keeps to limit, and asks the engines for the site", async () => {
    searx.answer("many", {
      alpha: [1, 2, 3, 4].map((n) => ({ url: site.url(`/p${n}`), title: `P${n}`, content: "" })),
      beta: [],
    });
    const { status, body } = await post(service, { query: "many", limit: 2, site: "docs.example.org" });
    expect(status).toBe(200);
    expect(body.count).toBe(2);
    expect(body.results!.map((r) => r.url)).toEqual([site.url("/p1"), site.url("/p2")]);
    expect(searx.asked.alpha.at(-1)).toBe("many site:docs.example.org");
  });

  it("with read, carries each result's read, signed like web/read, or an inline error (robots.txt)", async () => {
    searx.answer("herons", {
      alpha: [
        { url: site.url("/three"), title: "Third page", content: "herons" },
        { url: site.url("/private"), title: "Private", content: "kept" },
      ],
      beta: [{ url: site.url("/two"), title: "Second page", content: "beavers" }],
    });
    const { status, body } = await post(service, { query: "herons", read: { format: "markdown", max_chars: 1000 } });
    expect(status).toBe(200);
    expect(body.reads).toEqual({ succeeded: 2, failed: 1 });
    const byUrl = new Map(body.results!.map((r) => [r.url, r.read!]));
    expect(byUrl.get(site.url("/three"))).toMatchObject({ ok: true, url: site.url("/three"), title: "Third page", format: "markdown", content_is_untrusted: true });
    expect(String(byUrl.get(site.url("/three"))!.markdown)).toContain("herons");
    expect(byUrl.get(site.url("/private"))).toMatchObject({ ok: false, url: site.url("/private"), error: "ROBOTS_DISALLOWED", status: 422 });
    expect(site.hits("/private")).toBe(0);
    for (const url of [site.url("/three"), site.url("/two")]) {
      const read = byUrl.get(url)!;
      const attestation = read.attestation as { jws?: unknown; kid?: unknown } | undefined;
      expect([typeof attestation?.jws, typeof attestation?.kid]).toEqual(["string", "string"]);
      const verified = await service.request("/v1/evidence/verify", { method: "POST", json: read });
      expect(await verified.json()).toMatchObject({ ok: true, valid: true });
    }
  });

  it("refuses hostile result URLs inline before any fetch: link-local, private, non-http schemes never reach a reader", async () => {
    searx.answer("hostile", {
      alpha: [
        { url: "http://169.254.169.254/latest/meta-data/", title: "metadata", content: "" },
        { url: "http://10.0.0.1/admin", title: "private", content: "" },
      ],
      beta: [
        { url: "javascript:alert(1)", title: "script", content: "" },
        { url: site.url("/one"), title: "First page", content: "" },
      ],
    });
    const { status, body } = await post(service, { query: "hostile", read: true });
    expect(status).toBe(200);
    const byUrl = new Map(body.results!.map((r) => [r.url, r.read!]));
    // A URL that is not http(s) is no result at all.
    expect([...byUrl.keys()]).not.toContain("javascript:alert(1)");
    expect(byUrl.get("http://169.254.169.254/latest/meta-data/")).toMatchObject({ ok: false, error: "TARGET_NOT_PUBLIC" });
    expect(byUrl.get("http://10.0.0.1/admin")).toMatchObject({ ok: false, error: "TARGET_NOT_PUBLIC" });
    expect(byUrl.get(site.url("/one"))).toMatchObject({ ok: true });
  });

  it("refuses a loopback result URL on a server without the test-only loopback switch, and does not fetch it", async () => {
    const guarded = await testService(["--search-url", searx.url]);
    try {
      searx.answer("loopback", { alpha: [{ url: site.url("/one"), title: "First page", content: "" }], beta: [] });
      const before = site.hits("/one");
      const { status, body } = await post(guarded, { query: "loopback", read: true });
      // Its only read failed: an inline error (the search alone is charged), and the page is never fetched.
      expect(status).toBe(200);
      expect(body.reads).toEqual({ succeeded: 0, failed: 1 });
      expect(body.results![0]!.read).toMatchObject({ ok: false, error: "URL_NOT_ALLOWED" });
      expect(site.hits("/one")).toBe(before);
    } finally {
      await guarded.close();
    }
  });

  it("is not charged when it finds nothing, nor when searx's engines fail: 404 SEARCH_NO_RESULTS", async () => {
    expect(await post(service, { query: "unheard-of" })).toMatchObject({ status: 404, body: { ok: false, error: "SEARCH_NO_RESULTS" } });
    searx.answer("broken", { alpha: 500, beta: 503 });
    expect(await post(service, { query: "broken" })).toMatchObject({ status: 404, body: { ok: false, error: "SEARCH_NO_RESULTS" } });
  });

  it("refuses bad input with 400 before asking the engine: a 20 KB query, limits out of range, unknown fields", async () => {
    const asked = searx.asked.alpha.length;
    for (const body of [{ query: "x".repeat(20_000) }, { query: "ok", limit: 0 }, { query: "ok", limit: 21 }, { query: "ok", limit: 2.5 }, { query: "" }, { query: "   " }, { query: "ok", time_range: "decade" }, { query: "ok", site: "http://evil/" }, { query: "ok", lang: "x".repeat(20_000) }, { query: "ok", extra: 1 }, { query: "ok", read: { format: "pdf" } }, { query: "ok", read: { max_chars: 0 } }]) {
      const { status, body: answer } = await post(service, body);
      // One stable code for every malformed body (the message names the field).
      expect({ body: JSON.stringify(body).slice(0, 60), status, error: answer.error }).toEqual({ body: JSON.stringify(body).slice(0, 60), status: 400, error: "INVALID_REQUEST" });
    }
    expect(searx.asked.alpha.length).toBe(asked);
  });

  it("is offered in the catalogue, OpenAPI and the agent card, priced per the search and each result it may read", async () => {
    const openapi = (await (await service.request("/openapi.json")).json()) as { paths: Record<string, unknown> };
    expect(openapi.paths["/v1/web/search"]).toBeDefined();
    const capabilities = JSON.stringify(await (await service.request("/v1/capabilities")).json());
    expect(capabilities).toContain("web.search");
    expect(JSON.stringify(await (await service.request("/.well-known/agent-card.json")).json())).toContain("web.search");
    expect(priceSearch({ query: "q" })).toEqual({ base: "0.005", algorand: "0.01" });
    expect(priceSearch({ query: "q", limit: 3, read: true })).toEqual({ base: "0.014", algorand: "0.028" });
    expect(priceSearch({ query: "q", limit: 2, read: { render: true } })).toEqual({ base: "0.025", algorand: "0.05" });
  });
});

/** A JSON answer that never ends (bounded at 64 MiB server side so a missing cap fails instead of hanging). */
function endlessJson(): ReadableStream<Uint8Array> {
  const chunk = new TextEncoder().encode(`{"results":[${'{"url":"https://example.org/","title":"x","content":"y"},'.repeat(1000)}`);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent > 64 * 1024 * 1024) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
}

describe("web.search's searx client", () => {
  it("asks the instance's JSON API with the query, site, language and time range as searx names them", async () => {
    const asked: URL[] = [];
    const engine = brokenEngine((request) => {
      asked.push(new URL(request.url));
      return Response.json({ query: "q", results: [{ url: "https://example.org/a", title: "A", content: "a", engine: "wikipedia" }] });
    });
    const service = await testService(["--search-url", `http://127.0.0.1:${engine.port}/`]);
    try {
      const { status, body } = await post(service, { query: "tide tables", site: "example.org", lang: "de", time_range: "month" });
      expect(status).toBe(200);
      expect(body.results).toEqual([{ rank: 1, url: "https://example.org/a", title: "A", snippet: "a", engines: ["wikipedia"] }]);
      expect(asked[0]!.pathname).toBe("/search");
      expect(Object.fromEntries(asked[0]!.searchParams)).toEqual({ q: "tide tables site:example.org", format: "json", language: "de", time_range: "month" });
    } finally {
      await service.close();
      await engine.stop(true);
    }
  });
});

describe("web.search engine failures", () => {
  const cases: [string, (request: Request) => Response | Promise<Response>, number, string][] = [
    ["answers 5xx", () => new Response("upstream down", { status: 502 }), 502, "SEARCH_ENGINE_FAILED"],
    ["answers garbage", () => new Response("<html>not json</html>", { headers: { "content-type": "text/html" } }), 502, "SEARCH_ENGINE_FAILED"],
    ["answers JSON of another shape", () => Response.json({ answers: [] }), 502, "SEARCH_ENGINE_FAILED"],
    ["streams an endless answer (no Content-Length)", () => new Response(endlessJson(), { headers: { "content-type": "application/json" } }), 502, "SEARCH_ENGINE_FAILED"],
    ["never answers", (request) => new Promise((resolve) => request.signal.addEventListener("abort", () => resolve(new Response("late")))), 504, "SEARCH_ENGINE_TIMEOUT"],
  ];
  it.each(cases)("an engine that %s is a 502/504 with its code, never a 500", async (_name, answer, status, code) => {
    const engine = brokenEngine(answer);
    const service = await testService(["--search-url", `http://127.0.0.1:${engine.port}`, "--search-timeout-ms", "800"]);
    try {
      const { status: got, body } = await post(service, { query: "anything" });
      expect(got).toBe(status);
      expect(body).toMatchObject({ ok: false, error: code, status });
      expect(JSON.stringify(body)).not.toContain("stack");
    } finally {
      await service.close();
      await engine.stop(true);
    }
  });
});

describe("web.search with no engine configured", () => {
  it("is offered nowhere: no route, MCP tool, A2A skill, OpenAPI path, capability or card entry; doctor says how to turn it on", async () => {
    const service = await testService([]);
    try {
      expect(service.registry.plugins.map((p) => p.id)).not.toContain("web.search");
      expect(service.registry.withheld).toEqual([{ id: "web.search", missing: ["search"] }]);
      expect((await post(service, { query: "q" })).status).toBe(404);
      const openapi = (await (await service.request("/openapi.json")).json()) as { paths: Record<string, unknown> };
      expect(openapi.paths["/v1/web/search"]).toBeUndefined();
      expect(openapi.paths["/v1/web/read"]).toBeDefined();
      const tools = compileTools(service.registry, buildCatalogue(service.registry), false);
      expect([...tools.byName.keys()]).not.toContain("web_search");
      expect([...tools.byName.keys()]).toContain("web_read");
      expect([...a2aSkillsOf(service.registry).keys()]).not.toContain("web.search");
      for (const doc of ["/v1/capabilities", "/.well-known/agent-card.json", "/llms.txt"]) {
        expect(await (await service.request(doc)).text()).not.toContain("web.search");
      }
    } finally {
      await service.close();
    }
    const off = await runDoctor(loadConfig({ argv: ["--data", ":memory:"] }));
    expect(off.lines.find((l) => l.includes("web search"))).toContain("--search-url");
    const on = await runDoctor(loadConfig({ argv: ["--data", ":memory:", "--search-url", "http://127.0.0.1:9"] }));
    expect(on.lines.find((l) => l.includes("web search"))).toContain("searx at http://127.0.0.1:9");
  });
});
