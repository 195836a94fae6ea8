/**
 * @module evidence/verify-cli — `tollbooth verify FILE [--jwks FILE|URL] [--source FILE]`: checks
 * a saved evidence result offline (with a JWKS file) or against the keys its server publishes.
 * Exit 0 only when every check holds; 1 when one fails (named); 2 when the input cannot be read.
 */
import { readFileSync } from "node:fs";
import { verifyEvidence, type JwkSet } from "./verify.ts";

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`cannot read ${what} ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${what} ${path} is not JSON: ${(error as Error).message}`);
  }
}

/** The server a result's (first) statement names, read without trusting it, to find its keys. */
/** What `tollbooth buy` prints holds the seller's answer under `result` (beside `paid` and `receipt`): that answer is checked. */
function sellerAnswerIn(saved: unknown): unknown {
  return isObject(saved) && "paid" in saved && "receipt" in saved && isObject(saved.result) ? saved.result : saved;
}

function serverNamedIn(result: unknown): string | undefined {
  const first = isObject(result) && result.batch === true && Array.isArray(result.results) ? result.results.find((r) => isObject(r) && r.ok === true) : result;
  const jws = isObject(first) && isObject(first.attestation) ? first.attestation.jws : undefined;
  if (typeof jws !== "string") return undefined;
  try {
    const claims = JSON.parse(Buffer.from(jws.split(".")[1] ?? "", "base64url").toString("utf8")) as { server?: unknown };
    return typeof claims.server === "string" ? claims.server : undefined;
  } catch {
    return undefined;
  }
}

async function loadJwks(where: string): Promise<JwkSet> {
  let value: unknown;
  if (/^https?:\/\//i.test(where)) {
    const response = await fetch(where, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(15_000) });
    if (!response.ok) throw new Error(`${where} answered HTTP ${response.status}`);
    value = await response.json().catch(() => {
      throw new Error(`${where} did not answer JSON`);
    });
  } else {
    value = readJson(where, "JWKS file");
  }
  if (!isObject(value) || !Array.isArray(value.keys) || !value.keys.every(isObject)) throw new Error(`${where} is not a JWK Set ({"keys": [...]})`);
  return value as unknown as JwkSet;
}

export interface VerifyCliOptions {
  readonly file: string | undefined;
  readonly jwks: string | undefined;
  readonly source: string | undefined;
}

export async function verifyForCli({ file, jwks: jwksFlag, source: sourceFlag }: VerifyCliOptions): Promise<number> {
  if (!file) {
    console.error("usage: tollbooth verify FILE [--jwks FILE|URL] [--source FILE]");
    return 2;
  }
  let result: unknown;
  let jwks: JwkSet;
  let source: Uint8Array | undefined;
  try {
    const saved = sellerAnswerIn(readJson(file, "result file"));
    const { source_base64: sourceBase64, ...rest } = isObject(saved) ? saved : { source_base64: undefined };
    result = isObject(saved) ? rest : saved;
    if (sourceFlag) source = new Uint8Array(readFileSync(sourceFlag));
    else if (typeof sourceBase64 === "string") source = new Uint8Array(Buffer.from(sourceBase64, "base64"));
    let where = jwksFlag;
    if (!where) {
      const server = serverNamedIn(result);
      if (!server) throw new Error(`${file} holds no attestation naming its server; give --jwks FILE|URL`);
      where = new URL("/.well-known/jwks.json", server).toString();
      console.log(`keys: ${where} (named by the statement itself; pass --jwks to pin them)`);
    }
    jwks = await loadJwks(where);
  } catch (error) {
    console.error(`tollbooth verify: ${(error as Error).message}`);
    return 2;
  }
  const outcome = await verifyEvidence(result, jwks, source ? { source } : {});
  if (outcome.kind === "malformed") {
    console.log(`FAILED ${outcome.part}: ${outcome.message}`);
    return 1;
  }
  for (const check of outcome.checks) console.log(`${check.ok ? "ok    " : "FAILED"} ${check.part}: ${check.detail}`);
  if (!source && !outcome.statements.some((statement) => statement.format === "wacz")) console.log("source: not checked (no --source FILE and no source_base64 in the file)");
  if (outcome.failed) {
    console.log(`INVALID: ${outcome.failed.part} does not hold`);
    return 1;
  }
  console.log(`VALID: ${outcome.statements.length} signed result${outcome.statements.length === 1 ? "" : "s"}, every check holds`);
  return 0;
}
