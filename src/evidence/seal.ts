/**
 * @module evidence/seal — signs evidence results after their payment settled, so the statement
 * can name the settlement transaction. A result the web layer noted (evidence/notes.ts) gets
 * `attestation: {jws, kid}`, as does each noted item of a batch and each noted read of a search's
 * results; anything else passes unchanged.
 */
import { sign } from "node:crypto";
import type { EvidenceKeys, SigningKey } from "./key-file.ts";
import { notedFactsOf } from "./notes.ts";
import type { Attestation, AttestationError } from "./attestation-schema.ts";
import { canonicalStatement, type EvidenceStatement, evidenceJwsType, evidenceStatementVersion } from "./statement.ts";

export interface SealCall {
  /** The server's public base URL. */
  readonly server: string;
  /** The settled payment (network and transaction; the resource and request its receipt names), absent or all null when unpaid. */
  readonly payment?: { readonly network: string | null; readonly transaction: string | null; readonly resourceUrl?: string; readonly requestId?: string } | undefined;
}

export interface EvidenceSeal {
  seal(result: unknown, call: SealCall): Promise<unknown>;
}

const base64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");

/**
 * A compact JWS (RFC 7515) over the statement's canonical JSON, written by hand: the same bytes as jose's
 * CompactSign with this protected header (Ed25519 signatures are deterministic), signed synchronously.
 */
export async function signStatement(statement: EvidenceStatement, signing: SigningKey): Promise<Attestation> {
  const signingInput = `${base64url(JSON.stringify({ alg: "EdDSA", typ: evidenceJwsType, kid: signing.kid }))}.${base64url(canonicalStatement(statement))}`;
  const signature = sign(null, Buffer.from(signingInput, "ascii"), signing.privateKey).toString("base64url");
  return { jws: `${signingInput}.${signature}`, kid: signing.kid };
}

/**
 * `onUnsigned` hears of every result that could not be signed (its payment has settled by then):
 * that result goes out with `attestation_error` instead of an attestation, each other one signed.
 */
export function createEvidenceSeal(keys: EvidenceKeys, now: () => Date = () => new Date(), onUnsigned: (error: Error) => void = () => {}): EvidenceSeal {
  /** `signing` is the error when no key could be had. */
  const sealOne = async (result: object, call: SealCall, signing: SigningKey | Error): Promise<object> => {
    try {
      if (signing instanceof Error) throw signing;
      return await signOne(result, call, signing);
    } catch (error) {
      onUnsigned(error as Error);
      const attestationError: AttestationError = { error: "EVIDENCE_UNSIGNED", message: "This result could not be signed after its payment settled; it is delivered without attestation." };
      return { ...result, attestation_error: attestationError };
    }
  };
  const signOne = async (result: object, call: SealCall, signing: SigningKey): Promise<object> => {
    const facts = notedFactsOf(result);
    if (!facts) return result;
    const paid = call.payment && (call.payment.network !== null || call.payment.transaction !== null);
    const statement: EvidenceStatement = {
      statement: evidenceStatementVersion,
      ...facts,
      server: call.server,
      issued_at: now().toISOString(),
      payment: paid ? paymentOf(call.payment!) : null,
    };
    return { ...result, attestation: await signStatement(statement, signing) };
  };
  return {
    async seal(result, call) {
      if (typeof result !== "object" || result === null) return result;
      const currentKey = () => keys.current().catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
      if (notedFactsOf(result)) return sealOne(result, call, await currentKey());
      // A batch's results, or a search's results each carrying its read.
      const items = (result as { results?: unknown }).results;
      const readOf = (item: unknown) => (item as { read?: unknown } | null)?.read;
      if (!Array.isArray(items) || !items.some((r) => notedFactsOf(r) || notedFactsOf(readOf(r)))) return result;
      const signing = await currentKey();
      const sealItem = async (item: object) => {
        const read = readOf(item);
        if (notedFactsOf(read)) return { ...item, read: await sealOne(read as object, call, signing) };
        return notedFactsOf(item) ? sealOne(item, call, signing) : item;
      };
      return { ...result, results: await Promise.all((items as object[]).map(sealItem)) };
    },
  };
}

/** The statement's payment: what the x402 receipt of the same call names (network, transaction, resource, request id). */
function paymentOf(payment: NonNullable<SealCall["payment"]>): NonNullable<EvidenceStatement["payment"]> {
  return {
    network: payment.network,
    transaction: payment.transaction,
    ...(payment.resourceUrl !== undefined ? { resource: payment.resourceUrl } : {}),
    ...(payment.requestId !== undefined ? { request_id: payment.requestId } : {}),
  };
}
