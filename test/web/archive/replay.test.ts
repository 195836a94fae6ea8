/**
 * The real clients of a web/archive WACZ (issue 43): ReplayWeb.page (the `replaywebpage` package,
 * served on 127.0.0.1, driven in Chromium) replays the archived page with its text and image after the
 * site is gone and finds the package signature valid, not once one byte of it changed; `tollbooth
 * verify` accepts the signed answer and refuses it once one byte of the WACZ changed.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unzipSync } from "fflate";
import type { Browser } from "puppeteer-core";
import { openEvidenceKeys } from "../../../src/evidence/key-file.ts";
import { createEvidenceSeal } from "../../../src/evidence/seal.ts";
import { signWaczHash } from "../../../src/evidence/wacz-signing.ts";
import { archiveEndpoint } from "../../../src/web/archive.ts";
import type { ArchiveResult } from "../../../src/web/archive-schema.ts";
import { launchChromium } from "../../support/browser.ts";
import { skipWithout } from "../../support/requirements.ts";
import { createHarness } from "../render/render-harness.ts";
import { startRenderSite } from "../render/render-site.ts";
import { replayInViewer, startReplayViewer } from "./replay-viewer.ts";

const browserMissing = skipWithout("chromium", "a WACZ replayed in ReplayWeb.page and checked by `tollbooth verify`");
const SLOW = 180_000;

let keys: Awaited<ReturnType<typeof openEvidenceKeys>>;
let sealed: ArchiveResult;
let wacz: Uint8Array;
let browser: Browser;
let tmp: string;

/** One byte of the WACZ changed: a character of the package signature in datapackage-digest.json (the zip stores it as is). */
function withSignatureByteChanged(bytes: Uint8Array, signature: string): Uint8Array {
  const changed = new Uint8Array(bytes);
  const at = Buffer.from(changed).indexOf(Buffer.from(signature.slice(0, 16), "latin1")) + 8;
  changed[at] = changed[at] === 0x41 ? 0x42 : 0x41; // another base64 letter: the signature still decodes
  return changed;
}

beforeAll(async () => {
  if (browserMissing) return;
  keys = await openEvidenceKeys(":memory:");
  const site = await startRenderSite();
  const h = createHarness({ navigationTimeoutMs: 10_000, totalTimeoutMs: 20_000, settleTimeoutMs: 1_500 });
  const web = { ...h.engine, signArchive: async (hash: string) => signWaczHash(hash, await keys.current(), "Tollbooth test") };
  try {
    const result = await archiveEndpoint({ url: site.url("/archive.html") }, { web, signal: AbortSignal.timeout(60_000) });
    sealed = (await createEvidenceSeal(keys).seal(result, { server: "http://127.0.0.1:1" })) as ArchiveResult;
  } finally {
    await h.renderer.close();
    // The site is gone before the replay: what the viewer shows comes from the archive.
    await site.stop();
  }
  wacz = new Uint8Array(Buffer.from(sealed.wacz_base64, "base64"));
  browser = await launchChromium();
  tmp = mkdtempSync(join(tmpdir(), "archive-verify-"));
}, SLOW);

afterAll(async () => {
  await browser?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(browserMissing)("a web/archive WACZ in ReplayWeb.page", () => {
  it("replays the page's text and image, and finds the package signature valid by the key the answer names", async () => {
    const viewer = await startReplayViewer(wacz);
    try {
      const replayed = await replayInViewer(browser, viewer, sealed.final_url);
      expect(replayed.text).toContain("The archive keeps this sentence.");
      expect(replayed.imageWidth).toBe(64);
      expect(replayed.signatureValid).toBe(true);
      expect(replayed.verify).toMatchObject({ publicKey: sealed.wacz_public_key, datapackageHash: sealed.datapackage_hash, software: "Tollbooth test" });
      // The viewer also asks for its favicons, web manifest and ruffle.js (its Flash player): not served, not needed to replay.
      expect(viewer.requests).toContain("/archive.wacz");
    } finally {
      await viewer.stop();
    }
  }, SLOW);

  it("finds the signature invalid once one byte of it changed", async () => {
    const viewer = await startReplayViewer(withSignatureByteChanged(wacz, packageSignature()));
    try {
      const replayed = await replayInViewer(browser, viewer, sealed.final_url);
      expect(replayed.signatureValid).toBe(false);
    } finally {
      await viewer.stop();
    }
  }, SLOW);
});

describe.skipIf(browserMissing)("a web/archive answer and `tollbooth verify`", () => {
  const verify = async (saved: unknown, ...extra: string[]) => {
    writeFileSync(join(tmp, "jwks.json"), JSON.stringify(await keys.jwks()));
    writeFileSync(join(tmp, "answer.json"), JSON.stringify(saved));
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "..", "src/main.ts"), "verify", join(tmp, "answer.json"), "--jwks", join(tmp, "jwks.json"), ...extra], { stdout: "pipe", stderr: "pipe" });
    return { code: await proc.exited, out: await new Response(proc.stdout).text() };
  };

  it("accepts the signed answer: the package hash, every file of the WACZ, its signature and the key the statement names", async () => {
    const valid = await verify(sealed);
    expect(valid.out).toContain("ok     package:");
    expect(valid.out).toContain("ok     wacz.signature:");
    expect(valid.out).toContain("ok     wacz.key:");
    expect(valid.code).toBe(0);
  }, SLOW);

  it("refuses it once one byte of the WACZ changed, in the answer or in a WACZ file given beside it", async () => {
    const changed = withSignatureByteChanged(wacz, packageSignature());
    const inAnswer = await verify({ ...sealed, wacz_base64: Buffer.from(changed).toString("base64") });
    expect(inAnswer.code).toBe(1);
    expect(inAnswer.out).toContain("INVALID: package does not hold");
    expect(inAnswer.out).toContain("FAILED wacz.signature:");
    const { wacz_base64: _dropped, ...answerOnly } = sealed;
    writeFileSync(join(tmp, "page.wacz"), changed);
    const beside = await verify(answerOnly, "--source", join(tmp, "page.wacz"));
    expect(beside.code).toBe(1);
    writeFileSync(join(tmp, "page.wacz"), wacz);
    expect((await verify(answerOnly, "--source", join(tmp, "page.wacz"))).code).toBe(0);
  }, SLOW);
});

function packageSignature(): string {
  const digest = JSON.parse(new TextDecoder().decode(unzipSync(wacz)["datapackage-digest.json"])) as { signedData: { signature: string } };
  return digest.signedData.signature;
}
