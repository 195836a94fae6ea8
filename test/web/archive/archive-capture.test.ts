/**
 * web/archive's capture with the real Chromium (issue 43): every request the page made becomes a
 * response and a request record of a WARC inside a WACZ that holds together; the bounds (per-resource,
 * total bytes, resource count) leave resources out with their reason, in the answer and in the
 * archive's metadata record; the render guard still refuses every subresource aimed at a private
 * address; and a page that never finishes loading ends within the deadline.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { unzipSync } from "fflate";
import { WARCParser } from "warcio";
import { checkWacz } from "../../../src/evidence/wacz-check.ts";
import { archiveEndpoint } from "../../../src/web/archive.ts";
import { createWebEngine } from "../../../src/web/engine.ts";
import { skipWithout } from "../../support/requirements.ts";
import { createHarness, createStandInRenderer, type Harness, rejection, USER_AGENT } from "../render/render-harness.ts";
import { type RenderSite, startRenderSite } from "../render/render-site.ts";

const describeWithBrowser = skipWithout("chromium", "web/archive's capture in a real Chromium") ? describe.skip : describe;
const SLOW = 90_000;
const DEADLINES = { navigationTimeoutMs: 10_000, totalTimeoutMs: 20_000, settleTimeoutMs: 1_500 };
const timeout = () => AbortSignal.timeout(60_000);
const limits = (overrides: Partial<{ maxBytes: number; maxResourceBytes: number; maxResources: number }> = {}) => ({
  limits: { maxBytes: 5 * 1024 * 1024, maxResourceBytes: 5 * 1024 * 1024, maxResources: 200, ...overrides },
  screenshot: false,
});

interface Record_ {
  type: string;
  uri: string;
  payload: Uint8Array;
}

async function warcRecords(wacz: Uint8Array): Promise<Record_[]> {
  const warc = unzipSync(wacz)["archive/data.warc.gz"]!;
  const records: Record_[] = [];
  for await (const record of WARCParser.iterRecords([warc])) {
    records.push({ type: record.warcType, uri: record.warcTargetURI ?? "", payload: await record.readFully(true) });
  }
  return records;
}

describeWithBrowser("web/archive capture with Chromium", () => {
  let site: RenderSite;
  let h: Harness;
  beforeAll(async () => {
    site = await startRenderSite();
    h = createHarness(DEADLINES);
    await h.renderer.warm();
  }, SLOW);
  afterAll(async () => {
    await h.renderer.close();
    await site.stop();
  });

  it("records the page, its style sheet, image and script fetch as WARC response and request records in a WACZ that holds together", async () => {
    const result = await archiveEndpoint({ url: site.url("/archive.html") }, { web: h.engine, signal: timeout() });
    expect(result.resources.map((r) => [new URL(r.url).pathname, r.type, r.status])).toEqual(
      expect.arrayContaining([
        ["/archive.html", "Document", 200],
        ["/archive.css", "Stylesheet", 200],
        ["/image/red.png", "Image", 200],
        ["/data.json", "Fetch", 200],
      ]),
    );
    expect(result.screenshot).toMatchObject({ width: 1280, height: 800 });
    const wacz = new Uint8Array(Buffer.from(result.wacz_base64, "base64"));
    expect(result.bytes).toBe(wacz.length);
    const outcome = await checkWacz(wacz);
    // Everything holds but the signature: this engine has no signing key (the answer says so).
    expect(outcome.checks.filter((c) => !c.ok).map((c) => c.part)).toEqual(["wacz.signature"]);
    expect(result.warnings.some((w) => w.includes("no package signing key"))).toBe(true);
    const records = await warcRecords(wacz);
    const png = records.find((r) => r.type === "response" && r.uri.endsWith("/image/red.png"))!;
    expect(Buffer.from(png.payload).subarray(1, 4).toString("latin1")).toBe("PNG");
    const responses = records.filter((r) => r.type === "response").length;
    expect(records.filter((r) => r.type === "request").length).toBe(responses);
    expect(records.some((r) => r.type === "resource" && r.uri === `urn:view:${result.final_url}`)).toBe(true);
    const page = records.find((r) => r.type === "response" && r.uri === result.final_url)!;
    expect(Buffer.from(page.payload).toString("utf8")).toContain("The archive keeps this sentence.");
    const cdx = new TextDecoder().decode(unzipSync(wacz)["indexes/index.cdx"]);
    expect(cdx.split("\n").filter(Boolean).length).toBe(responses + 2); // + the screenshot and the metadata record
  }, SLOW);

  it("leaves out a resource over the per-resource cap, and one past the byte cap, listed in the answer and the metadata record", async () => {
    const capture = await h.engine.archive(site.url("/archive.html?big=600"), limits({ maxResourceBytes: 512 * 1024 }), timeout());
    expect(capture.leftOut).toContainEqual({ url: site.url("/blob/600"), reason: "larger than the per-resource cap (524288 bytes)" });
    expect(capture.exchanges.some((e) => e.url.endsWith("/blob/600"))).toBe(false);

    const result = await archiveEndpoint({ url: site.url("/archive.html?big=64"), max_bytes: 64 * 1024, screenshot: false }, { web: h.engine, signal: timeout() });
    expect(result.kept_bytes).toBeLessThanOrEqual(64 * 1024);
    const overCap = result.left_out.filter((item) => item.reason === "over the archive byte cap (65536 bytes)");
    expect(overCap.length).toBeGreaterThan(0);
    for (const item of overCap) expect(result.warnings).toContain(`left out ${item.url}: ${item.reason}`);
    const metadata = (await warcRecords(new Uint8Array(Buffer.from(result.wacz_base64, "base64")))).find((r) => r.type === "metadata")!;
    expect(JSON.parse(Buffer.from(metadata.payload).toString("utf8")).left_out).toEqual(result.left_out);
  }, SLOW);

  it("keeps at most the resource count cap, and refuses a page whose own document does not fit with 422 ARCHIVE_TOO_LARGE", async () => {
    const capture = await h.engine.archive(site.url("/archive.html"), limits({ maxResources: 2 }), timeout());
    expect(capture.exchanges).toHaveLength(2);
    expect(capture.leftOut.some((item) => item.reason === "over the resource count cap (2)")).toBe(true);
    const error = await rejection(h.engine.archive(site.url("/archive.html"), limits({ maxBytes: 100, maxResourceBytes: 100 }), timeout()));
    expect([error.code, error.status]).toEqual(["ARCHIVE_TOO_LARGE", 422]);
  }, SLOW);

  it("keeps the page's own document when the resources read before it filled the count cap (they make room)", async () => {
    const capture = await h.engine.archive(site.url("/late-document.html"), limits({ maxResources: 2 }), timeout());
    expect(capture.exchanges.map((e) => e.url)).toContain(site.url("/late-document.html"));
    expect(capture.exchanges).toHaveLength(2);
    expect(capture.leftOut.filter((item) => item.reason === "over the resource count cap (2)").map((item) => item.url)).toHaveLength(1);
  }, SLOW);

  it("ends a page that never finishes loading within the deadline, the hanging image left out", async () => {
    const started = Date.now();
    const capture = await h.engine.archive(site.url("/never-loads.html"), limits(), timeout());
    expect(Date.now() - started).toBeLessThan(DEADLINES.totalTimeoutMs);
    expect(capture.leftOut).toContainEqual({ url: site.url("/hang"), reason: "still loading when the capture ended" });
  }, SLOW);

  it("archives the page alone without a browser (render: false), through the plain guarded fetcher", async () => {
    const web = createWebEngine({ userAgent: USER_AGENT, allowLoopbackTargets: true });
    const result = await archiveEndpoint({ url: site.url("/archive.html"), render: false }, { web, signal: timeout() });
    expect(result.resources).toEqual([{ url: site.url("/archive.html"), status: 200, type: "Document", bytes: expect.any(Number) }]);
    expect(result.screenshot).toBeNull();
    const outcome = await checkWacz(new Uint8Array(Buffer.from(result.wacz_base64, "base64")));
    expect(outcome.checks.filter((c) => !c.ok).map((c) => c.part)).toEqual(["wacz.signature"]);
  }, SLOW);
});

describeWithBrowser("web/archive and private addresses", () => {
  it("refuses every subresource a page aims at 127.0.0.1 or 169.254.169.254 (never connected, never archived, listed as refused)", async () => {
    const site = await startRenderSite();
    const sitePort = Number(new URL(site.origin).port);
    const { renderer, attempts, decisions } = createStandInRenderer(sitePort, DEADLINES);
    try {
      await renderer.warm();
      const capture = await renderer.archive(`http://site.test/ssrf-shot.html?port=${sitePort}`, limits(), timeout());
      expect(capture.exchanges.map((e) => e.url)).toContain("http://site.test/image/red.png");
      const privateUrls = [`http://127.0.0.1:${sitePort}/image/secret.png`, `http://127.0.0.1:${sitePort}/image/secret-css.png`, "http://169.254.169.254/latest/meta-data/pixel.png"];
      for (const url of privateUrls) {
        expect(capture.exchanges.some((e) => e.url === url)).toBe(false);
        expect(capture.leftOut).toContainEqual({ url, reason: "refused by the render guard (not a public address)" });
      }
      expect(decisions.filter((d) => !d.allowed).map((d) => d.target)).toEqual(expect.arrayContaining(privateUrls));
      expect(site.hits("/image/secret")).toBe(0);
      expect(attempts.every((a) => a === "93.184.216.34:80")).toBe(true);
    } finally {
      await renderer.close();
      await site.stop();
    }
  }, SLOW);
});
