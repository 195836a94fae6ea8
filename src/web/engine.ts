/**
 * @module web/engine — the web engine the endpoints call: one URL → a read result (spec
 * web-evidence §2.1), and guarded raw downloads for the PDF reader.
 */
import { ApiError, type ErrorCode } from "../errors.ts";
import { isBotChallenge } from "./fetch/challenge.ts";
import { classifySource, decodeText, parseContentType } from "./fetch/decode.ts";
import type { IgnoredElements } from "./extract/extract.ts";
import type { PageExtraction } from "./threads/extract-page.ts";
import { readPdf } from "./pdf/pdf.ts";
import type { PdfReader } from "./threads/pdf-thread.ts";
import type { HtmlExtractor } from "./threads/extract-pool.ts";
import { createGuardedFetcher, type FetchedResource } from "./fetch/fetch-guard.ts";
import { type Connector, createPinnedConnector } from "./fetch/http-connector.ts";
import { READ_RESULT_VERSION, type ReadResult } from "./read-result.ts";
import { createRobotsPolicy, readProductToken, ROBOTS_MAX_BYTES, type RobotsMatcher, type RobotsPolicy } from "./fetch/robots.ts";
import { extractPlain } from "./extract/source-text.ts";
import { vetTarget, type Resolver } from "./fetch/target-guard.ts";
import type { WaczSignedData } from "../evidence/wacz-signing.ts";
import type { Archiver, ArchiveSpec, CapturedArchive, CapturedScreenshot, NavigationCheck, Renderer, Screenshotter, ScreenshotSpec } from "./render/contract.ts";
import { limitText, sha256Hex } from "./text/text-output.ts";

/** spec §8: source size (web). */
export const WEB_MAX_BYTES = 1024 * 1024;
const HTML_ACCEPT = "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,text/markdown;q=0.8,text/csv;q=0.7,application/json;q=0.7,*/*;q=0.1";

export type { Archiver, ArchiveSpec, CapturedArchive, CapturedExchange, CapturedScreenshot, LeftOutResource, NavigationCheck, RenderedPage, Renderer, Screenshotter, ScreenshotSpec } from "./render/contract.ts";

export interface WebEngineOptions {
  /** Names the product and a contact URL, e.g. "Tollbooth/0.1 (+https://example.com/contact)". */
  userAgent: string;
  /** Test-only: reach 127.0.0.0/8 on any port; every other refusal stays. */
  allowLoopbackTargets: boolean;
  resolver?: Resolver;
  robotsTtlMs?: number;
  /** Limit on connecting and receiving a response's headers (default 5 s). */
  headersTimeoutMs?: number;
  /** Limit on a whole fetch, redirects and body included (default 15 s). */
  totalTimeoutMs?: number;
  /** Cap on a web source's uncompressed body (default 1 MiB). */
  maxBytes?: number;
  /** Product token matched against robots.txt User-agent lines (default: the first token of userAgent). */
  robotsAgent?: string;
  /** Web Bot Auth headers for each outgoing request (fetch-identity/request-signer.ts); none when absent. */
  signRequest?: (url: URL) => Promise<Record<string, string>>;
  /** Opens connections (default: Bun's fetch pinned to the vetted address). Tests inject a recording one. */
  connector?: Connector;
  renderer?: Renderer;
  /** Captures screenshots (the renderer's browser); without it web/screenshot is 503 RENDER_UNAVAILABLE. */
  screenshotter?: Screenshotter;
  /** Signs a WACZ package's hash (the server's evidence key, evidence/wacz-signing.ts); without it archives go out unsigned, with a warning. */
  signArchive?: (datapackageHash: string) => Promise<WaczSignedData>;
  /** Archives pages as the browser loads them (the renderer's browser); without it web/archive with render is 503 RENDER_UNAVAILABLE. */
  archiver?: Archiver;
  /** Extracts HTML pages (default: `extractHtml` on this thread; the server passes its worker pool). */
  extractHtml?: HtmlExtractor;
  /** Reads PDFs (default: `readPdf` on this thread; the server passes its PDF thread). */
  readPdf?: PdfReader;
}

export interface ReadInput {
  url: string;
  format: "text" | "markdown";
  selector?: string;
  maxChars: number;
  render?: boolean;
  /** web/changes' filters (web/filters/); web/read has none. */
  filters?: ReadFilters;
  /** Hears every link of an HTML page (absolute), as its extraction parsed it: web/crawl follows them. */
  onPageLinks?: (links: readonly string[]) => void;
}

