/**
 * @module jobs/payment-timing — when an async job's payment is settled. By default at
 * completion (verify at submission, settle when the job succeeds, release the result after).
 * An authorization that cannot outlive the job — round-based (Algorand: the official client
 * signs for about 10 rounds) or an EVM validBefore too close — is settled at acceptance, and a
 * failure through our fault then records a refund due on the job.
 */
import type { AcceptedPayment } from "../paid-call/payments.ts";
import type { SettleMode } from "./job-store.ts";

/** Room left after the job's worst case so settlement itself can land (spec x402 margin). */
export const settlementMarginMs = 30_000;

/**
 * The payment's deadline in Unix seconds: null = cannot wait; undefined = free. Read from the
 * seam's `validBefore`, or from the x402 snapshot (its VerifiedPayment is plain JSON, x402/gate.ts)
 * where the seam does not fill it in yet.
 */
export function paymentDeadline(payment: AcceptedPayment): number | null | undefined {
  if (payment.validBefore !== undefined) return payment.validBefore;
  const snapshot = payment.snapshot() as { payment?: { validBefore?: unknown } } | null;
  if (snapshot === null || typeof snapshot !== "object") return undefined;
  const validBefore = snapshot.payment?.validBefore;
  if (typeof validBefore === "number") return validBefore;
  // A paid snapshot without a numeric deadline is treated as one that cannot wait.
  return null;
}

/**
 * `worstCaseMs`: how long until this job could be finished (queue wait + its timeout).
 * Settle at completion only when the authorization stays valid past that plus the margin.
 */
export function chooseSettleMode(payment: AcceptedPayment, now: Date, worstCaseMs: number): SettleMode {
  const deadline = paymentDeadline(payment);
  if (deadline === undefined) return "free";
  if (deadline === null) return "acceptance";
  return deadline * 1000 >= now.getTime() + worstCaseMs + settlementMarginMs ? "completion" : "acceptance";
}
