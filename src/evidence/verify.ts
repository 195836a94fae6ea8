/**
 * @module evidence/verify — checks a signed evidence result (or each item of a batch) against a
 * JWK Set: the JWS header, the key id, the Ed25519 signature, the statement, the result's fields
 * against the statement's, the hash of the text (and Markdown) in the result, of a web/extract
 * result's extraction (data, evidence, unsupported, partial), of a screenshot's image (and its size and
 * viewport), and of the source bytes when given. `malformed` is anything that is not a signed result at all; `checked` says
 * which part held and the first that did not.
 */
import canonicalize from "canonicalize";
import type { JWK } from "jose";
import { jose } from "./jose-lazy.ts";
import { bytesSha256, type EvidenceStatement, evidenceJwsType, evidenceStatementVersion, extractionFields, extractionSha256, textSha256 } from "./statement.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json-depth.ts";
import { checkWacz } from "./wacz-check.ts";

export interface Check {
  /** header, kid, signature, statement, a field name (url, text_sha256, …), text, markdown, extraction, source; prefixed `results[i].` in a batch. */
  readonly part: string;
  readonly ok: boolean;
  readonly detail: string;
}

export type Verification =
  | { readonly kind: "malformed"; readonly part: string; readonly message: string }
  | {
      readonly kind: "checked";
      readonly valid: boolean;
      readonly checks: readonly Check[];
      /** The first check that failed. */
      readonly failed?: Check;
      /** One statement per signed result (in batch order). */
      readonly statements: readonly EvidenceStatement[];
    };

export interface JwkSet {
  readonly keys: readonly JWK[];
}

/** Fields a result shows that its statement also states: they must be equal. */
const sharedFields = ["url", "final_url", "source_status", "fetched_at", "content_type", "source_sha256", "text_sha256", "markdown_sha256", "image_sha256", "selector", "package_sha256", "wacz_public_key", "version"] as const;

