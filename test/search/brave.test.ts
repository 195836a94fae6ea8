/**
 * web.search on the Brave Search API, through the whole service against a loopback server speaking
 * Brave's protocol: GET /res/v1/web/search?q&count (freshness, search_lang) with the key in
 * X-Subscription-Token, answering `web.results[]` of {title, url, description}.
 * @see issue 42
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { type TestService, testService } from "../support/service.ts";

const KEY = "brave-test-key";

interface BraveCall {
  readonly params: URLSearchParams;
  readonly token: string | null;
}

function startBrave(results: (query: string) => { title: string; url: string; description: string }[] | undefined) {
  const calls: BraveCall[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      if (url.pathname !== "/res/v1/web/search") return Response.json({ type: "ErrorResponse", error: { code: "NOT_FOUND" } }, { status: 404 });
      calls.push({ params: url.searchParams, token: request.headers.get("x-subscription-token") });
      if (request.headers.get("x-subscription-token") !== KEY) {
        return Response.json({ type: "ErrorResponse", error: { status: 401, code: "SUBSCRIPTION_TOKEN_INVALID", detail: "The provided subscription token is invalid." } }, { status: 401 });
      }
      const query = url.searchParams.get("q") ?? "";
      const count = Number(url.searchParams.get("count") ?? 20);
      const found = results(query);
      // Brave leaves the web section out when nothing was found.
      return Response.json({
        type: "search",
        query: { original: query, more_results_available: false },
        ...(found ? { web: { type: "search", family_friendly: true, results: found.slice(0, count).map((r) => ({ ...r, type: "search_result", language: "en", family_friendly: true })) } } : {}),
      });
    },
  });
  return { origin: `http://127.0.0.1:${server.port}`, calls, stop: () => server.stop(true) };
}

let site: SiteServer;
let brave: ReturnType<typeof startBrave>;
let service: TestService;

beforeAll(async () => {
  site = startSiteServer();
  site.set("/kingfisher", "<!doctype html><html><head><title>Kingfishers</title></head><body><main><h1>Kingfishers</h1><p>Kingfishers dive for small fish in clear streams.</p></main></body></html>");
  brave = startBrave((query) =>
    query.startsWith("kingfisher")
      ? [
          { title: "Kingfishers", url: site.url("/kingfisher"), description: "All about <strong>kingfishers</strong>." },
          { title: "Kingfishers again", url: `${site.url("/kingfisher")}#top`, description: "The same page." },
          { title: "Gone", url: site.url("/gone"), description: "A page that is not there." },
        ]
      : undefined,
  );
  service = await testService(["--unsafe-allow-loopback-targets", "--brave-api-key", KEY, "--brave-api-url", brave.origin]);
});
afterAll(async () => {
  await service.close();
  await brave.stop();
  await site.stop();
});

async function search(json: unknown) {
  const res = await service.request("/v1/web/search", { method: "POST", json });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { results?: Record<string, unknown>[] } };
}

describe("web.search on the Brave Search API", () => {
  it("sends the key, query, count, freshness and language the way Brave takes them, and ranks its web results", async () => {
    const { status, body } = await search({ query: "kingfisher", limit: 3, time_range: "week", lang: "en", site: "birds.example.org" });
    expect(status).toBe(200);
    const call = brave.calls.at(-1)!;
    expect(call.token).toBe(KEY);
    expect(Object.fromEntries(call.params)).toEqual({ q: "kingfisher site:birds.example.org", count: "3", freshness: "pw", search_lang: "en" });
    expect(body).toMatchObject({ ok: true, engine: "brave", count: 2 });
    // The same page under a fragment is one result; the snippet is plain text.
    expect(body.results).toEqual([
      { rank: 1, url: site.url("/kingfisher"), title: "Kingfishers", snippet: "All about kingfishers.", engines: ["brave"] },
      { rank: 2, url: site.url("/gone"), title: "Gone", snippet: "A page that is not there.", engines: ["brave"] },
    ]);
  });

  it("reads the results it found, the failed one as an inline error", async () => {
    const { status, body } = await search({ query: "kingfisher", read: true });
    expect(status).toBe(200);
    expect(body.reads).toEqual({ succeeded: 1, failed: 1 });
    expect(body.results![0]!.read).toMatchObject({ ok: true, title: "Kingfishers" });
    expect(body.results![1]!.read).toMatchObject({ ok: false, error: "SOURCE_ERROR_STATUS" });
  });

  it("is 404 SEARCH_NO_RESULTS when Brave has no web section", async () => {
    expect(await search({ query: "nothing here" })).toMatchObject({ status: 404, body: { error: "SEARCH_NO_RESULTS" } });
  });

  it("is 502 SEARCH_ENGINE_FAILED, naming no key, when Brave refuses the key", async () => {
    const wrong = await testService(["--brave-api-key", "not-the-key", "--brave-api-url", brave.origin]);
    try {
      const res = await wrong.request("/v1/web/search", { method: "POST", json: { query: "kingfisher" } });
      const text = await res.text();
      expect(res.status).toBe(502);
      expect(JSON.parse(text)).toMatchObject({ ok: false, error: "SEARCH_ENGINE_FAILED" });
      expect(text).not.toContain("not-the-key");
      expect(JSON.stringify(wrong.logLines)).not.toContain("not-the-key");
    } finally {
      await wrong.close();
    }
  });
});