export interface ReadFilters {
  /** CSS selectors (already checked) whose elements are removed from an HTML page before extraction. */
  ignoreSelectors?: readonly string[];
  /** Given the extracted text (and Markdown) before the max_chars cut; returns what is kept of it. */
  lines?: (content: string, form: "text" | "markdown", maxChars: number) => string;
  /** Told what ignoreSelectors removed from an HTML page. */
  ignored?: (counts: IgnoredElements) => void;
}

export interface FetchedBytes {
  url: string;
  finalUrl: string;
  fetchedAt: string;
  status: number;
  /** Media type (lowercase essence), "" when absent. */
  contentType: string;
  headers: Record<string, string>;
  bytes: Uint8Array;
  sha256: string;
}

export interface WebEngine {
  /** One URL → full read result (spec 2.1 minus request_id). Throws ApiError. */
  read(input: ReadInput, signal: AbortSignal): Promise<ReadResult>;
  /** Guarded download of raw bytes (for PDFs): same guard, redirects, robots; no content-type filtering. */
  fetchBytes(url: string, options: { maxBytes: number; tooLargeCode?: ErrorCode; signal: AbortSignal }): Promise<FetchedBytes>;
  /** A PDF's embedded text, page by page (see web/pdf.ts). Throws ApiError. */
  readPdf: PdfReader;
  /** Whether robots.txt of the URL's origin lets our agent fetch it (read once per origin and cached); throws only when the origin is unreachable. */
  allowedByRobots(url: string, signal: AbortSignal): Promise<boolean>;
  /** robots.txt of one origin as a synchronous test of a path with its query, for checking many URLs of one site; throws only when the origin is unreachable. */
  robotsMatcher(origin: string, signal: AbortSignal): Promise<RobotsMatcher>;
  /** The Crawl-delay robots.txt of the URL's origin asks of our agent, in ms (0 when none). */
  crawlDelayMs?(url: string, signal: AbortSignal): Promise<number>;
  /** A screenshot of a public page: the same target guard and robots.txt as a render. Throws ApiError. */
  screenshot(url: string, spec: ScreenshotSpec, signal: AbortSignal): Promise<Screenshot>;
  /** Every request and response of a public page as the browser loads it: the same target guard and robots.txt as a render. Throws ApiError. */
  archive(url: string, spec: ArchiveSpec, signal: AbortSignal): Promise<CapturedArchive & { url: string; fetchedAt: string }>;
  /** The package signature of a WACZ (undefined when this engine has no signer). */
  signArchive(datapackageHash: string): Promise<WaczSignedData | undefined>;
}

export interface Screenshot extends CapturedScreenshot {
  url: string;
  fetchedAt: string;
}

/** HTML and plain sources are extracted into the same shape (HTML's already hashed and cut when its extractor did). */
type Extracted = PageExtraction;

function throwForStatus(resource: FetchedResource): void {
  if (resource.status >= 200 && resource.status < 300) return;
  const html = new TextDecoder("utf-8").decode(resource.bytes);
  if (isBotChallenge({ status: resource.status, headers: resource.headers, html })) {
    throw new ApiError("BOT_CHALLENGE", { details: { source_status: resource.status } });
  }
  // A 429/503's Retry-After (seconds or a date) is passed on: web/crawl waits that long before trying again.
  const retryAfter = resource.headers["retry-after"];
  throw new ApiError("SOURCE_ERROR_STATUS", {
    message: `The source answered with HTTP ${resource.status}.`,
    details: { source_status: resource.status, ...(retryAfter ? { retry_after: retryAfter } : {}) },
  });
}

/** Bytes as they came from a source: what the extraction path reads. */
export interface SourceResource {
  bytes: Uint8Array;
  /** Lowercase header names; only content-type (and, for challenges, server-style headers) matter here. */
  headers: Record<string, string>;
  finalUrl: string;
  status: number;
  /** Warnings from getting the bytes (a render that had not settled). */
  warnings?: readonly string[];
}

