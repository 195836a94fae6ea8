/**
 * @module web/fetch/decode — media type of a download and its text, decoded the way browsers do
 * (WHATWG Encoding: BOM, then the Content-Type charset, then <meta> for HTML, then UTF-8 when
 * the bytes are valid UTF-8, else windows-1252).
 *
 * TextDecoder implements the WHATWG label table and, measured on Bun 1.4.5, decodes
 * windows-1252, ISO-8859-x, Shift_JIS, EUC-JP, GBK, GB18030, Big5, EUC-KR, KOI8-R and UTF-16
 * correctly; iconv-lite answers the labels TextDecoder does not know.
 */
import iconv from "iconv-lite";

export type SourceKind = "html" | "text" | "markdown" | "csv" | "json" | "pdf" | "unsupported";

export interface ContentType {
  /** Lowercase essence, e.g. "text/html"; "" when the header is missing. */
  mediaType: string;
  charset: string | undefined;
}

export function parseContentType(header: string | undefined): ContentType {
  if (!header) return { mediaType: "", charset: undefined };
  const [essence = "", ...params] = header.split(";");
  let charset: string | undefined;
  for (const param of params) {
    const match = /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(param);
    if (match?.[1]) charset = match[1].toLowerCase();
  }
  return { mediaType: essence.trim().toLowerCase(), charset };
}

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // "%PDF-"

function startsWithPdfMagic(bytes: Uint8Array): boolean {
  // PDF readers accept the header anywhere in the first 1024 bytes.
  const head = bytes.subarray(0, 1024);
  outer: for (let i = 0; i + PDF_MAGIC.length <= head.length; i++) {
    for (let j = 0; j < PDF_MAGIC.length; j++) if (head[i + j] !== PDF_MAGIC[j]) continue outer;
    return true;
  }
  return false;
}

function kindFromExtension(pathname: string): SourceKind | undefined {
  const ext = /\.([a-z0-9]+)$/i.exec(pathname)?.[1]?.toLowerCase();
  switch (ext) {
    case "html":
    case "htm":
    case "xhtml":
      return "html";
    case "txt":
      return "text";
    case "md":
    case "markdown":
      return "markdown";
    case "csv":
      return "csv";
    case "json":
      return "json";
    case "pdf":
      return "pdf";
    default:
      return undefined;
  }
}

function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024)).trimStart().toLowerCase();
  return /^(\ufeff|ï»¿)?\s*(<!doctype html|<html|<head|<body|<!--|<meta|<title|<p\b|<div\b)/.test(head);
}

/** What the download is. A PDF is recognised by its bytes even under a wrong Content-Type. */
export function classifySource(contentType: ContentType, bytes: Uint8Array, url: URL): SourceKind {
  if (contentType.mediaType === "application/pdf" || startsWithPdfMagic(bytes)) return "pdf";
  switch (contentType.mediaType) {
    case "text/html":
    case "application/xhtml+xml":
      return "html";
    case "text/plain":
      return kindFromExtension(url.pathname) === "markdown" ? "markdown" : "text";
    case "text/markdown":
    case "text/x-markdown":
      return "markdown";
    case "text/csv":
    case "application/csv":
    case "text/comma-separated-values":
      return "csv";
    case "application/json":
    case "text/json":
      return "json";
    case "":
    case "application/octet-stream":
    case "binary/octet-stream": {
      const byExtension = kindFromExtension(url.pathname);
      if (byExtension) return byExtension;
      return looksLikeHtml(bytes) ? "html" : "unsupported";
    }
    default:
      return contentType.mediaType.endsWith("+json") ? "json" : "unsupported";
  }
}

function sniffBom(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  return undefined;
}

/** The charset a <meta> in the first 4 KiB declares (WHATWG prescan, simplified). */
export function sniffMetaCharset(bytes: Uint8Array): string | undefined {
  const head = new TextDecoder("windows-1252").decode(bytes.subarray(0, 4096));
  for (const meta of head.matchAll(/<meta\b[^>]*>/gi)) {
    const match = /charset\s*=\s*["']?\s*([a-z0-9_:.+-]+)/i.exec(meta[0]);
    if (match?.[1]) return match[1].toLowerCase();
  }
  return undefined;
}

/** The bytes as UTF-8 when they are valid UTF-8 (decoded once: checking first and decoding again read a page twice). */
function strictUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** WHATWG canonical name for a label, or undefined when TextDecoder does not know it. */
function canonicalEncoding(label: string): string | undefined {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return undefined;
  }
}

export interface DecodedText {
  text: string;
  /** The encoding used (WHATWG name, or the iconv-lite label). */
  encoding: string;
}

/** Decodes downloaded bytes to a string; never throws (unknown labels fall back as browsers do). */
export function decodeText(bytes: Uint8Array, kind: SourceKind, headerCharset: string | undefined): DecodedText {
  const candidates = [sniffBom(bytes), headerCharset, kind === "html" ? sniffMetaCharset(bytes) : undefined];
  for (const label of candidates) {
    if (!label) continue;
    let encoding = canonicalEncoding(label);
    // WHATWG: a <meta> or header claiming UTF-16 on ASCII-compatible bytes means UTF-8.
    if (encoding?.startsWith("utf-16") && label !== candidates[0]) encoding = "utf-8";
    if (encoding && encoding !== "replacement") return { text: new TextDecoder(encoding).decode(bytes), encoding };
    if (iconv.encodingExists(label)) return { text: iconv.decode(Buffer.from(bytes), label), encoding: label };
  }
  if (kind === "json") return { text: new TextDecoder("utf-8").decode(bytes), encoding: "utf-8" };
  const utf8 = strictUtf8(bytes);
  if (utf8 !== undefined) return { text: utf8, encoding: "utf-8" };
  return { text: new TextDecoder("windows-1252").decode(bytes), encoding: "windows-1252" };
}
