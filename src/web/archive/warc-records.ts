/**
 * @module web/archive/warc-records — a capture as one WARC 1.1 file written by warcio (webrecorder's
 * own library): a warcinfo record, a response and a request record per exchange, the screenshot as a
 * resource record, and a metadata record listing what was left out; each record gzipped on its own
 * (as WACZ readers expect) and indexed as sorted CDXJ by warcio's indexer.
 */
import { createHash } from "node:crypto";
import { CDXIndexer, WARCRecord, WARCSerializer } from "warcio";
import type { CapturedExchange, LeftOutResource } from "../render/contract.ts";

export const WARC_NAME = "data.warc.gz";

export interface WarcCapture {
  pageUrl: string;
  fetchedAt: string;
  exchanges: readonly CapturedExchange[];
  leftOut: readonly LeftOutResource[];
  screenshot?: { image: Uint8Array; width: number; height: number };
  warnings: readonly string[];
  /** The bounds the capture ran under, stated in the metadata record. */
  limits: Record<string, number>;
  software: string;
}

export interface BuiltWarc {
  warc: Uint8Array;
  /** CDXJ lines, sorted, each ending in a newline. */
  cdxj: string;
}

/** The screenshot's record URI (as browsertrix-crawler names a page's screenshot). */
export const screenshotUri = (pageUrl: string) => `urn:view:${pageUrl}`;
/** The metadata record's URI: not the page's, so a replay never serves it in place of the page. */
export const captureInfoUri = (pageUrl: string) => `urn:tollbooth:capture:${pageUrl}`;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the body no longer matches: it is kept decoded, as the page received it. */
const DROPPED_RESPONSE_HEADERS = new Set(["content-encoding", "transfer-encoding", "content-length"]);

/** CDP joins repeated headers with newlines; each becomes its own line, names and values kept to what HTTP/1.1 allows. */
function headerPairs(headers: Record<string, string>, dropped: ReadonlySet<string> = new Set()): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name) || dropped.has(name.toLowerCase())) continue;
    for (const line of value.split("\n")) pairs.push([name, line.replace(/[\r\0]/g, "").replace(/[^\t\x20-\x7e\x80-\xff]/g, "?")]);
  }
  return pairs;
}

function requestTarget(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

const reasonPhrase = (exchange: CapturedExchange) => exchange.statusText || (exchange.status < 400 ? "OK" : "Error");

async function serialize(record: WARCRecord): Promise<Uint8Array> {
  return WARCSerializer.serialize(record, { gzip: true });
}

function exchangeRecords(exchange: CapturedExchange): WARCRecord[] {
  const date = exchange.sentAt;
  const responseHeaders = headerPairs(exchange.responseHeaders, DROPPED_RESPONSE_HEADERS);
  responseHeaders.push(["Content-Length", String(exchange.body.length)]);
  const response = WARCRecord.create(
    { url: exchange.url, date, type: "response", warcVersion: "WARC/1.1", statusline: `HTTP/1.1 ${exchange.status} ${reasonPhrase(exchange)}`, httpHeaders: responseHeaders, keepHeadersCase: true },
    [exchange.body],
  );
  const requestHeaders = headerPairs(exchange.requestHeaders);
  if (!requestHeaders.some(([name]) => name.toLowerCase() === "host")) requestHeaders.unshift(["Host", new URL(exchange.url).host]);
  const request = WARCRecord.create(
    {
      url: exchange.url,
      date,
      type: "request",
      warcVersion: "WARC/1.1",
      statusline: `${exchange.method} ${requestTarget(exchange.url)} HTTP/1.1`,
      httpHeaders: requestHeaders,
      keepHeadersCase: true,
      warcHeaders: { "WARC-Concurrent-To": response.warcHeaders.headers.get("WARC-Record-ID") ?? "" },
    },
    exchange.requestBody ? [exchange.requestBody] : [],
  );
  return [response, request];
}

/** Writes the capture's WARC and its CDXJ index. */
export async function buildWarc(capture: WarcCapture): Promise<BuiltWarc> {
  const records: WARCRecord[] = [
    WARCRecord.createWARCInfo(
      { filename: WARC_NAME, warcVersion: "WARC/1.1" },
      { software: capture.software, format: "WARC File Format 1.1", isPartOf: capture.pageUrl, description: "One page and its subresources as a headless browser loaded them." },
    ),
  ];
  for (const exchange of capture.exchanges) records.push(...exchangeRecords(exchange));
  if (capture.screenshot) {
    records.push(
      WARCRecord.create(
        { url: screenshotUri(capture.pageUrl), date: capture.fetchedAt, type: "resource", warcVersion: "WARC/1.1", warcHeaders: { "Content-Type": "image/png" } },
        [capture.screenshot.image],
      ),
    );
  }
  const info = { page: capture.pageUrl, left_out: capture.leftOut, warnings: capture.warnings, limits: capture.limits, software: capture.software };
  records.push(
    WARCRecord.create(
      { url: captureInfoUri(capture.pageUrl), date: capture.fetchedAt, type: "metadata", warcVersion: "WARC/1.1", warcHeaders: { "Content-Type": "application/json" } },
      [new TextEncoder().encode(JSON.stringify(info))],
    ),
  );
  const chunks: Uint8Array[] = [];
  for (const record of records) chunks.push(await serialize(record));
  const warc = new Uint8Array(Buffer.concat(chunks));
  return { warc, cdxj: await indexWarc(warc) };
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/**
 * CDXJ of the WARC as WACZ wants it: one line per response or resource, sorted, each with the SHA-256
 * of its stored (gzipped) record as recordDigest, which a replay checks when it loads the record.
 */
async function indexWarc(warc: Uint8Array): Promise<string> {
  const indexer = new CDXIndexer({ format: "cdxj" });
  const lines: string[] = [];
  for await (const entry of indexer.iterIndex([{ filename: WARC_NAME, reader: once(warc) }])) {
    const offset = Number(entry.offset);
    entry.recordDigest = `sha256:${createHash("sha256").update(warc.subarray(offset, offset + Number(entry.length))).digest("hex")}`;
    lines.push(indexer.serializeCDXJ(entry));
  }
  return lines.sort().join("");
}
