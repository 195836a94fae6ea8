/**
 * @module evidence/statement — what a signed evidence result states: the facts of the source
 * and of the returned text (noted by the web layer when it builds a result), the server that
 * sold it and the payment that paid for it (known only after settlement). Signed as RFC 8785
 * canonical JSON.
 *
 * Room evidence/: signing keys, the signed statement, its verification and the CLI faces of
 * both; it imports nothing of web/ or http/ (they call it).
 */
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

/** Where a server publishes its evidence keys (a JWK Set), and where it checks a posted result. */
export const jwksPath = "/.well-known/jwks.json";
export const evidenceVerifyPath = "/v1/evidence/verify";

/** The JWS `typ` of every attestation. */
export const evidenceJwsType = "tollbooth-evidence+jws";
/** The statement's own format; a verifier refuses others. */
export const evidenceStatementVersion = "tollbooth-evidence/1";

/** What the web layer knows of one successful result when it builds it. */
export interface SourceFacts {
  readonly url: string;
  readonly final_url: string;
  readonly source_status: number;
  readonly fetched_at: string;
  readonly content_type: string;
  /** SHA-256 of the downloaded bytes, lowercase hex (absent in a screenshot's statement). */
  readonly source_sha256?: string;
  /** SHA-256 of the returned text (well-formed UTF-8), lowercase hex (absent in a screenshot's statement). */
  readonly text_sha256?: string;
  /** With format markdown: SHA-256 of the returned Markdown. */
  readonly markdown_sha256?: string;
  /** web/extract: SHA-256 of the canonical JSON of the extraction (extractionSha256). */
  readonly extraction_sha256?: string;
  readonly format: "text" | "markdown" | "pdf-text" | "screenshot" | "wacz";
  /** web/archive: SHA-256 of the WACZ file's bytes, lowercase hex. */
  readonly package_sha256?: string;
  /** web/archive: the ECDSA P-384 public key (SPKI, base64) whose signature the WACZ's datapackage-digest.json carries. */
  readonly wacz_public_key?: string;
  /** web/screenshot: SHA-256 of the image bytes, lowercase hex. */
  readonly image_sha256?: string;
  /** web/screenshot: the image's media type and pixel size. */
  readonly image?: { readonly content_type: string; readonly width: number; readonly height: number };
  /** web/screenshot: the viewport the page was laid out in, and what was captured. */
  readonly viewport?: ScreenshotViewport;
  readonly selector?: string;
  /** The extraction's result version, e.g. `web-read/1`. */
  readonly version: string;
}

/** The viewport a screenshot's page was laid out in (CSS pixels), and whether the full page was captured. */
export interface ScreenshotViewport {
  readonly width: number;
  readonly height: number;
  readonly device_scale_factor: number;
  readonly full_page: boolean;
}

/** The signed statement: the source facts, who sold it, when, and the payment when paid. */
export interface EvidenceStatement extends SourceFacts {
  readonly statement: typeof evidenceStatementVersion;
  /** The server's public base URL (its JWKS is at /.well-known/jwks.json under it). */
  readonly server: string;
  readonly issued_at: string;
  /**
   * The settled payment; null when the call was not paid (payments off). `resource` and `request_id`
   * (added in place, statement version unchanged: older statements lack them) are the resource URL and
   * request id that the signed x402 receipt of the same payment (offer-receipt extension) names.
   */
  readonly payment: { readonly network: string | null; readonly transaction: string | null; readonly resource?: string; readonly request_id?: string } | null;
}

export type { Attestation } from "./attestation-schema.ts";

/** RFC 8785 canonical JSON of a statement: the exact bytes signed. */
export function canonicalStatement(statement: EvidenceStatement): string {
  const text = canonicalize(statement);
  if (text === undefined) throw new TypeError("the evidence statement cannot be serialized");
  return text;
}

/** SHA-256 of text as a client receives it (lone surrogates as U+FFFD), lowercase hex. */
export function textSha256(text: string): string {
  return createHash("sha256").update((text as unknown as { toWellFormed(): string }).toWellFormed(), "utf8").digest("hex");
}

/** The parts of a web/extract result its extraction_sha256 covers. */
export const extractionFields = ["data", "evidence", "unsupported", "partial"] as const;

const wellFormed = (text: string): string => (text as unknown as { toWellFormed(): string }).toWellFormed();

/** The value as a client parses it from our JSON, strings (and keys) well-formed: canonicalize refuses lone surrogates. */
function wellFormedJson(value: unknown): unknown {
  if (typeof value === "string") return wellFormed(value);
  if (Array.isArray(value)) return value.map(wellFormedJson);
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [wellFormed(key), wellFormedJson(item)]));
  return value;
}

/**
 * SHA-256 (lowercase hex) of the RFC 8785 canonical JSON of `{data, evidence, unsupported, partial}`
 * taken from a web/extract result, strings as well-formed UTF-8 (lone surrogates as U+FFFD, as the
 * text hash): a signed extraction cannot have a value or a quote changed after signing.
 */
export function extractionSha256(result: Readonly<Record<string, unknown>>): string {
  const text = canonicalize(wellFormedJson(Object.fromEntries(extractionFields.map((field) => [field, result[field]]))));
  if (text === undefined) throw new TypeError("the extraction cannot be serialized");
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function bytesSha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
