/**
 * @module errors — the one table of public error codes and the error class every layer throws.
 *
 * Callers always receive `{ ok: false, error: CODE, status, message }` (plus `request_id`).
 * Codes are stable: add new ones, never rename. `/openapi.json` lists this table.
 */

import { moduleErrorCodes } from "./module-errors.generated.ts";

export interface ErrorSpec {
  readonly status: number;
  /** Default message; a thrower may give a more specific one. */
  readonly message: string;
  /** Whether the caller may be charged when this error ends a call (always false: failed work is never settled). */
  readonly settled?: false;
}

/** The codes of the core; each feature module brings its own (src/<id>/errors.ts, merged below). */
const coreErrorCodes = {
  // ── request contract (foundation) ─────────────────────────────────────────
  INVALID_REQUEST: { status: 400, message: "The request body or parameters are invalid." },
  INVALID_JSON: { status: 400, message: "The request body is not valid JSON." },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "Send the request body as application/json." },
  BODY_TOO_LARGE: { status: 413, message: "The request body is larger than 1 MiB." },
  NOT_FOUND: { status: 404, message: "No such route." },
  METHOD_NOT_ALLOWED: { status: 405, message: "This route does not accept that method." },
  INTERNAL_ERROR: { status: 500, message: "An internal error occurred; nothing was charged." },
  SERVICE_PAUSED: { status: 503, message: "The service is not open for work; nothing was charged." },
  OPERATION_TIMEOUT: { status: 504, message: "The operation ran past its timeout; nothing was charged." },
  CLIENT_CLOSED: { status: 499, message: "The caller closed the connection; nothing was charged." },

  // ── web engine (fetch, robots, decode, extract) ───────────────────────────
  URL_NOT_ALLOWED: { status: 400, message: "The URL must be public http(s) on port 80 or 443, without credentials, at most 2048 characters." },
  TARGET_NOT_PUBLIC: { status: 422, message: "The target host does not resolve to a public IPv4 address." },
  DNS_FAILED: { status: 502, message: "The target host name could not be resolved." },
  ROBOTS_DISALLOWED: { status: 422, message: "robots.txt of the source does not allow this URL for our user agent." },
  TOO_MANY_REDIRECTS: { status: 422, message: "The source redirected more than 4 times." },
  SOURCE_TOO_LARGE: { status: 422, message: "The source is larger than the size limit." },
  SOURCE_ERROR_STATUS: { status: 422, message: "The source answered with a non-2xx status." },
  UNSUPPORTED_CONTENT_TYPE: { status: 422, message: "The source's content type is not supported (HTML, plain text, Markdown, CSV or JSON)." },
  PDF_NOT_SUPPORTED_HERE: { status: 422, message: "The source is a PDF: use POST /v1/pdf/read." },
  BOT_CHALLENGE: { status: 422, message: "The source answered with a bot challenge or CAPTCHA instead of content." },
  CONTENT_TOO_COMPLEX: { status: 422, message: "The page's markup is nested too deeply to extract." },
  SELECTOR_NOT_FOUND: { status: 422, message: "The CSS selector matched no element." },
  SELECTOR_INVALID: { status: 400, message: "The CSS selector is not valid." },
  SELECTOR_NOT_APPLICABLE: { status: 422, message: "A selector applies to HTML sources only." },
  SOURCE_UNREACHABLE: { status: 502, message: "The source could not be reached." },
  SOURCE_TIMEOUT: { status: 504, message: "The source did not answer in time." },
  RENDER_UNAVAILABLE: { status: 503, message: "JavaScript rendering is not available on this server." },
  RENDER_TIMEOUT: { status: 504, message: "The page did not finish rendering in time." },
  RENDER_FAILED: { status: 502, message: "The browser failed while rendering the page (it crashed or was restarted); nothing was charged." },
  AT_CAPACITY: { status: 503, message: "The server is at capacity; retry later." },

  BATCH_FAILED: { status: 422, message: "Every URL of the batch failed; see results. Nothing was charged." },

  // ── web/search ────────────────────────────────────────────────────────────
  SEARCH_ENGINE_FAILED: { status: 502, message: "The search engine failed (it answered an error status or something that is not its JSON); nothing was charged." },
  SEARCH_ENGINE_TIMEOUT: { status: 504, message: "The search engine did not answer in time; nothing was charged." },
  SEARCH_NO_RESULTS: { status: 404, message: "The search found nothing; nothing was charged." },
  SEARCH_READS_FAILED: { status: 422, message: "The search found results but none of them could be read; nothing was charged." },

  // ── web/map ───────────────────────────────────────────────────────────────
  SITEMAP_TOO_LARGE: { status: 422, message: "A sitemap is over sitemaps.org's limits (50 MiB uncompressed, 50,000 URLs), or its gzip inflates past them; nothing was charged." },
  SITEMAP_XML_REFUSED: { status: 422, message: "A sitemap or feed declares a DOCTYPE or entities, which no sitemap needs; refused, nothing was charged." },
  MAP_NO_URLS: { status: 404, message: "No URL of the site was found; nothing was charged." },
  WEBHOOK_NOT_ALLOWED: { status: 400, message: "The webhook URL must be public http(s) on port 80 or 443, without credentials; nothing was charged." },
  CRAWL_NOT_FOUND: { status: 404, message: "No such crawl: the id is wrong, or the crawl expired and was deleted with its pages." },
  CRAWL_NO_PAGES: { status: 422, message: "Not one page of the site could be read." },
  CRAWL_ACCESS_DENIED: { status: 403, message: "Only the payer of this crawl may read or cancel it: the proof is another wallet's." },
  PAYER_PROOF_REQUIRED: { status: 401, message: "Prove you are the payer: send a Sign-In-With-X proof (x402's SIWX, CAIP-122) signed by the paying wallet for this resource; details.challenge has the fields to sign." },
  PAYER_PROOF_INVALID: { status: 401, message: "The payer's proof was refused (malformed, bad signature, expired, for another resource or network, or used already)." },
  SITEMAP_INVALID: { status: 422, message: "A sitemap could not be read (broken gzip); nothing was charged." },

  // ── changes and PDF ───────────────────────────────────────────────────────
  BASELINE_MISMATCH: { status: 400, message: "previous_text does not hash to previous_sha256." },
  PATTERN_INVALID: { status: 400, message: "A line pattern (ignore_patterns or trigger_patterns) is not valid RE2 syntax, matches the empty line, or is over the limits." },
  PDF_TOO_LARGE: { status: 422, message: "The PDF is larger than 5 MiB." },
  SCREENSHOT_TOO_LARGE: { status: 422, message: "The screenshot image is larger than 5 MiB; nothing was charged." },
  ARCHIVE_TOO_LARGE: { status: 422, message: "The page's own document does not fit the archive's byte cap (max_bytes); nothing was charged." },
  PDF_TOO_MANY_PAGES: { status: 422, message: "The PDF has more than 20 pages." },
  NOT_A_PDF: { status: 422, message: "The source is not a PDF file." },
  PDF_UNREADABLE: { status: 422, message: "The PDF is damaged beyond repair." },
  PDF_ENCRYPTED: { status: 422, message: "The PDF is password-protected." },
  PDF_NO_TEXT: { status: 422, message: "The PDF has no embedded text on any page (image-only; OCR is not offered)." },

  // ── payments (x402 v2) ────────────────────────────────────────────────────
  PAYMENT_REQUIRED: { status: 402, message: "Payment required: read the PAYMENT-REQUIRED header." },
  PAYMENT_INVALID: { status: 402, message: "The payment was not accepted: read the error in PAYMENT-REQUIRED." },
  PAYMENT_HEADER_INVALID: { status: 400, message: "The PAYMENT-SIGNATURE header is not valid base64 JSON of an x402 v2 PaymentPayload." },
  PAYMENT_VERSION_UNSUPPORTED: { status: 400, message: "This server speaks x402 version 2: send the PAYMENT-SIGNATURE header, not X-PAYMENT." },
  SETTLEMENT_FAILED: { status: 402, message: "Settlement failed; the result is withheld and nothing was charged." },
  SETTLEMENT_PENDING: { status: 504, message: "Settlement was sent but not confirmed in time; check the transaction before paying again." },
  PAYMENT_NOT_FOUND: { status: 404, message: "No payment is known under that id." },
  PAYMENT_IN_FLIGHT: { status: 409, message: "This payment is already in use by a request in progress; wait for that response." },
  PAYMENT_ID_INVALID: { status: 400, message: "The payment-identifier id must be 16-128 characters of A-Z, a-z, 0-9, \"_\" and \"-\"." },
  PAYMENT_ID_CONFLICT: { status: 409, message: "This payment identifier was already used for a different call (payer, operation or body); use a new identifier. Nothing was charged." },
  PAYMENT_RESULT_NOT_HELD: { status: 409, message: "This payment identifier was already paid and settled (see PAYMENT-RESPONSE), but its result is no longer held. Nothing was charged for this request." },

  // ── jobs ──────────────────────────────────────────────────────────────────
  UNKNOWN_SKILL: { status: 400, message: "No such skill." },
  JOB_NOT_FOUND: { status: 404, message: "No such job (it may have expired)." },
  RATE_LIMITED: { status: 429, message: "Too many requests; retry after the time in Retry-After." },
  QUEUE_FULL: { status: 503, message: "The job queue is full; retry after the time in Retry-After." },
  IDEMPOTENCY_KEY_REUSED: { status: 422, message: "This Idempotency-Key was used with a different body." },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, message: "A request with this Idempotency-Key is still being accepted." },
  POLICY_REJECTED: { status: 400, message: "The request was refused by policy; nothing was run or charged." },
  JOB_TIMEOUT: { status: 504, message: "The job ran past its timeout." },
  JOB_INTERRUPTED: { status: 500, message: "The server stopped while the job was running; nothing was charged or a refund is recorded." },
  PROMPT_TOO_LONG: { status: 400, message: "The prompt is longer than max_prompt_chars; nothing was run or charged." },
  SKILL_UNAVAILABLE: { status: 503, message: "This skill cannot run on this server right now (for example, no language model is configured); nothing was charged." },

  // ── hostile and malformed requests (issue 15) ─────────────────────────────
  INVALID_HOST: { status: 400, message: "The Host header is missing or is not a valid host[:port], or the request target is not a path." },
  JSON_TOO_DEEP: { status: 400, message: "The request body nests arrays and objects more than 64 levels deep." },
  REQUEST_TIMEOUT: { status: 408, message: "The request (headers and body) did not arrive within the server's deadline; nothing was charged." },
  HOST_NOT_ALLOWED: { status: 403, message: "The agent doors (/mcp, /a2a) answer only the hosts configured (--public-url, --host, --allowed-hosts); nothing was run." },
  ORIGIN_NOT_ALLOWED: { status: 403, message: "The agent doors (/mcp, /a2a) answer only pages from the hosts configured (--public-url, --host, --allowed-hosts) and clients that send no Origin; nothing was run." },
  HEADERS_TOO_LARGE: { status: 431, message: "The request headers are larger than the server accepts." },

  // ── model skills (llm) ────────────────────────────────────────────────────
  POLICY_REFUSED: { status: 400, message: "The request was refused by the policy gate (malware or abuse tooling, host secrets or other tenants' data, unbounded scraping, illegal content); nothing was priced, run or charged." },
  MODEL_ERROR: { status: 502, message: "The language model provider failed or did not answer in time; nothing was charged." },
  MODEL_REFUSED: { status: 422, message: "The language model refused the request; nothing was charged." },
  EXTRACT_SCHEMA_INVALID: { status: 400, message: "The schema is outside what web/extract supports (an object at the top, at most 50 properties, 4 levels, the supported keywords); see message. Nothing was priced or charged." },
  EXTRACT_NOTHING_SUPPORTED: { status: 422, message: "No value of the schema could be tied to a quote from the page (every value is null); nothing was charged." },
  MODEL_OUTPUT_INVALID: { status: 502, message: "The language model's answer did not have the required form (JSON or schema), even after one repair; nothing was charged." },

  // ── admin listener (operator dashboard and /metrics; never on the public port) ──
  ADMIN_UNAUTHORIZED: { status: 401, message: "The admin listener needs its token: Authorization: Bearer <admin token>." },
  ADMIN_FORBIDDEN: { status: 403, message: "The admin listener refuses requests from another origin or host name." },
} as const satisfies Record<string, ErrorSpec>;

