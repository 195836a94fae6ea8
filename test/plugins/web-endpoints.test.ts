/**
 * The web evidence plugin files through the whole service (in-process app, real fetcher to a
 * loopback site with the test-only loopback switch).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { priceChanges, priceRead } from "../../src/web/endpoint-schemas.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { type TestService, testService } from "../support/service.ts";

const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const pdf = (name: string) => new Uint8Array(readFileSync(join(import.meta.dir, "../fixtures/pdf", name)));

const article = (para: string, nav = "Home | About") => `<!doctype html><html lang="en"><head><title>Rates</title>
<meta name="description" content="Today's rates"></head><body>
<nav><a href="/">${nav}</a></nav>
<main><h1>Exchange rates</h1><p>${para}</p><p>The table below is updated hourly by the desk.</p>
<h2>Details</h2><p>See <a href="/details">the details page</a> and <a href="https://example.org/x">the source</a>.</p>
<table><tr><th>Pair</th><th>Rate</th></tr><tr><td>EUR/USD</td><td>1.09</td></tr></table></main>
<footer>Copyright 2026</footer></body></html>`;

let site: SiteServer;
let service: TestService;
type Body = Record<string, unknown> & { results?: Record<string, unknown>[] };

async function post(path: string, json: unknown): Promise<{ status: number; body: Body }> {
  const res = await service.request(path, { method: "POST", json });
  return { status: res.status, body: (await res.json()) as Body };
}

beforeAll(async () => {
  site = startSiteServer();
  site.set("/a", article("EUR/USD is 1.09 today."));
  site.set("/b", article("GBP/USD is 1.27 today."));
  site.set("/notes.txt", "line one\nline two\n", "text/plain");
  site.set("/doc.pdf", pdf("multi-page.pdf"), "application/pdf");
  site.set("/labels.pdf", pdf("page-labels.pdf"), "application/octet-stream");
  site.set("/fake.pdf", pdf("html.pdf"), "application/pdf");
  site.set("/locked.pdf", pdf("encrypted-user.pdf"), "application/pdf");
  site.set("/scan.pdf", pdf("no-text.pdf"), "application/pdf");
  service = await testService(["--unsafe-allow-loopback-targets"]);
});
afterAll(async () => {
  await service.close();
  await site.stop();
});

describe("web.read", () => {
  it("returns main text, headings, absolute links, metadata and recomputable hashes", async () => {
    const { status, body } = await post("/v1/web/read", { url: site.url("/a") });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, url: site.url("/a"), final_url: site.url("/a"), source_status: 200, title: "Rates", description: "Today's rates", language: "en", content_is_untrusted: true, javascript_rendered: false });
    const text = String(body.text);
    expect(text).toContain("EUR/USD is 1.09 today.");
    expect(text).not.toContain("Copyright");
    expect(text).not.toContain("Home | About");
    expect(body.text_sha256).toBe(sha(text));
    expect(body.characters).toBe([...text].length);
    expect(body.headings).toEqual([{ level: 1, text: "Exchange rates" }, { level: 2, text: "Details" }]);
    expect(body.links).toContainEqual({ text: "the details page", url: site.url("/details") });
    expect(typeof body.request_id).toBe("string");
  });

  it("reads a batch in input order with inline errors, charging every URL when one succeeded", async () => {
    const { status, body } = await post("/v1/web/read", { urls: [site.url("/missing"), site.url("/b"), site.url("/notes.txt")] });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, batch: true, count: 3, succeeded: 2, failed: 1, charged_urls: 3 });
    expect(body.results![0]).toMatchObject({ ok: false, url: site.url("/missing"), error: "SOURCE_ERROR_STATUS", status: 422 });
    expect(String(body.results![1]!.text)).toContain("GBP/USD");
    expect(body.results![2]).toMatchObject({ ok: true, content_type: "text/plain", text: "line one\nline two" });
  });

  it("fails a batch whose every URL failed, charging nothing", async () => {
    const { status, body } = await post("/v1/web/read", { urls: [site.url("/x1"), site.url("/x2")] });
    expect(status).toBe(422);
    expect(body).toMatchObject({ ok: false, error: "BATCH_FAILED", charged_urls: 0, succeeded: 0 });
    expect(body.results).toHaveLength(2);
  });

  it("takes exactly one of url or urls", async () => {
    expect((await post("/v1/web/read", { url: site.url("/a"), urls: [site.url("/b")] })).status).toBe(400);
    expect((await post("/v1/web/read", {})).status).toBe(400);
    expect((await post("/v1/web/read", { urls: [site.url("/a"), site.url("/a")] })).status).toBe(400);
  });

  it("scopes to a selector, and says SELECTOR_NOT_FOUND when nothing matches", async () => {
    const ok = await post("/v1/web/read", { url: site.url("/a"), selector: "table" });
    expect(ok.body.text).toContain("EUR/USD");
    expect(ok.body.text).not.toContain("updated hourly");
    expect(ok.body.selector).toBe("table");
    const missing = await post("/v1/web/read", { url: site.url("/a"), selector: "#nope" });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toBe("SELECTOR_NOT_FOUND");
  });

  it("adds markdown with GFM tables when asked, and by default on web/markdown", async () => {
    const md = await post("/v1/web/markdown", { url: site.url("/a") });
    expect(md.body.format).toBe("markdown");
    expect(String(md.body.markdown)).toContain("| EUR/USD | 1.09 |");
    expect(md.body.markdown_sha256).toBe(sha(String(md.body.markdown)));
    expect(typeof md.body.text).toBe("string");
    const text = await post("/v1/web/markdown", { url: site.url("/a"), format: "text" });
    expect(text.body.markdown).toBeUndefined();
  });

  it("web/fetch returns the compact result only", async () => {
    const { body } = await post("/v1/web/fetch", { url: site.url("/a") });
    for (const absent of ["source_sha256", "description", "language", "headings", "links"]) expect(body[absent]).toBeUndefined();
    expect(body).toMatchObject({ ok: true, title: "Rates", content_is_untrusted: true });
  });

  it("refuses PDFs with a pointer to /v1/pdf/read", async () => {
    const { status, body } = await post("/v1/web/read", { url: site.url("/doc.pdf") });
    expect(status).toBe(422);
    expect(body.error).toBe("PDF_NOT_SUPPORTED_HERE");
    expect(String(body.message)).toContain("/v1/pdf/read");
  });
});

describe("GET /v1/web/sample", () => {
  it("is free, fetches nothing and has the read result's shape with real hashes", async () => {
    const res = await service.request("/v1/web/sample");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ ok: true, content_is_untrusted: true });
    expect(body.text_sha256).toBe(sha(String(body.text)));
  });
});

describe("web.read without the test-only loopback switch", () => {
  it("refuses loopback targets before connecting", async () => {
    const strict = await testService([]);
    try {
      const before = site.hits("/a");
      const res = await strict.request("/v1/web/read", { method: "POST", json: { url: site.url("/a") } });
      expect([400, 422]).toContain(res.status);
      expect(site.hits("/a")).toBe(before);
    } finally {
      await strict.close();
    }
  });
});

describe("web.changes", () => {
  it("gives a first snapshot with changed null and the text to keep", async () => {
    site.set("/c", article("Version one."));
    const { body } = await post("/v1/web/changes", { url: site.url("/c") });
    expect(body.comparison).toMatchObject({ changed: null });
    expect(body.text_sha256).toBe(sha(String(body.text)));
  });

  it("reports unchanged by hash (case-insensitively) and omits the text", async () => {
    site.set("/c", article("Version one."));
    const first = await post("/v1/web/changes", { url: site.url("/c") });
    const { body } = await post("/v1/web/changes", { url: site.url("/c"), previous_sha256: String(first.body.text_sha256).toUpperCase() });
    expect(body.comparison).toMatchObject({ changed: false });
    expect(body.text).toBeUndefined();
    expect((body.comparison as Record<string, unknown>).added).toBeUndefined();
  });

  it("lists unique added and removed lines against previous_text, with a deterministic summary", async () => {
    site.set("/c", article("Version one."));
    const first = await post("/v1/web/changes", { url: site.url("/c") });
    site.set("/c", article("Version two."));
    const request = { url: site.url("/c"), previous_text: first.body.text, diff_summary: true };
    const a = await post("/v1/web/changes", request);
    const b = await post("/v1/web/changes", request);
    expect(a.body.comparison).toMatchObject({ changed: true, added: ["Version two."], removed: ["Version one."], added_lines: 1, removed_lines: 1 });
    expect(String((a.body.comparison as Record<string, unknown>).summary)).toStartWith("Changed: 1 line(s) added, 1 removed");
    expect((a.body.comparison as Record<string, unknown>).summary).toBe((b.body.comparison as Record<string, unknown>).summary);
  });

  it("sees no change when only the markup around the text changed", async () => {
    site.set("/c", article("Version one."));
    const first = await post("/v1/web/changes", { url: site.url("/c") });
    site.set("/c", article("Version one.", "Start | Team | Jobs").replace("<p>The table", '<p class="new" data-x="1">The table'));
    const { body } = await post("/v1/web/changes", { url: site.url("/c"), previous_text: first.body.text });
    expect(body.comparison).toMatchObject({ changed: false, added: [], removed: [] });
  });

  it("refuses a baseline whose text and hash disagree with BASELINE_MISMATCH, before fetching", async () => {
    const before = site.hits("/c");
    const { status, body } = await post("/v1/web/changes", { url: site.url("/c"), previous_text: "a", previous_sha256: sha("b") });
    expect(status).toBe(400);
    expect(body.error).toBe("BASELINE_MISMATCH");
    expect(site.hits("/c")).toBe(before);
  });

  it("checks items in input order with inline errors and never renders", async () => {
    site.set("/c", article("Version one."));
    const { body } = await post("/v1/web/changes", { items: [site.url("/missing"), { url: site.url("/c"), previous_sha256: sha("old") }] });
    expect(body).toMatchObject({ batch: true, count: 2, succeeded: 1, failed: 1, charged_urls: 2 });
    expect(body.results![0]).toMatchObject({ ok: false, error: "SOURCE_ERROR_STATUS" });
    expect(body.results![1]!.comparison).toMatchObject({ changed: true });
    const render = await post("/v1/web/changes", { url: site.url("/c"), render: true });
    expect(render.status).toBe(400);
  });
});

describe("pdf.read", () => {
  it("extracts page-numbered text with hashes", async () => {
    const { status, body } = await post("/v1/pdf/read", { url: site.url("/doc.pdf") });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, url: site.url("/doc.pdf"), ocr_performed: false, truncated: false });
    expect(Number(body.page_count)).toBeGreaterThan(1);
    const pages = body.pages as { page: number; text: string }[];
    expect(pages.map((p) => p.page)).toEqual(pages.map((_, i) => i + 1));
    expect(body.text_sha256).toBe(sha(String(body.text)));
    expect(typeof body.extraction_ms).toBe("number");
  });

  it("returns page labels beside physical numbers, whatever the Content-Type", async () => {
    const { body } = await post("/v1/pdf/read", { url: site.url("/labels.pdf") });
    expect((body.pages as { label?: string }[]).some((p) => typeof p.label === "string")).toBe(true);
  });

  it.each([
    ["/fake.pdf", "NOT_A_PDF"],
    ["/locked.pdf", "PDF_ENCRYPTED"],
    ["/scan.pdf", "PDF_NO_TEXT"],
  ])("fails %s with %s", async (path, code) => {
    const { status, body } = await post("/v1/pdf/read", { url: site.url(path) });
    expect(status).toBe(422);
    expect(body.error).toBe(code);
  });
});

describe("prices (spec §4.4)", () => {
  it("charges per URL: single, batch, render", () => {
    expect(priceRead({ url: "u" })).toEqual({ base: "0.005", algorand: "0.01" });
    expect(priceRead({ urls: ["a", "b", "c"] })).toEqual({ base: "0.009", algorand: "0.018" });
    expect(priceRead({ urls: Array(10).fill("u") })).toEqual({ base: "0.03", algorand: "0.06" });
    expect(priceRead({ url: "u", render: true })).toEqual({ base: "0.01", algorand: "0.02" });
    expect(priceRead({ urls: ["a", "b"], render: true })).toEqual({ base: "0.02", algorand: "0.04" });
    expect(priceChanges({ items: ["a", "b"] })).toEqual({ base: "0.006", algorand: "0.012" });
  });
});
