/**
 * web/archive beside web/screenshot of the same loopback page, one at a time on one warmed renderer,
 * in the same run: p50/p95 of the whole archive call (capture, WARC, WACZ, package signature) and of
 * a viewport screenshot, and the archive's sizes (kept bytes, WARC, WACZ, the answer's base64).
 * Usage: bun scripts/bench/archive.ts [rounds=10]
 */
import { loadavg } from "node:os";
import { openEvidenceKeys } from "../../src/evidence/key-file.ts";
import { signWaczHash } from "../../src/evidence/wacz-signing.ts";
import { archiveEndpoint } from "../../src/web/archive.ts";
import { createHarness } from "../../test/web/render/render-harness.ts";
import { startRenderSite } from "../../test/web/render/render-site.ts";

const rounds = Number(process.argv[2] ?? 10);
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

const site = await startRenderSite();
const h = createHarness({ navigationTimeoutMs: 10_000, totalTimeoutMs: 20_000, settleTimeoutMs: 3_000 });
const keys = await openEvidenceKeys(":memory:");
const web = { ...h.engine, signArchive: async (hash: string) => signWaczHash(hash, await keys.current(), "bench") };
try {
  await h.renderer.warm();
  const url = site.url("/archive.html");
  const archiveMs: number[] = [];
  const shotMs: number[] = [];
  let last;
  for (let i = 0; i < rounds; i++) {
    let started = performance.now();
    last = await archiveEndpoint({ url }, { web, signal: AbortSignal.timeout(60_000) });
    archiveMs.push(performance.now() - started);
    started = performance.now();
    await h.engine.screenshot(url, { viewport: { width: 1280, height: 800, deviceScaleFactor: 1 }, fullPage: false, format: "png" }, AbortSignal.timeout(60_000));
    shotMs.push(performance.now() - started);
  }
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}, ${rounds} rounds of ${url}`);
  console.log(`web/archive    p50 ${percentile(archiveMs, 50).toFixed(0)} ms, p95 ${percentile(archiveMs, 95).toFixed(0)} ms`);
  console.log(`web/screenshot p50 ${percentile(shotMs, 50).toFixed(0)} ms, p95 ${percentile(shotMs, 95).toFixed(0)} ms (reference: the same page, same renderer)`);
  console.log(`sizes: ${last!.resources.length} resources, kept ${last!.kept_bytes} B, WARC ${last!.warc_bytes} B, WACZ ${last!.bytes} B (screenshot ${last!.screenshot ? "included" : "none"}), answer base64 ${last!.wacz_base64.length} B`);
} finally {
  await h.renderer.close();
  await site.stop();
}