async function extract(resource: SourceResource, input: ReadInput, extractor: HtmlExtractor) {
  const contentType = parseContentType(resource.headers["content-type"]);
  const finalUrl = new URL(resource.finalUrl);
  const kind = classifySource(contentType, resource.bytes, finalUrl);
  if (kind === "pdf") {
    throw new ApiError("PDF_NOT_SUPPORTED_HERE", { message: "The source is a PDF: read it with POST /v1/pdf/read." });
  }
  if (kind === "unsupported") {
    throw new ApiError("UNSUPPORTED_CONTENT_TYPE", {
      message: `The source's content type (${contentType.mediaType || "none"}) is not supported: HTML, plain text, Markdown, CSV or JSON only.`,
    });
  }
  if (kind === "html") {
    const ignoreSelectors = input.filters?.ignoreSelectors;
    // The bytes go to the extractor, which decodes, checks for a bot challenge, hashes and cuts where it runs
    // (threads/extract-page.ts): on a pool's thread they are moved there, and this thread never holds the page as text.
    const { ignored, pageLinks, ...extraction } = await extractor({
      source: { bytes: resource.bytes, ...(contentType.charset !== undefined ? { charset: contentType.charset } : {}), status: resource.status, headers: resource.headers },
      url: resource.finalUrl,
      selector: input.selector,
      markdown: input.format === "markdown",
      ...(ignoreSelectors?.length ? { ignoreSelectors } : {}),
      ...(input.onPageLinks ? { pageLinks: true } : {}),
      // The line filters read the whole text before the cut.
      ...(input.filters?.lines ? {} : { maxChars: input.maxChars }),
    });
    if (ignored) input.filters?.ignored?.(ignored);
    input.onPageLinks?.(pageLinks ?? []);
    return { contentType: contentType.mediaType || "text/html", extraction };
  }
  const decoded = decodeText(resource.bytes, kind, contentType.charset).text;
  if (input.selector !== undefined) {
    throw new ApiError("SELECTOR_NOT_APPLICABLE", { message: `A selector applies to HTML sources only; this source is ${contentType.mediaType || kind}.` });
  }
  if (input.filters?.ignoreSelectors?.length) {
    throw new ApiError("SELECTOR_NOT_APPLICABLE", { message: `ignore_selectors apply to HTML sources only; this source is ${contentType.mediaType || kind}.` });
  }
  const plain = extractPlain(kind, decoded, resource.finalUrl);
  const extraction: Extracted = { ...plain, description: "", language: "" };
  if (input.format !== "markdown") delete extraction.markdown;
  return { contentType: contentType.mediaType, extraction };
}

/**
 * Extraction on this thread, loaded on first use: the parser and turndown cost RSS once
 * evaluated, which a server whose extraction threads do all the parsing should not carry.
 */
const extractInThread: HtmlExtractor = async (input) => (await import("./threads/extract-page.ts")).extractPageSync(input);

/**
 * Source bytes → full read result (spec 2.1 minus request_id): decode, extract, truncate, hash.
 * `read` calls it after the guarded download; `tollbooth read --file` calls it on local bytes.
 */
export async function buildReadResult(
  resource: SourceResource,
  input: ReadInput,
  fetchedAt: string,
  extractor: HtmlExtractor = extractInThread,
): Promise<ReadResult> {
  const { contentType, extraction } = await extract(resource, input, extractor);
  const warnings = [...(resource.warnings ?? []), ...extraction.warnings];
  const keep = input.filters?.lines;
  const { cut } = extraction;
  const text = cut
    ? { value: extraction.text, characters: cut.characters, truncated: cut.truncated }
    : limitText(keep ? keep(extraction.text, "text", input.maxChars) : extraction.text, input.maxChars);
  if (text.truncated) warnings.push(`text was truncated to ${input.maxChars} characters.`);
  if (text.value === "") warnings.push("No text was found on the page.");
  const result: ReadResult = {
    ok: true,
    version: READ_RESULT_VERSION,
    url: input.url,
    final_url: resource.finalUrl,
    fetched_at: fetchedAt,
    source_status: resource.status,
    content_type: contentType,
    // Hashed where the page was extracted when it was HTML: a pool's thread took the bytes.
    source_sha256: extraction.sourceSha256 ?? sha256Hex(resource.bytes),
    title: extraction.title,
    description: extraction.description,
    language: extraction.language,
    text: text.value,
    text_sha256: sha256Hex(text.value),
    characters: text.characters,
    truncated: text.truncated,
    headings: extraction.headings,
    links: extraction.links,
    javascript_rendered: input.render === true,
    warnings,
    content_is_untrusted: true,
  };
  if (input.format === "markdown") {
    const fullMarkdown = extraction.markdown ?? "";
    const markdown = cut
      ? { value: fullMarkdown, truncated: cut.markdownTruncated }
      : limitText(keep ? keep(fullMarkdown, "markdown", input.maxChars) : fullMarkdown, input.maxChars);
    if (markdown.truncated) warnings.push(`markdown was truncated to ${input.maxChars} characters.`);
    result.format = "markdown";
    result.markdown = markdown.value;
    result.markdown_sha256 = sha256Hex(markdown.value);
    result.truncated = text.truncated || markdown.truncated;
  }
  if (input.selector !== undefined) result.selector = input.selector;
  return result;
}

