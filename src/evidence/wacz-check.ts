/**
 * @module evidence/wacz-check — checks a WACZ file as "WACZ Signing and Verification" says: every file
 * datapackage.json lists is there with its SHA-256 and size (and nothing unlisted beside them),
 * datapackage-digest.json holds datapackage.json's hash, and its signedData's ECDSA signature of that
 * hash holds for the public key it names. Whose key it is, the evidence statement says (verify.ts).
 */
import { createHash } from "node:crypto";
import { unzipSync } from "fflate";
import { verifyWaczSignedData, type WaczSignedData } from "./wacz-signing.ts";

export interface WaczCheckOutcome {
  checks: { part: string; ok: boolean; detail: string }[];
  /** The public key datapackage-digest.json's signedData names, when it names one. */
  publicKey?: string;
}

/** Files inflated at most while checking (a hostile file given to `tollbooth verify` stays bounded). */
const MAX_INFLATED_BYTES = 512 * 1024 * 1024;
const PACKAGE_FILES = new Set(["datapackage.json", "datapackage-digest.json"]);

const sha256 = (bytes: Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function parseJson(bytes: Uint8Array | undefined): unknown {
  if (!bytes) return undefined;
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
}

export async function checkWacz(bytes: Uint8Array): Promise<WaczCheckOutcome> {
  const checks: WaczCheckOutcome["checks"] = [];
  const check = (part: string, ok: boolean, detail: string) => checks.push({ part: `wacz.${part}`, ok, detail });
  let files: Record<string, Uint8Array>;
  try {
    let inflated = 0;
    files = unzipSync(bytes, { filter: (file) => (inflated += file.originalSize) <= MAX_INFLATED_BYTES });
  } catch (error) {
    check("zip", false, `not a readable zip: ${(error as Error).message}`);
    return { checks };
  }
  const datapackage = parseJson(files["datapackage.json"]);
  if (!isObject(datapackage) || !Array.isArray(datapackage.resources)) {
    check("datapackage", false, "datapackage.json is missing or has no resources list");
    return { checks };
  }
  const listed = new Set<string>();
  for (const resource of datapackage.resources) {
    const path = isObject(resource) && typeof resource.path === "string" ? resource.path : "?";
    listed.add(path);
    const file = files[path];
    const ok = file !== undefined && isObject(resource) && resource.hash === sha256(file) && resource.bytes === file.length;
    check(`files.${path}`, ok, file === undefined ? "listed but missing" : `SHA-256 ${sha256(file)}, ${file.length} bytes; datapackage.json says ${String((resource as { hash?: unknown }).hash)}, ${String((resource as { bytes?: unknown }).bytes)} bytes`);
  }
  const unlisted = Object.keys(files).filter((path) => !listed.has(path) && !PACKAGE_FILES.has(path));
  check("files", unlisted.length === 0, unlisted.length === 0 ? `${listed.size} files, each listed` : `not listed in datapackage.json: ${unlisted.join(", ")}`);
  const digest = parseJson(files["datapackage-digest.json"]);
  const packageHash = sha256(files["datapackage.json"]!);
  if (!isObject(digest)) {
    check("digest", false, "datapackage-digest.json is missing or not JSON");
    return { checks };
  }
  check("digest", digest.path === "datapackage.json" && digest.hash === packageHash, `datapackage.json hashes to ${packageHash}; datapackage-digest.json says ${String(digest.hash)}`);
  const signed = isObject(digest.signedData) ? (digest.signedData as Partial<WaczSignedData>) : undefined;
  if (!signed) {
    check("signature", false, "datapackage-digest.json carries no signedData");
    return { checks };
  }
  const valid = signed.hash === packageHash && (await verifyWaczSignedData(signed));
  check("signature", valid, valid ? "the ECDSA P-384 signature of the package hash holds for its public key" : "the package signature does not hold (or signs another hash)");
  return { checks, ...(typeof signed.publicKey === "string" ? { publicKey: signed.publicKey } : {}) };
}
