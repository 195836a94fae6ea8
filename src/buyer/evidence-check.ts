/**
 * @module buyer/evidence-check — a Tollbooth's signed evidence in what the buyer paid for, checked
 * against the seller's published keys (/.well-known/jwks.json on the seller's origin) and against
 * the settlement receipt's transaction.
 */
import { verifyEvidence, type Verification } from "../evidence/verify.ts";

export interface EvidenceCheck {
  readonly valid: boolean;
  readonly failed?: string;
  readonly detail: string;
}

/** Whether the answer carries a Tollbooth attestation (one result, or a batch with some). */
export const hasAttestation = (body: unknown): boolean => {
  if (typeof body !== "object" || body === null) return false;
  const b = body as { attestation?: unknown; batch?: unknown; results?: unknown[] };
  return b.attestation !== undefined || (b.batch === true && Array.isArray(b.results) && b.results.some((r) => typeof r === "object" && r !== null && "attestation" in r));
};

export async function checkEvidence(sellerUrl: string, body: unknown, transaction: string | undefined, doFetch: typeof fetch): Promise<EvidenceCheck> {
  const jwksUrl = new URL("/.well-known/jwks.json", sellerUrl).toString();
  let jwks: { keys: Record<string, unknown>[] };
  try {
    const response = await doFetch(jwksUrl, { headers: { accept: "application/json" } });
    jwks = (await response.json()) as { keys: Record<string, unknown>[] };
    if (!Array.isArray(jwks?.keys)) throw new Error("no keys array");
  } catch (error) {
    return { valid: false, failed: "jwks", detail: `cannot read ${jwksUrl}: ${(error as Error).message}` };
  }
  const outcome: Verification = await verifyEvidence(body, jwks);
  if (outcome.kind === "malformed") return { valid: false, failed: outcome.part, detail: outcome.message };
  if (outcome.failed) return { valid: false, failed: outcome.failed.part, detail: outcome.failed.detail };
  const unpaid = outcome.statements.find((s) => transaction !== undefined && s.payment?.transaction !== transaction);
  if (unpaid) return { valid: false, failed: "payment", detail: `the statement names transaction ${String(unpaid.payment?.transaction)}, the receipt ${transaction}` };
  return { valid: true, detail: `${outcome.statements.length} signed result(s) verified against ${jwksUrl}${transaction ? `, naming transaction ${transaction}` : ""}` };
}
