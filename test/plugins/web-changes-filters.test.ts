/**
 * web/changes' filters through the whole service (issue 32, "Change checks without noise"): ignore_selectors,
 * ignore_patterns, trigger_patterns and compare, their counts, the baseline hash after filters, the pattern
 * limits and the 400s that come before any price.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { type TestService, testService } from "../support/service.ts";

const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

/** A product page with noise: a stamp, a visitor counter, an ad box, and a price that matters. */
const product = (o: { price?: string; minutes?: number; visitors?: number; ad?: string; stock?: string } = {}) => `<!doctype html>
<html lang="en"><head><title>Blue kettle</title></head><body><nav><a href="/">Home</a></nav>
<main><h1>Blue kettle</h1>
<p>A kettle that boils a litre in three minutes, with a steel body, a blue handle and a filter for hard water.</p>
<p>Price: ${o.price ?? "30 EUR"}</p>
<p>${o.stock ?? "In stock"}</p>
<p>Updated ${o.minutes ?? 5} minutes ago</p>
<p>${o.visitors ?? 1204} visitors today</p>
<div class="ad"><p>${o.ad ?? "Summer sale on toasters"}</p><p>Free delivery this week</p></div>
<p>Ships in two days from our warehouse; returns are free for thirty days after delivery.</p>
</main><footer>Copyright 2026</footer></body></html>`;

const noise = { ignore_selectors: [".ad"], ignore_patterns: ["^Updated \\d+ minutes ago$", "^[0-9,]+ visitors today$"] };

let site: SiteServer;
let service: TestService;
type Body = Record<string, unknown> & { comparison?: Record<string, unknown>; results?: Record<string, unknown>[] };

async function post(json: unknown, on: TestService = service): Promise<{ status: number; body: Body; headers: Headers }> {
  const res = await on.request("/v1/web/changes", { method: "POST", json });
  return { status: res.status, body: (await res.json()) as Body, headers: res.headers };
}

beforeAll(async () => {
  site = startSiteServer();
  service = await testService(["--unsafe-allow-loopback-targets"]);
});
afterAll(async () => {
  await service.close();
  await site.stop();
});

