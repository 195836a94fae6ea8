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

/** What the settlement receipt names: the transaction, and when its signature verified, the resource and request id. */
export interface ReceiptNames {
  readonly transaction?: string | undefined;
  readonly resourceUrl?: string | undefined;
  readonly requestId?: string | undefined;
}

/** What a receipt names for the evidence check: its transaction, and the resource and request once its signature verified. */
export function namesOf(receipt: { readonly transaction?: string } | undefined, signed: { readonly valid: boolean; readonly resourceUrl?: string; readonly requestId?: string } | undefined): ReceiptNames {
  return { transaction: receipt?.transaction, ...(signed?.valid ? { resourceUrl: signed.resourceUrl, requestId: signed.requestId } : {}) };
}

export async function checkEvidence(sellerUrl: string, body: unknown, receipt: ReceiptNames, doFetch: typeof fetch): Promise<EvidenceCheck> {
  const { transaction } = receipt;
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
  // A statement that names the resource or request (newer servers) must name the receipt's.
  const named = (["resource", "request_id"] as const).map((field) => [field, field === "resource" ? receipt.resourceUrl : receipt.requestId] as const);
  for (const [field, expected] of named) {
    const other = expected === undefined ? undefined : outcome.statements.find((s) => s.payment?.[field] !== undefined && s.payment[field] !== expected);
    if (other) return { valid: false, failed: `payment.${field}`, detail: `the statement names ${field} ${String(other.payment?.[field])}, the signed receipt ${expected}` };
  }
  const linked = receipt.requestId !== undefined && outcome.statements.every((s) => s.payment?.request_id === receipt.requestId);
  return {
    valid: true,
    detail: `${outcome.statements.length} signed result(s) verified against ${jwksUrl}${transaction ? `, naming transaction ${transaction}` : ""}${linked ? ` and the signed receipt's request ${receipt.requestId}` : ""}`,
  };
}
