/**
 * @module evidence/seal — signs evidence results after their payment settled, so the statement
 * can name the settlement transaction. A result the web layer noted (evidence/notes.ts) gets
 * `attestation: {jws, kid}`, as does each noted item of a batch; anything else passes unchanged.
 */
import { jose } from "./jose-lazy.ts";
import type { EvidenceKeys, SigningKey } from "./key-file.ts";
import { notedFactsOf } from "./notes.ts";
import type { Attestation } from "./attestation-schema.ts";
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

const encoder = new TextEncoder();

export async function signStatement(statement: EvidenceStatement, signing: SigningKey): Promise<Attestation> {
  const { CompactSign } = await jose();
  const jws = await new CompactSign(encoder.encode(canonicalStatement(statement)))
    .setProtectedHeader({ alg: "EdDSA", typ: evidenceJwsType, kid: signing.kid })
    .sign(signing.key);
  return { jws, kid: signing.kid };
}

export function createEvidenceSeal(keys: EvidenceKeys, now: () => Date = () => new Date()): EvidenceSeal {
  const sealOne = async (result: object, call: SealCall, signing: SigningKey): Promise<object> => {
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
      const batch = result as { batch?: unknown; results?: unknown };
      if (notedFactsOf(result)) return sealOne(result, call, await keys.current());
      if (batch.batch === true && Array.isArray(batch.results) && batch.results.some((r) => notedFactsOf(r))) {
        const signing = await keys.current();
        return { ...result, results: await Promise.all(batch.results.map((r: object) => sealOne(r, call, signing))) };
      }
      return result;
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