describe("web.changes filters", () => {
  it("ignore_selectors and ignore_patterns: noise changes are unchanged, and the answer counts what each filter removed", async () => {
    site.set("/p", product());
    const first = await post({ url: site.url("/p"), ...noise });
    expect(first.status).toBe(200);
    const text = String(first.body.text);
    expect(text).toContain("Price: 30 EUR");
    expect(text).not.toContain("minutes ago");
    expect(text).not.toContain("visitors today");
    expect(text).not.toContain("toasters");
    expect(first.body.comparison).toMatchObject({
      changed: null,
      filters: { ignore_selectors: { elements: 1, lines: 2 }, ignore_patterns: { lines: 2, by_pattern: [1, 1] } },
    });

    site.set("/p", product({ minutes: 7, visitors: 1311, ad: "Autumn sale on mugs" }));
    const again = await post({ url: site.url("/p"), previous_text: text, ...noise });
    expect(again.body.comparison).toMatchObject({ changed: false, added: [], removed: [] });
    expect((again.body.comparison!.filters as Record<string, Record<string, unknown>>).ignore_patterns).toEqual({ lines: 2, by_pattern: [1, 1], previous_lines: 0 });
    expect(again.body.text).toBeUndefined();

    // The same page change without filters is a change.
    const unfiltered = await post({ url: site.url("/p"), previous_text: text });
    expect(unfiltered.body.comparison).toMatchObject({ changed: true });
    expect(unfiltered.body.comparison!.filters).toBeUndefined();
  });

  it("applies ignore_patterns to previous_text too: a baseline taken without them compares like with like", async () => {
    site.set("/p", product());
    const plain = await post({ url: site.url("/p") });
    site.set("/p", product({ minutes: 9, visitors: 2000 }));
    const { body } = await post({ url: site.url("/p"), previous_text: plain.body.text, ignore_patterns: noise.ignore_patterns });
    expect(body.comparison).toMatchObject({ changed: false, added: [], removed: [], filters: { ignore_patterns: { lines: 2, previous_lines: 2 } } });
    // previous_sha256 in the answer is the filtered baseline's: equal to the current one.
    expect(body.comparison!.previous_sha256).toBe(body.comparison!.current_sha256);
  });

  it("computes the baseline hash after the filters, so a hash-only check with the same filters sees no noise", async () => {
    site.set("/p", product());
    const first = await post({ url: site.url("/p"), ...noise });
    const text = String(first.body.text);
    const hash = String(first.body.comparison!.current_sha256);
    expect(hash).toBe(sha(text));
    expect(first.body.text_sha256).toBe(hash);

    site.set("/p", product({ minutes: 11, visitors: 5, ad: "Winter sale" }));
    const same = await post({ url: site.url("/p"), previous_sha256: hash, ...noise });
    expect(same.body.comparison).toMatchObject({ changed: false, previous_sha256: hash, current_sha256: hash });

    site.set("/p", product({ minutes: 12, price: "28 EUR" }));
    const moved = await post({ url: site.url("/p"), previous_sha256: hash, ...noise });
    expect(moved.body.comparison).toMatchObject({ changed: true });
    expect(String(moved.body.text)).toContain("Price: 28 EUR");
    expect(moved.body.comparison!.current_sha256).toBe(sha(String(moved.body.text)));
  });

  it("warns when previous_sha256 is the hash of the text before ignore_patterns", async () => {
    site.set("/p", product());
    const plain = await post({ url: site.url("/p") });
    const { body } = await post({ url: site.url("/p"), previous_sha256: plain.body.text_sha256, ignore_patterns: noise.ignore_patterns });
    expect(body.comparison).toMatchObject({ changed: true });
    expect((body.warnings as string[]).some((w) => w.includes("before ignore_patterns"))).toBe(true);
  });

  it("trigger_patterns: changed only when a matching line is added or removed; the text still comes when it differs", async () => {
    site.set("/p", product());
    const first = await post({ url: site.url("/p") });
    const watch = { trigger_patterns: ["^Price:", "(?i)^(in|out of) stock$"], diff_summary: true };

    site.set("/p", product({ minutes: 8, ad: "New ad" }));
    const quiet = await post({ url: site.url("/p"), previous_text: first.body.text, ...watch });
    expect(quiet.body.comparison).toMatchObject({ changed: false, triggered: { added: [], removed: [] }, added: ["Updated 8 minutes ago", "New ad"] });
    expect(quiet.body.comparison!.summary).toBe("Unchanged: no line matching trigger_patterns was added or removed (2 other line(s) added, 2 removed).");
    expect(typeof quiet.body.text).toBe("string");

    site.set("/p", product({ minutes: 8, stock: "Out of stock" }));
    const loud = await post({ url: site.url("/p"), previous_text: first.body.text, ...watch });
    expect(loud.body.comparison).toMatchObject({ changed: true, triggered: { added: ["Out of stock"], removed: ["In stock"] } });
    expect(loud.body.comparison!.summary).toBe('Changed: 1 line(s) matching trigger_patterns added, 1 removed. Added: "Out of stock". Removed: "In stock".');
  });

  it('compare "markdown": the markdown is compared and returned, and current_sha256 is its hash', async () => {
    site.set("/p", product());
    const first = await post({ url: site.url("/p"), compare: "markdown", ...noise });
    const markdown = String(first.body.markdown);
    expect(markdown).toContain("# Blue kettle");
    expect(markdown).not.toContain("minutes ago");
    expect(first.body.text).toBeUndefined();
    expect(first.body.markdown_sha256).toBe(sha(markdown));
    expect(first.body.comparison).toMatchObject({ current_sha256: sha(markdown), filters: { ignore_patterns: { lines: 2 } } });

    site.set("/p", product({ minutes: 3 }));
    const same = await post({ url: site.url("/p"), compare: "markdown", previous_text: markdown, ...noise });
    expect(same.body.comparison).toMatchObject({ changed: false });
    expect(same.body.markdown).toBeUndefined();
    site.set("/p", product({ price: "35 EUR" }));
    const moved = await post({ url: site.url("/p"), compare: "markdown", previous_sha256: sha(markdown), ...noise });
    expect(moved.body.comparison).toMatchObject({ changed: true });
    expect(String(moved.body.markdown)).toContain("Price: 35 EUR");
  });

  it("applies the filters to every item of a batch", async () => {
    site.set("/p", product());
    site.set("/q", product({ price: "99 EUR" }));
    const first = await post({ items: [site.url("/p"), site.url("/q")], ...noise });
    site.set("/p", product({ minutes: 40 }));
    site.set("/q", product({ price: "98 EUR", minutes: 40 }));
    const results = first.body.results!;
    const { body } = await post({ items: [{ url: site.url("/p"), previous_text: results[0]!.text }, { url: site.url("/q"), previous_text: results[1]!.text }], ...noise });
    expect(body.results![0]!.comparison).toMatchObject({ changed: false });
    expect(body.results![1]!.comparison).toMatchObject({ changed: true, added: ["Price: 98 EUR"], removed: ["Price: 99 EUR"] });
  });

  it("answers (a+)+$ against a 60,000-character page: the pattern engine cannot stall", async () => {
    site.set("/long", `<!doctype html><html><head><title>Long</title></head><body><main><p>${"a".repeat(59_990)}!</p></main></body></html>`);
    const { status, body } = await post({ url: site.url("/long"), max_chars: 60_000, ignore_patterns: ["(a+)+$"], trigger_patterns: ["(a+)+$"], previous_text: "b" });
    expect(status).toBe(200);
    expect(body.comparison).toMatchObject({ changed: false, filters: { ignore_patterns: { lines: 0 } } });
    expect(String(body.text)).toHaveLength(59_991);
  });

  it("stops an ignore selector whose ancestor chains explode on a deep page: 422 CONTENT_TOO_COMPLEX naming it", async () => {
    site.set("/deep", `<html><body>${"<div>".repeat(500)}x${"</div>".repeat(500)}</body></html>`);
    const { status, body } = await post({ url: site.url("/deep"), ignore_selectors: ["nope div div div div div div"] });
    expect(status).toBe(422);
    expect(body).toMatchObject({ ok: false, error: "CONTENT_TOO_COMPLEX" });
    expect(String(body.message)).toContain('ignore_selectors[0] "nope div div div div div div"');
  });

  it("refuses ignore_selectors on a source that is not HTML (422, nothing charged)", async () => {
    site.set("/notes.txt", "line one\nline two\n", "text/plain");
    const { status, body } = await post({ url: site.url("/notes.txt"), ignore_selectors: [".ad"] });
    expect(status).toBe(422);
    expect(body.error).toBe("SELECTOR_NOT_APPLICABLE");
    const patterns = await post({ url: site.url("/notes.txt"), ignore_patterns: ["^line one$"] });
    expect(patterns.body.text).toBe("line two");
  });
});

