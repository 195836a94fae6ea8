/**
 * @module web/archive — what the web/archive plugin file runs: the page captured as the browser
 * loaded it (or fetched alone, without a browser) → a WARC (warc-records.ts) → a signed WACZ
 * (wacz-package.ts) → the answer, noted as evidence that signs the package's hash and the key that
 * signed the package. Nothing of the page outlives the answer: every byte lives in this call's memory.
 */
import { noteEvidence } from "../evidence/notes.ts";
import type { CapturedArchive, WebEngine } from "./engine.ts";
import { capturedPageFacts } from "./evidence-facts.ts";
import type { WebCapabilities } from "./endpoints.ts";
import { sha256Hex } from "./text/text-output.ts";
import { ARCHIVE_BOUNDS, ARCHIVE_RESULT_VERSION, type ArchiveRequest, type ArchiveResult } from "./archive-schema.ts";
import { buildWacz } from "./archive/wacz-package.ts";
import { buildWarc } from "./archive/warc-records.ts";

const SOFTWARE = "Tollbooth web/archive (warcio.js, fflate)";
const UNSIGNED_WARNING = "This server has no package signing key: the WACZ carries no signature (the attestation still signs its hash).";

type Capture = CapturedArchive & { url: string; fetchedAt: string };

/** The page's own response only, through the plain guarded fetcher (robots.txt, SSRF guard, byte cap). */
async function fetchAlone(web: WebEngine, url: string, maxBytes: number, signal: AbortSignal): Promise<Capture> {
  const fetched = await web.fetchBytes(url, { maxBytes, tooLargeCode: "ARCHIVE_TOO_LARGE", signal });
  return {
    url,
    fetchedAt: fetched.fetchedAt,
    exchanges: [
      {
        url: fetched.finalUrl,
        method: "GET",
        requestHeaders: { Host: new URL(fetched.finalUrl).host },
        status: fetched.status,
        statusText: "",
        protocol: "http/1.1",
        responseHeaders: fetched.headers,
        body: fetched.bytes,
        sentAt: fetched.fetchedAt,
        resourceType: "Document",
      },
    ],
    leftOut: [],
    title: "",
    finalUrl: fetched.finalUrl,
    status: fetched.status,
    warnings: [],
  };
}

export async function archiveEndpoint(input: ArchiveRequest, { web, signal }: WebCapabilities): Promise<ArchiveResult> {
  const render = input.render !== false;
  const maxBytes = input.max_bytes ?? ARCHIVE_BOUNDS.defaultMaxBytes;
  const limits = { maxBytes, maxResourceBytes: Math.min(maxBytes, ARCHIVE_BOUNDS.maxResourceBytes), maxResources: ARCHIVE_BOUNDS.maxResources };
  const capture: Capture = render ? await web.archive(input.url, { limits, screenshot: input.screenshot !== false }, signal) : await fetchAlone(web, input.url, maxBytes, signal);
  const warnings = [...capture.warnings];
  const warc = await buildWarc({
    pageUrl: capture.finalUrl,
    fetchedAt: capture.fetchedAt,
    exchanges: capture.exchanges,
    leftOut: capture.leftOut,
    ...(capture.screenshot ? { screenshot: capture.screenshot } : {}),
    warnings,
    limits: { max_bytes: limits.maxBytes, max_resource_bytes: limits.maxResourceBytes, max_resources: limits.maxResources },
    software: SOFTWARE,
  });
  const package_ = await buildWacz({
    warc,
    page: { url: capture.finalUrl, ts: capture.fetchedAt, title: capture.title },
    software: SOFTWARE,
    created: new Date(),
    sign: (hash) => web.signArchive(hash),
  });
  if (!package_.signedData) warnings.push(UNSIGNED_WARNING);
  for (const item of capture.leftOut) warnings.push(`left out ${item.url}: ${item.reason}`);
  const result: ArchiveResult = {
    ok: true,
    version: ARCHIVE_RESULT_VERSION,
    url: capture.url,
    final_url: capture.finalUrl,
    fetched_at: capture.fetchedAt,
    source_status: capture.status,
    title: capture.title,
    content_type: "application/wacz",
    wacz_base64: Buffer.from(package_.wacz).toString("base64"),
    package_sha256: sha256Hex(package_.wacz),
    datapackage_hash: package_.datapackageHash,
    ...(package_.signedData ? { wacz_public_key: package_.signedData.publicKey } : {}),
    bytes: package_.wacz.length,
    warc_bytes: warc.warc.length,
    kept_bytes: capture.exchanges.reduce((sum, exchange) => sum + exchange.body.length, 0),
    resources: capture.exchanges.map((exchange) => ({ url: exchange.url, status: exchange.status, type: exchange.resourceType, bytes: exchange.body.length })),
    left_out: capture.leftOut.map((item) => ({ url: item.url, reason: item.reason })),
    screenshot: capture.screenshot ? { width: capture.screenshot.width, height: capture.screenshot.height, sha256: sha256Hex(capture.screenshot.image) } : null,
    warnings,
    content_is_untrusted: true,
  };
  return noteEvidence(result, {
    ...capturedPageFacts(result),
    content_type: "application/wacz",
    format: "wacz",
    package_sha256: result.package_sha256,
    ...(result.wacz_public_key !== undefined ? { wacz_public_key: result.wacz_public_key } : {}),
    version: ARCHIVE_RESULT_VERSION,
  });
}