class Malformed extends Error {
  constructor(
    readonly part: string,
    message: string,
  ) {
    super(message);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const decoder = new TextDecoder("utf-8", { fatal: true });

function jsonSegment(segment: string, part: string): Record<string, unknown> {
  let value: unknown;
  try {
    const text = decoder.decode(Buffer.from(segment, "base64url"));
    // The same guard as a posted body's: a part nested thousands deep would exhaust the stack of whatever walks it.
    if (nestsDeeperThan(text)) throw new Malformed(part, `the JWS ${part} nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`);
    value = JSON.parse(text);
  } catch (error) {
    if (error instanceof Malformed) throw error;
    throw new Malformed(part, `the JWS ${part} is not base64url of a JSON object`);
  }
  if (!isObject(value)) throw new Malformed(part, `the JWS ${part} is not a JSON object`);
  return value;
}

/** RFC 8785 JSON of a decoded part, or undefined when it has none (canonicalize refuses lone surrogates: never our statement). */
function canonicalOrUndefined(value: unknown): string | undefined {
  try {
    return canonicalize(value);
  } catch {
    return undefined;
  }
}

interface ItemOutcome {
  readonly checks: Check[];
  readonly statement: EvidenceStatement;
}

async function verifyItem(result: Record<string, unknown>, jwks: JwkSet, prefix: string, source: Uint8Array | undefined): Promise<ItemOutcome> {
  const attestation = result.attestation;
  if (!isObject(attestation) || typeof attestation.jws !== "string" || typeof attestation.kid !== "string") {
    throw new Malformed(`${prefix}attestation`, `${prefix || "the result "}has no attestation {jws, kid} of two strings`);
  }
  const segments = attestation.jws.split(".");
  if (segments.length !== 3 || segments.some((s) => !/^[A-Za-z0-9_-]+$/.test(s))) throw new Malformed(`${prefix}attestation`, "attestation.jws is not a compact JWS (three base64url parts)");
  const header = jsonSegment(segments[0]!, "header");
  const claims = jsonSegment(segments[1]!, "payload");
  const statement = claims as unknown as EvidenceStatement;
  const checks: Check[] = [];
  const check = (part: string, ok: boolean, detail: string) => checks.push({ part: `${prefix}${part}`, ok, detail });

  check("header", header.alg === "EdDSA" && header.typ === evidenceJwsType, `alg ${String(header.alg)}, typ ${String(header.typ)} (want EdDSA, ${evidenceJwsType})`);
  const key = jwks.keys.find((k) => k.kid === header.kid);
  const kidOk = header.kid === attestation.kid && key !== undefined;
  check("kid", kidOk, header.kid !== attestation.kid ? `attestation.kid ${attestation.kid} differs from the JWS header's ${String(header.kid)}` : key ? `key ${attestation.kid} is published` : `no published key has kid ${String(header.kid)}`);
  let signatureOk = false;
  if (kidOk && key.kty === "OKP" && key.crv === "Ed25519") {
    try {
      const { compactVerify, importJWK } = await jose();
      await compactVerify(attestation.jws, await importJWK({ kty: key.kty, crv: key.crv, x: key.x }, "EdDSA"), { algorithms: ["EdDSA"] });
      signatureOk = true;
    } catch {
      signatureOk = false;
    }
  }
  check("signature", signatureOk, signatureOk ? "Ed25519 signature holds" : kidOk ? "the Ed25519 signature does not hold for this key" : "not checked: no key");
  const payloadText = decoder.decode(Buffer.from(segments[1]!, "base64url"));
  const canonical = canonicalOrUndefined(claims) === payloadText;
  check("statement", statement.statement === evidenceStatementVersion && canonical, `statement ${String(statement.statement)}${canonical ? "" : ", not RFC 8785 canonical JSON"}`);
  for (const field of sharedFields) {
    if (result[field] === undefined && statement[field] === undefined) continue;
    if (result[field] === undefined) continue; // the statement may state what the result does not show (a web/fetch source hash)
    check(field, result[field] === statement[field], `result ${JSON.stringify(result[field])}, statement ${JSON.stringify(statement[field])}`);
  }
  if (typeof result.text === "string") {
    const hash = textSha256(result.text);
    check("text", hash === statement.text_sha256, `SHA-256 of the text ${hash}, statement ${String(statement.text_sha256)}`);
  }
  if (typeof result.markdown === "string") {
    const hash = textSha256(result.markdown);
    check("markdown", hash === statement.markdown_sha256, `SHA-256 of the Markdown ${hash}, statement ${String(statement.markdown_sha256)}`);
  }
  // A result that shows an extraction is valid only when the statement signs that very extraction:
  // text signed by a web/read cannot lend its signature to data added beside it.
  if (extractionFields.some((field) => result[field] !== undefined)) {
    const hash = extractionSha256(result);
    const signed = statement.extraction_sha256;
    check("extraction", hash === signed, `SHA-256 of the extraction ${hash}, statement ${signed === undefined ? "signs no extraction" : String(signed)}`);
  }
  checkScreenshot(result, statement, check);
  // A WACZ is checked from the answer's wacz_base64, or from the file given as the source.
  const wacz = typeof result.wacz_base64 === "string" ? new Uint8Array(Buffer.from(result.wacz_base64, "base64")) : statement.format === "wacz" ? source : undefined;
  if (wacz) await checkArchive(wacz, statement, check);
  if (source && statement.format !== "wacz") {
    const hash = bytesSha256(source);
    check("source", hash === statement.source_sha256, `SHA-256 of the source ${hash}, statement ${String(statement.source_sha256)}`);
  }
  return { checks, statement };
}

/**
 * A web/screenshot result: the image it shows must hash to the signed image_sha256 (an image beside a
 * statement that signs none is refused), and its size and viewport must be the signed ones.
 */
function checkScreenshot(result: Record<string, unknown>, statement: EvidenceStatement, check: (part: string, ok: boolean, detail: string) => void): void {
  if (typeof result.image_base64 === "string") {
    const hash = bytesSha256(Buffer.from(result.image_base64, "base64"));
    const signed = statement.image_sha256;
    check("image", hash === signed, `SHA-256 of the image ${hash}, statement ${signed === undefined ? "signs no image" : signed}`);
  }
  if (result.width !== undefined || result.height !== undefined) {
    const signed = statement.image;
    const ok = signed !== undefined && result.width === signed.width && result.height === signed.height;
    check("image_size", ok, `result ${String(result.width)}x${String(result.height)}, statement ${signed ? `${signed.width}x${signed.height}` : "states no image size"}`);
  }
  if (result.viewport !== undefined) {
    const shown = canonicalize(result.viewport);
    const signed = statement.viewport === undefined ? undefined : canonicalize(statement.viewport);
    check("viewport", shown === signed, `result ${String(shown)}, statement ${signed ?? "states no viewport"}`);
  }
}

/**
 * A web/archive package: the file must hash to the signed package_sha256, hold together as a WACZ
 * (wacz-check.ts) and carry the package signature of the P-384 key the statement names.
 */
async function checkArchive(wacz: Uint8Array, statement: EvidenceStatement, check: (part: string, ok: boolean, detail: string) => void): Promise<void> {
  const hash = bytesSha256(wacz);
  const signed = statement.package_sha256;
  check("package", hash === signed, `SHA-256 of the WACZ ${hash}, statement ${signed === undefined ? "signs no package" : signed}`);
  const outcome = await checkWacz(wacz);
  for (const item of outcome.checks) check(item.part, item.ok, item.detail);
  if (outcome.publicKey !== undefined) {
    const named = statement.wacz_public_key;
    check("wacz.key", outcome.publicKey === named, outcome.publicKey === named ? "the package is signed by the key the statement names" : `the package names key ${outcome.publicKey.slice(0, 24)}…, the statement ${named === undefined ? "names none" : `${named.slice(0, 24)}…`}`);
  }
}

/** Verifies a result or a batch of them; `source` is the downloaded bytes of a single result, when the caller has them. */
export async function verifyEvidence(result: unknown, jwks: JwkSet, options: { source?: Uint8Array } = {}): Promise<Verification> {
  try {
    if (!isObject(result)) throw new Malformed("result", "the result is not a JSON object");
    const items: [string, Record<string, unknown>][] = [];
    if (result.batch === true) {
      if (!Array.isArray(result.results)) throw new Malformed("results", "a batch result has no results array");
      if (options.source) throw new Malformed("source", "a source can be checked against a single result only, not a batch");
      result.results.forEach((item, i) => {
        if (!isObject(item)) throw new Malformed(`results[${i}]`, `results[${i}] is not an object`);
        if (item.ok === true) items.push([`results[${i}].`, item]);
      });
      if (items.length === 0) throw new Malformed("results", "the batch holds no successful result to check");
    } else {
      items.push(["", result]);
    }
    const checks: Check[] = [];
    const statements: EvidenceStatement[] = [];
    for (const [prefix, item] of items) {
      const outcome = await verifyItem(item, jwks, prefix, options.source);
      checks.push(...outcome.checks);
      statements.push(outcome.statement);
    }
    const failed = checks.find((c) => !c.ok);
    return { kind: "checked", valid: failed === undefined, checks, ...(failed ? { failed } : {}), statements };
  } catch (error) {
    if (error instanceof Malformed) return { kind: "malformed", part: error.part, message: error.message };
    throw error;
  }
}
