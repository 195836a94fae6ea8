import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { FormatRegistry } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { ApiError } from "../../src/errors.ts";
import { readBatch } from "../../src/web/batch.ts";
import { createWebEngine, type ReadInput, type WebEngineOptions } from "../../src/web/engine.ts";
import { CompactResultSchema, InlineErrorSchema, ReadResultSchema, toCompactResult } from "../../src/web/read-result.ts";
import { LEGACY_SAMPLES, type PageServer, ROBOTS_ALLOW, ROBOTS_DENY_ALL, startPageServer } from "../support/page-server.ts";
import { createRecordingConnector } from "./fetch/recording-connector.ts";

const USER_AGENT = "Tollbooth/0.1 (+https://tollbooth.example/contact)";
const never = new AbortController().signal;

let site: PageServer;
beforeAll(() => {
  site = startPageServer({ robots: ROBOTS_ALLOW });
});
afterAll(async () => {
  await site.stop();
});

function createEngine(overrides: Partial<WebEngineOptions> = {}) {
  return createWebEngine({ userAgent: USER_AGENT, allowLoopbackTargets: true, connector: createRecordingConnector().connector, ...overrides });
}

function input(path: string, extra: Partial<ReadInput> = {}): ReadInput {
  return { url: site.url(path), format: "text", maxChars: 20000, ...extra };
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

// TypeBox checks formats only when registered (the HTTP layer registers its own).
if (!FormatRegistry.Has("date-time")) FormatRegistry.Set("date-time", (value) => !Number.isNaN(Date.parse(value)));

const sha256 = (text: string) => createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");

describe("web/engine read", () => {
  it("returns a complete read result that validates against its schema", async () => {
    const result = await createEngine().read(input("/pages/article.html", { format: "markdown" }), never);
    expect(Value.Check(ReadResultSchema, result)).toBe(true);
    expect(result).toMatchObject({
      ok: true,
      source_status: 200,
      content_type: "text/html",
      title: "River Survey Results | Example News",
      description: "What the spring river survey found.",
      language: "en-GB",
      javascript_rendered: false,
      content_is_untrusted: true,
      format: "markdown",
      truncated: false,
    });
    expect(result.text).toContain("The spring survey of the river counted more fish");
    for (const chrome of ["Sport", "Accept all", "cookies", "Copyright", "Most read", "Search", "ignore me"]) {
      expect(result.text).not.toContain(chrome);
    }
    expect(result.headings).toEqual([
      { level: 1, text: "River Survey Results" },
      { level: 2, text: "What changed" },
    ]);
    expect(result.characters).toBe([...result.text].length);
  });

  it("returns hashes a client can recompute from the JSON", async () => {
    const result = await createEngine().read(input("/pages/article.html", { format: "markdown" }), never);
    const wire = JSON.parse(JSON.stringify(result)) as typeof result;
    expect(wire.text_sha256).toBe(sha256(wire.text));
    expect(wire.markdown_sha256).toBe(sha256(wire.markdown ?? ""));
    const raw = new Uint8Array(await (await fetch(site.url("/pages/article.html"))).arrayBuffer());
    expect(result.source_sha256).toBe(createHash("sha256").update(raw).digest("hex"));
  });

  it("lists links absolute, http(s) only, de-duplicated", async () => {
    const result = await createEngine().read(input("/pages/article.html"), never);
    const urls = result.links.map((l) => l.url);
    expect(urls).toContain(site.url("/reports/2024.html"));
    expect(urls).toContain(site.url("/reports/2024.html#methods"));
    expect(urls).toContain("https://example.org/rivers");
    expect(urls.filter((u) => u === site.url("/reports/2024.html"))).toHaveLength(1);
    expect(urls.every((u) => u.startsWith("http://") || u.startsWith("https://"))).toBe(true);
  });

  it("renders GFM tables in Markdown with escaped pipes", async () => {
    const result = await createEngine().read(input("/pages/article.html", { format: "markdown" }), never);
    expect(result.markdown).toContain("| Site | Fish counted |\n| --- | --- |\n| Upper weir | 412 |\n| Mill \\| bridge | 388 |");
    expect(result.markdown).toContain(`[full report](${site.url("/reports/2024.html")})`);
  });

  it("leaves out markdown fields for format text", async () => {
    const result = await createEngine().read(input("/pages/article.html"), never);
    expect(result.markdown).toBeUndefined();
    expect(result.format).toBeUndefined();
    expect(result.markdown_sha256).toBeUndefined();
  });

  it("truncates text and markdown separately, by code point, with a warning", async () => {
    const engine = createEngine();
    const full = await engine.read(input("/pages/article.html", { format: "markdown" }), never);
    const cut = await engine.read(input("/pages/article.html", { format: "markdown", maxChars: 100 }), never);
    expect(cut.truncated).toBe(true);
    expect([...cut.text].length).toBeLessThanOrEqual(100);
    expect([...(cut.markdown ?? "")].length).toBeLessThanOrEqual(100);
    expect(full.text.startsWith(cut.text)).toBe(true);
    expect(cut.warnings.some((w) => w.includes("text was truncated"))).toBe(true);
    expect(cut.warnings.some((w) => w.includes("markdown was truncated"))).toBe(true);
  });

  it("scopes to the first element matching a selector", async () => {
    const result = await createEngine().read(input("/pages/article.html", { selector: "table" }), never);
    expect(result.text).toBe("Site | Fish counted\nUpper weir | 412\nMill | bridge | 388");
    expect(result.selector).toBe("table");
    const aside = await createEngine().read(input("/pages/article.html", { selector: "main" }), never);
    expect(aside.text).not.toContain("Most read");
  });

  it("answers CONTENT_TOO_COMPLEX (422) naming a selector whose matching would not end on a deep page", async () => {
    const engine = createEngine();
    const hostile = await errorOf(engine.read(input("/deep", { selector: "nope div div div div div div" }), never));
    expect([hostile.code, hostile.status]).toEqual(["CONTENT_TOO_COMPLEX", 422]);
    expect(hostile.message).toContain('selector "nope div div div div div div"');
    const ordinary = await engine.read(input("/deep", { selector: "main div div div" }), never);
    expect(ordinary.text).toBe("text");
  });

  it("answers SELECTOR_INVALID (400) and SELECTOR_NOT_FOUND (422)", async () => {
    const engine = createEngine();
    const invalid = await errorOf(engine.read(input("/pages/article.html", { selector: "a[[" }), never));
    expect([invalid.code, invalid.status]).toEqual(["SELECTOR_INVALID", 400]);
    const missing = await errorOf(engine.read(input("/pages/article.html", { selector: "#nope" }), never));
    expect([missing.code, missing.status]).toEqual(["SELECTOR_NOT_FOUND", 422]);
  });

  it("falls back to the whole body when main content is too small, and says so", async () => {
    const result = await createEngine().read(input("/pages/short.html"), never);
    expect(result.text).toBe("Opening hours: 9 to 5.");
    expect(result.warnings.some((w) => w.includes("whole page body"))).toBe(true);
  });

  it("reads text, Markdown, CSV and JSON sources in canonical form", async () => {
    const engine = createEngine();
    const text = await engine.read(input("/pages/notes.txt"), never);
    expect(text.text).toBe("Line one with spaces\n\nLine two");
    expect(text.content_type).toBe("text/plain");
    const md = await engine.read(input("/pages/readme.md", { format: "markdown" }), never);
    expect(md.title).toBe("Release notes");
    expect(md.headings).toEqual([
      { level: 1, text: "Release notes" },
      { level: 2, text: "Fixed" },
    ]);
    expect(md.text).toContain("- Crash on start");
    expect(md.links).toEqual([{ text: "the changelog", url: site.url("/changes.md") }]);
    const csv = await engine.read(input("/pages/data.csv"), never);
    expect(csv.text).toBe("name,count\nalpha , 1\nbeta,2");
    const json = await engine.read(input("/pages/data.json"), never);
    expect(json.text.split("\n")[1]).toBe('"name": "survey",');
  });

  it("refuses a selector on a non-HTML source", async () => {
    const error = await errorOf(createEngine().read(input("/pages/data.json", { selector: "p" }), never));
    expect(error.code).toBe("SELECTOR_NOT_APPLICABLE");
  });

  it("refuses PDFs with a pointer to /v1/pdf/read, even when mislabelled", async () => {
    const engine = createEngine();
    const pdf = await errorOf(engine.read(input("/doc.pdf"), never));
    expect(pdf.code).toBe("PDF_NOT_SUPPORTED_HERE");
    expect(pdf.message).toContain("/v1/pdf/read");
    expect((await errorOf(engine.read(input("/pdf-as-html"), never))).code).toBe("PDF_NOT_SUPPORTED_HERE");
  });

  it("refuses other content types as unsupported", async () => {
    expect((await errorOf(createEngine().read(input("/image.png"), never))).code).toBe("UNSUPPORTED_CONTENT_TYPE");
  });

  it("fetches PDFs as raw bytes through fetchBytes", async () => {
    const bytes = await createEngine().fetchBytes(site.url("/doc.pdf"), { maxBytes: 5 * 1024 * 1024, signal: never });
    expect(bytes.contentType).toBe("application/pdf");
    expect(new TextDecoder().decode(bytes.bytes.subarray(0, 5))).toBe("%PDF-");
    expect(bytes.sha256).toBe(createHash("sha256").update(bytes.bytes).digest("hex"));
  });

  it("throws RENDER_UNAVAILABLE for render without a renderer, and uses a renderer when given", async () => {
    expect((await errorOf(createEngine().read(input("/pages/article.html", { render: true }), never))).code).toBe("RENDER_UNAVAILABLE");
    const engine = createEngine({
      renderer: async (url) => ({ html: "<article><p>Rendered by script, long enough to be the content.</p></article>", finalUrl: url }),
    });
    const result = await engine.read(input("/pages/article.html", { render: true }), never);
    expect(result.javascript_rendered).toBe(true);
    expect(result.text).toContain("Rendered by script");
  });
});

describe("web/engine decoding", () => {
  for (const encoding of Object.keys(LEGACY_SAMPLES)) {
    for (const via of ["header", "meta"]) {
      it(`decodes ${encoding} declared in the ${via}`, async () => {
        const result = await createEngine().read(input(`/legacy?enc=${encoding}&via=${via}`), never);
        expect(result.title).toBe(LEGACY_SAMPLES[encoding] as string);
        expect(result.text).toContain(LEGACY_SAMPLES[encoding] as string);
      });
    }
  }

  it("lets a BOM win over the header's charset", async () => {
    const result = await createEngine().read(input("/bom-utf8"), never);
    expect(result.text).toBe("Grüße aus Köln");
  });
});

describe("web/engine bot challenges", () => {
  it.each(["/challenge/cloudflare", "/challenge/cloudflare-200", "/challenge/captcha"])("refuses %s as BOT_CHALLENGE", async (path) => {
    expect((await errorOf(createEngine().read(input(path), never))).code).toBe("BOT_CHALLENGE");
  });

  it("does not mistake an article about CAPTCHAs for a challenge", async () => {
    const result = await createEngine().read(input("/pages/article-mentions-captcha.html"), never);
    expect(result.title).toBe("How CAPTCHAs work");
  });
});

describe("web/engine robots.txt", () => {
  it("refuses a disallowed URL with ROBOTS_DISALLOWED before fetching it", async () => {
    const own = startPageServer({ robots: ROBOTS_DENY_ALL });
    try {
      const error = await errorOf(createEngine().read({ url: own.url("/pages/article.html"), format: "text", maxChars: 20000 }, never));
      expect([error.code, error.status]).toEqual(["ROBOTS_DISALLOWED", 422]);
      expect(own.hits("/pages/article.html")).toBe(0);
    } finally {
      await own.stop();
    }
  });

  it("matches our product token and respects Allow/Disallow paths", async () => {
    const own = startPageServer({ robots: { kind: "text", body: "User-agent: *\nAllow: /\n\nUser-agent: Tollbooth\nDisallow: /pages/\n" } });
    try {
      const engine = createEngine();
      expect((await errorOf(engine.read({ url: own.url("/pages/article.html"), format: "text", maxChars: 20000 }, never))).code).toBe("ROBOTS_DISALLOWED");
      expect((await engine.read({ url: own.url("/pages-ok/../echo-user-agent"), format: "text", maxChars: 20000 }, never)).ok).toBe(true);
    } finally {
      await own.stop();
    }
  });

  it.each([
    [404, true],
    [403, true],
    [500, false],
    [503, false],
  ])("treats robots.txt status %i as allowed=%p (RFC 9309)", async (status, allowed) => {
    const own = startPageServer({ robots: { kind: "status", status } });
    try {
      const read = createEngine().read({ url: own.url("/pages/article.html"), format: "text", maxChars: 20000 }, never);
      if (allowed) expect((await read).ok).toBe(true);
      else expect((await errorOf(read)).code).toBe("ROBOTS_DISALLOWED");
    } finally {
      await own.stop();
    }
  });

  it("caches robots.txt per origin, and refetches after the TTL", async () => {
    const own = startPageServer({ robots: ROBOTS_ALLOW });
    try {
      const cached = createEngine();
      for (let i = 0; i < 3; i++) await cached.read({ url: own.url("/pages/article.html"), format: "text", maxChars: 20000 }, never);
      expect(own.hits("/robots.txt")).toBe(1);
      const expired = createEngine({ robotsTtlMs: 0 });
      for (let i = 0; i < 2; i++) await expired.read({ url: own.url("/pages/article.html"), format: "text", maxChars: 20000 }, never);
      expect(own.hits("/robots.txt")).toBe(3);
    } finally {
      await own.stop();
    }
  });

  it("checks robots.txt of every redirect hop's origin", async () => {
    const denied = startPageServer({ robots: ROBOTS_DENY_ALL });
    try {
      const start = site.url(`/redirect-to?url=${encodeURIComponent(denied.url("/pages/article.html"))}`);
      const error = await errorOf(createEngine().read({ url: start, format: "text", maxChars: 20000 }, never));
      expect(error.code).toBe("ROBOTS_DISALLOWED");
      expect(denied.hits("/pages/article.html")).toBe(0);
    } finally {
      await denied.stop();
    }
  });
});

describe("web/read-result compact and batch", () => {
  it("projects the compact fetch result", async () => {
    const result = await createEngine().read(input("/pages/article.html", { format: "markdown", selector: "article" }), never);
    const compact = toCompactResult(result);
    expect(Value.Check(CompactResultSchema, compact)).toBe(true);
    for (const absent of ["source_sha256", "description", "language", "headings", "links"]) expect(compact).not.toHaveProperty(absent);
    expect(compact.markdown).toBe(result.markdown as string);
    expect(compact.selector).toBe("article");
  });

  it("reads a batch in input order with inline errors", async () => {
    const urls = [site.url("/pages/article.html"), site.url("/status/500"), "ftp://example.com/", site.url("/pages/notes.txt")];
    const results = await readBatch(createEngine(), urls, { format: "text", maxChars: 20000 }, never);
    expect(results.map((r) => r.ok)).toEqual([true, false, false, true]);
    expect(results.map((r) => r.url)).toEqual(urls);
    expect(results[1]).toEqual({ ok: false, url: urls[1] as string, error: "SOURCE_ERROR_STATUS", status: 422, message: "The source answered with HTTP 500." });
    expect(Value.Check(InlineErrorSchema, results[2])).toBe(true);
    expect(results[2]).toMatchObject({ error: "URL_NOT_ALLOWED", status: 400 });
  });
});
