/**
 * @module jobs/job-outcomes — how a job run ends: its settlement through the job's settlement row
 * (written before the facilitator is called and read back by a re-run, so a job never settles
 * twice), and its failure (the payment released, or a refund recorded when it was settled and the
 * failure is ours).
 */
import { type ApiError, errorCodes } from "../errors.ts";
import type { AcceptedPayment } from "../paid-call/payments.ts";
import { type PaymentAnswer, refusal } from "../x402/payment-answer.ts";
import { settlementText } from "./job-settlement.ts";
import type { JobLease, JobRow, JobSettlement } from "./job-store.ts";
import { expiry, record, type WorkerState, write } from "./worker-state.ts";

/** Failures that are ours (a refund is due when the job was settled up front). */
function isOurFault(error: ApiError): boolean {
  return error.status >= 500;
}

export type SettleOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: string; readonly message: string; readonly answer: PaymentAnswer; readonly unknown: boolean }
  /** The lease was lost before anything was asked of the facilitator: this run stops, writing nothing. */
  | { readonly ok: false; readonly lost: true };


export const unknownSettlement = "SETTLEMENT_PENDING: an earlier run began settling and its outcome is unknown; refund if the transaction landed (the result was withheld)";

/** Settles through the job's settlement row: written before the facilitator is called, read back on a re-run. */
export async function settleJob(state: WorkerState, row: JobRow, payment: AcceptedPayment, lease: JobLease): Promise<SettleOutcome> {
  const { jobs, now } = state;
  const start = await jobs.beginSettlement(row.id, lease, now());
  if (start.kind === "lease_lost") return { ok: false, lost: true };
  if (start.kind === "exists") return settlementOutcome(start.settlement);
  const outcome = await payment.settle({ requestId: row.requestId });
  if (outcome.kind === "settled") {
    await record(state, "settled", () => jobs.finishSettlement(row.id, { state: "settled", paymentResponse: outcome.settlement ? settlementText(outcome.settlement) : null }, now()));
    return { ok: true };
  }
  const answer = outcome.answer;
  const code = answer.kind === "refused" ? answer.code : "SETTLEMENT_FAILED";
  const message = (answer.kind === "refused" ? answer.message : undefined) ?? errorCodes[code].message;
  // A pending settlement may still land: the row stays pending, so no later run settles again.
  if (code !== "SETTLEMENT_PENDING") await record(state, "settlement failed", () => jobs.finishSettlement(row.id, { state: "failed", code, message }, now()));
  return { ok: false, code, message, answer, unknown: code === "SETTLEMENT_PENDING" };
}

export function settlementOutcome(settlement: JobSettlement): SettleOutcome {
  if (settlement.state === "settled") return { ok: true };
  if (settlement.state === "pending") {
    return { ok: false, code: "SETTLEMENT_PENDING", message: errorCodes.SETTLEMENT_PENDING.message, answer: refusal("SETTLEMENT_PENDING"), unknown: true };
  }
  const code = (settlement.errorCode ?? "SETTLEMENT_FAILED") as keyof typeof errorCodes;
  const known = code in errorCodes ? code : "SETTLEMENT_FAILED";
  return { ok: false, code: known, message: settlement.errorMessage ?? errorCodes[known].message, answer: refusal(known), unknown: false };
}

export async function failJob(state: WorkerState, row: JobRow, error: ApiError, settled: boolean, payment: AcceptedPayment | undefined, lease: JobLease | undefined): Promise<void> {
  const { jobs, deps, now } = state;
  const expired = error.code === "OPERATION_TIMEOUT" || error.code === "JOB_TIMEOUT";
  const code = expired ? "JOB_TIMEOUT" : error.code;
  // Default messages promise "nothing was charged"; a job settled up front says what happened instead.
  const told = settled ? error.message.replace(/[;,]?\s*nothing was (run or )?charged\.?/i, ".").replace(/\.\.$/, ".") : error.message;
  const refundReason = settled && (expired || isOurFault(error)) ? `${code}: ${told}` : null;
  if (!settled) payment?.release();
  const charged = settled ? (refundReason ? "The payment was settled at acceptance; a refund is recorded." : "The payment was settled at acceptance.") : "Nothing was charged.";
  const message = expired ? `${row.skill} ran past its timeout and was aborted. ${charged}` : settled ? `${told} ${charged}` : error.message;
  await write(state, "fail", () => jobs.fail(row.id, { status: expired ? "expired" : "failed", code, message, refundReason }, now(), expiry(state, now()), lease));
  if (!refundReason) return;
  deps.log.warn("refund due", { job_id: row.id, skill: row.skill, payer: row.payer, reason: refundReason });
  if (!state.stopped && deps.refunds?.covers(row.network)) {
    deps.refunds.pay(row.id).catch((error: Error) => deps.log.warn("refund payment failed", { job_id: row.id, error: error.message }));
  }
}

/** Fails a run whose settlement is not settled; `refundReason` when it may have landed. */
export async function failSettlement(state: WorkerState, row: JobRow, lease: JobLease, outcome: { code: string; message: string }, refundReason: string | null): Promise<void> {
  const { jobs, now } = state;
  await write(state, "fail", () => jobs.fail(row.id, { status: "failed", code: outcome.code, message: outcome.message, refundReason }, now(), expiry(state, now()), lease));
}

/**
 * A pending row another run wrote: waits (the caller keeps its lease) until `settleGraceMs` after
 * that run began settling for it to record the facilitator's answer; the row as it then stands.
 */
export async function awaitEarlierSettlement(state: WorkerState, id: string, pending: JobSettlement): Promise<JobSettlement> {
  let current = pending;
  while (current.state === "pending" && !state.stopped) {
    const left = Date.parse(current.startedAt) + state.settleGraceMs - Date.now();
    if (left <= 0) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, 250)));
    current = (await state.jobs.settlementOf(id)) ?? current;
  }
  return current;
}