export function createWebEngine(options: WebEngineOptions): WebEngine {
  const maxBytes = options.maxBytes ?? WEB_MAX_BYTES;
  const fetcher = createGuardedFetcher({
    userAgent: options.userAgent,
    allowLoopbackTargets: options.allowLoopbackTargets,
    resolver: options.resolver,
    connector: options.connector ?? createPinnedConnector(),
    headersTimeoutMs: options.headersTimeoutMs ?? 5_000,
    totalTimeoutMs: options.totalTimeoutMs ?? 15_000,
    ...(options.signRequest ? { signRequest: options.signRequest } : {}),
  });
  const robots: RobotsPolicy = createRobotsPolicy({
    agent: options.robotsAgent ?? readProductToken(options.userAgent),
    ttlMs: options.robotsTtlMs,
    loadTimeoutMs: options.totalTimeoutMs,
    load: async (robotsUrl, signal) => {
      const file = await fetcher.fetch(robotsUrl, { maxBytes: ROBOTS_MAX_BYTES, truncateAtMax: true, accept: "text/plain", signal });
      return { status: file.status, body: new TextDecoder("utf-8").decode(file.bytes) };
    },
  });

  async function download(url: string, signal: AbortSignal): Promise<FetchedResource> {
    return fetcher.fetch(url, { maxBytes, robots, accept: HTML_ACCEPT, signal });
  }

  /** The page's URL vetted and allowed by robots.txt, and the check the browser asks for each later navigation. */
  async function admitToBrowser(url: string, signal: AbortSignal): Promise<{ href: string; checkNavigation: NavigationCheck }> {
    const target = await vetTarget(url, { resolver: options.resolver, allowLoopbackTargets: options.allowLoopbackTargets });
    await robots.assertAllowed(target.url, signal);
    return { href: target.url.href, checkNavigation: (next, navigationSignal) => robots.assertAllowed(next, navigationSignal) };
  }

  async function render(url: string, signal: AbortSignal): Promise<FetchedResource & { warnings?: readonly string[] }> {
    if (!options.renderer) throw new ApiError("RENDER_UNAVAILABLE");
    const { href, checkNavigation } = await admitToBrowser(url, signal);
    const page = await options.renderer(href, signal, checkNavigation);
    return {
      url,
      finalUrl: page.finalUrl,
      status: page.status ?? 200,
      headers: { "content-type": "text/html; charset=utf-8" },
      bytes: new TextEncoder().encode(page.html),
      ...(page.warnings?.length ? { warnings: page.warnings } : {}),
    };
  }

  return {
    readPdf: options.readPdf ?? readPdf,

    async read(input, signal) {
      const fetchedAt = new Date().toISOString();
      const resource = input.render ? await render(input.url, signal) : await download(input.url, signal);
      throwForStatus(resource);
      return buildReadResult(resource, input, fetchedAt, options.extractHtml);
    },

    async allowedByRobots(url, signal) {
      try {
        await robots.assertAllowed(new URL(url), signal);
        return true;
      } catch (error) {
        if (error instanceof ApiError && error.code === "ROBOTS_DISALLOWED") return false;
        throw error;
      }
    },

    robotsMatcher: (origin, signal) => robots.matcherFor(origin, signal),
    crawlDelayMs: (url, signal) => robots.crawlDelayMs(new URL(url), signal),

    async screenshot(url, spec, signal) {
      if (!options.screenshotter) throw new ApiError("RENDER_UNAVAILABLE");
      const fetchedAt = new Date().toISOString();
      const { href, checkNavigation } = await admitToBrowser(url, signal);
      return { url, fetchedAt, ...(await options.screenshotter(href, spec, signal, checkNavigation)) };
    },

    async archive(url, spec, signal) {
      if (!options.archiver) throw new ApiError("RENDER_UNAVAILABLE");
      const fetchedAt = new Date().toISOString();
      const { href, checkNavigation } = await admitToBrowser(url, signal);
      return { url, fetchedAt, ...(await options.archiver(href, spec, signal, checkNavigation)) };
    },

    async signArchive(datapackageHash) {
      return options.signArchive?.(datapackageHash);
    },

    async fetchBytes(url, fetchOptions) {
      const fetchedAt = new Date().toISOString();
      const resource = await fetcher.fetch(url, {
        maxBytes: fetchOptions.maxBytes,
        tooLargeCode: fetchOptions.tooLargeCode ?? "PDF_TOO_LARGE",
        robots,
        signal: fetchOptions.signal,
      });
      throwForStatus(resource);
      return {
        url,
        finalUrl: resource.finalUrl,
        fetchedAt,
        status: resource.status,
        contentType: parseContentType(resource.headers["content-type"]).mediaType,
        headers: resource.headers,
        bytes: resource.bytes,
        sha256: sha256Hex(resource.bytes),
      };
    },
  };
}