describe("web.changes filter refusals come before any work or price", () => {
  const paidFlags = ["--payments", "on", "--pay-to-base", "0x1111111111111111111111111111111111111111", "--facilitator-url", "http://127.0.0.1:9/"];
  let paid: TestService;
  beforeAll(async () => {
    paid = await testService(["--unsafe-allow-loopback-targets", ...paidFlags]);
  });
  afterAll(async () => {
    await paid.close();
  });

  const cases: [string, Record<string, unknown>, string, string][] = [
    ["invalid RE2 syntax", { ignore_patterns: ["ok", "(unclosed"] }, "PATTERN_INVALID", 'ignore_patterns[1] "(unclosed"'],
    ["a backreference", { trigger_patterns: ["(a)\\1"] }, "PATTERN_INVALID", 'trigger_patterns[0] "(a)\\\\1"'],
    ["a lookahead", { ignore_patterns: ["foo(?=bar)"] }, "PATTERN_INVALID", "ignore_patterns[0]"],
    ["a pattern matching the empty line", { ignore_patterns: [".*"] }, "PATTERN_INVALID", "matches the empty line"],
    ["a pattern over the program size", { ignore_patterns: ["[a-z]{1,999}"] }, "PATTERN_INVALID", "RE2 instructions"],
    ["patterns over the request's program size", { ignore_patterns: Array(5).fill("[a-z]{1,200}x") }, "PATTERN_INVALID", "together"],
    ["too many patterns", { ignore_patterns: Array.from({ length: 21 }, (_, i) => `p${i}`) }, "INVALID_REQUEST", "ignore_patterns"],
    ["a pattern too long", { trigger_patterns: ["a".repeat(201)] }, "INVALID_REQUEST", "trigger_patterns"],
    ["an invalid ignore selector", { ignore_selectors: [".ad", "div[x"] }, "SELECTOR_INVALID", 'ignore_selectors[1] "div[x"'],
    ["trigger_patterns with a hash-only baseline", { trigger_patterns: ["^Price"], previous_sha256: sha("x") }, "INVALID_REQUEST", "need previous_text"],
    ["an unknown compare", { compare: "html" }, "INVALID_REQUEST", "compare"],
  ];

  for (const [name, fields, code, named] of cases) {
    it(`refuses ${name} with 400 ${code}, naming it, with no 402 and no fetch`, async () => {
      site.set("/r", product());
      const before = site.hits("/r");
      const { status, body, headers } = await post({ url: site.url("/r"), ...fields }, paid);
      expect(status).toBe(400);
      expect(body).toMatchObject({ ok: false, error: code, status: 400 });
      expect(String(body.message)).toContain(named);
      expect(headers.get("payment-required")).toBeNull();
      expect(site.hits("/r")).toBe(before);
    });
  }

  it("asks for payment (402) once the same request's filters are valid", async () => {
    const { status, headers } = await post({ url: site.url("/r"), ...noise, trigger_patterns: ["^Price"] }, paid);
    expect(status).toBe(402);
    expect(headers.get("payment-required")).not.toBeNull();
  });

  it("names a bad pattern inside a batch too", async () => {
    const { status, body } = await post({ items: [site.url("/r"), site.url("/p")], trigger_patterns: ["x{3,2}"] }, paid);
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: "PATTERN_INVALID" });
  });
});