for (const code of Object.keys(moduleErrorCodes)) {
  if (code in coreErrorCodes) throw new Error(`error code ${code} is declared by the core and by a module`);
}

export const errorCodes = { ...coreErrorCodes, ...moduleErrorCodes } as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof errorCodes;

export interface ErrorBody {
  ok: false;
  error: ErrorCode;
  status: number;
  message: string;
  request_id?: string;
  [extra: string]: unknown;
}

/** Thrown anywhere; the HTTP layer turns it into an ErrorBody. `cause` is logged, never sent. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra public fields merged into the body (e.g. `source_status`, `skills`). */
  readonly details: Record<string, unknown> | undefined;
  /** Extra response headers (e.g. `Retry-After`). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    options: { message?: string; details?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(options.message ?? errorCodes[code].message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ApiError";
    this.code = code;
    this.status = errorCodes[code].status;
    this.details = options.details;
    this.headers = options.headers;
  }

  toBody(requestId?: string): ErrorBody {
    return {
      ok: false,
      error: this.code,
      status: this.status,
      message: this.message,
      ...(this.details ?? {}),
      ...(requestId ? { request_id: requestId } : {}),
    };
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/** Any thrown value as an ApiError; unknown failures become INTERNAL_ERROR without leaking their text. */
export function toApiError(value: unknown): ApiError {
  if (isApiError(value)) return value;
  return new ApiError("INTERNAL_ERROR", { cause: value });
}
