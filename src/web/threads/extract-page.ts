/**
 * @module web/threads/extract-page — one downloaded HTML page, as its bytes, to its extraction: decoded (charset),
 * checked for a bot challenge, hashed, extracted, and its text and Markdown cut to max_chars. An extraction thread
 * runs it on the bytes the server's thread hands over (transferred, not copied), so the page itself, as bytes, as
 * a decoded string and as the copy a message makes of a string, never stays on the server's thread: only the
 * cut result comes back. The engine runs the same function in-thread when there is no pool, so both give the
 * same answer.
 *
 * Why: a ~600 KB read took the server's thread ~3 MiB of garbage between collections (the body, the decoded
 * string, the message's copy, then the whole text and Markdown coming back before the cut), which is what the
 * soak's peak and idle RSS held (docs/benchmarks.md, issue 41).
 */
import { ApiError } from "../../errors.ts";
import { isBotChallenge } from "../fetch/challenge.ts";
import { decodeText } from "../fetch/decode.ts";
import { type ExtractHtmlInput, extractHtmlSync, type HtmlExtraction } from "../extract/extract.ts";
import { limitText, sha256Hex } from "../text/text-output.ts";

/** The page as the source sent it. */
export interface PageSource {
  /** The decoded body (content-encoding undone), not yet decoded to text. */
  bytes: Uint8Array;
  /** The Content-Type header's charset, if any. */
  charset?: string;
  status: number;
  /** Lowercase names (the bot-challenge check reads a few). */
  headers: Record<string, string>;
}

/** A page to extract: its HTML already decoded (`html`), or its bytes (`source`), decoded where it is extracted. */
export type ExtractPageInput = Omit<ExtractHtmlInput, "html" | "blockJudge" | "markdownMaxChars"> & {
  /**
   * Cut text and Markdown to this many code points where the page is extracted (limitText): only the cut
   * crosses back. Absent when the caller filters the whole text first (web/changes' ignore_patterns).
   */
  maxChars?: number;
} & ({ html: string; source?: undefined } | { source: PageSource; html?: undefined });

export interface PageExtraction extends HtmlExtraction {
  /** With `source`: SHA-256 of its bytes (the read result's source_sha256). */
  sourceSha256?: string;
  /** With `maxChars`: text and Markdown are already cut; text's code points and whether each was cut. */
  cut?: { characters: number; truncated: boolean; markdownTruncated: boolean };
}

/** What a page weighs before it is decoded: its characters, or its bytes (about as many for most pages). */
export function pageSize(input: ExtractPageInput): number {
  return input.html !== undefined ? input.html.length : input.source.bytes.byteLength;
}

/** Decode (when given bytes), refuse a bot challenge, extract, cut. Throws ApiError (BOT_CHALLENGE, CONTENT_TOO_COMPLEX, …). */
export function extractPageSync(input: ExtractPageInput): PageExtraction {
  const { source, maxChars, html: given, ...options } = input;
  let html = given;
  let sourceSha256: string | undefined;
  if (source !== undefined) {
    html = decodeText(source.bytes, "html", source.charset).text;
    if (isBotChallenge({ status: source.status, headers: source.headers, html })) throw new ApiError("BOT_CHALLENGE");
    sourceSha256 = sha256Hex(source.bytes);
  }
  const extraction: PageExtraction = extractHtmlSync({ ...options, html: html as string, ...(maxChars !== undefined ? { markdownMaxChars: maxChars } : {}) });
  if (sourceSha256 !== undefined) extraction.sourceSha256 = sourceSha256;
  if (maxChars === undefined) return extraction;
  const text = limitText(extraction.text, maxChars);
  extraction.text = text.value;
  let markdownTruncated = false;
  if (extraction.markdown !== undefined) {
    const markdown = limitText(extraction.markdown, maxChars);
    extraction.markdown = markdown.value;
    markdownTruncated = markdown.truncated;
  }
  extraction.cut = { characters: text.characters, truncated: text.truncated, markdownTruncated };
  return extraction;
}
