/**
 * @module jobs/skill-call — a skill call for any transport (HTTP's /v1/jobs, MCP's tools), over
 * paid-call/call.ts:
 *
 *   sync skill:  admit → run (timeout) → settle → { ok, skill, result }, recorded as a sync call
 *   async skill: admit (queue room first) → claim the skill's one-use resource → accept (settle now
 *                only if the authorization cannot wait) → the queued job
 *
 * `afterAdmit` runs with the verified caller (HTTP's Idempotency-Key); what it returns replaces
 * the work and the payment is released unused.
 */
import { ApiError, toApiError } from "../errors.ts";
import { type Admission, admitPaidCall, type PaidCall, type PaidCallDeps, runWithTimeout, settlePaidCall } from "../paid-call/call.ts";
import type { AcceptedPayment, Charge } from "../paid-call/payments.ts";
import type { RateDecision } from "../paid-call/rate-limit.ts";
import { listPrice, priceIn, type Pricing, type PriceTable } from "../plugin/price.ts";
import type { GiveBack } from "../plugin/define.ts";
import type { SkillEntry } from "../plugin/registry.ts";
import { type PaymentAnswer, statusOf } from "../x402/payment-answer.ts";
import type { SettleResponse } from "../x402/messages.ts";
import { type JobRow, type JobStore, newJobId } from "./job-store.ts";
import { type JobWorker, presentResult } from "./worker.ts";

export interface SkillCallDeps {
  readonly operation: PaidCallDeps;
  readonly worker: JobWorker;
  readonly jobs: JobStore;
  readonly now: () => Date;
}

export interface SkillCallTarget<T> {
  readonly entry: SkillEntry;
  readonly fields: Record<string, unknown>;
  readonly resourceUrl: string;
  readonly mcpTool?: string;
  readonly afterAdmit?: (caller: string) => Promise<T | undefined>;
}

export type SkillOutcome<T> =
  /** An offer or a refused payment (or a settlement that failed): render it. */
  | { readonly kind: "answer"; readonly answer: PaymentAnswer; readonly charge: Charge }
  | { readonly kind: "instead"; readonly value: T }
  | { readonly kind: "done"; readonly body: Record<string, unknown>; readonly settlement: SettleResponse | undefined; readonly rate: RateDecision | undefined }
  /** `paymentResponse`: the encoded PAYMENT-RESPONSE when the job was settled at acceptance. */
  | { readonly kind: "accepted"; readonly job: JobRow; readonly rate: RateDecision | undefined };

/** The declared price the payment was made at (the paying network's columns; free → the list price of the configured networks). */
function chargedMicros(prices: PriceTable, payment: AcceptedPayment, pricing: Pricing): number {
  return priceIn(prices, payment.priceColumns ?? []) ?? listPrice(prices, pricing);
}

export async function callSkill<T>(deps: SkillCallDeps, call: PaidCall, target: SkillCallTarget<T>): Promise<SkillOutcome<T>> {
  return target.entry.definition.async ? submitAsync(deps, call, target) : runSync(deps, call, target);
}

/** Admits a skill call through the core, then lets the transport answer instead (an idempotent replay): its payment is released. */
async function admitSkillCall<T>(
  deps: SkillCallDeps,
  call: PaidCall,
  { entry, fields, resourceUrl, mcpTool, afterAdmit }: SkillCallTarget<T>,
  beforePayment?: () => void | Promise<void>,
): Promise<Extract<Admission, { kind: "admitted" }> | Extract<SkillOutcome<T>, { kind: "answer" | "instead" }>> {
  const admitted = await admitPaidCall(deps.operation, call, {
    entry,
    input: fields,
    route: `POST /v1/jobs/${entry.id}`,
    resourceUrl,
    ...(mcpTool !== undefined ? { mcpTool } : {}),
    ...(beforePayment ? { beforePayment } : {}),
  });
  if (admitted.kind === "answer") return admitted;
  const instead = await afterAdmit?.(admitted.caller);
  if (instead === undefined) return admitted;
  await admitted.payment.release();
  return { kind: "instead", value: instead };
}

async function runSync<T>(deps: SkillCallDeps, call: PaidCall, { entry, fields, resourceUrl, mcpTool, afterAdmit }: SkillCallTarget<T>): Promise<SkillOutcome<T>> {
  const { operation, worker, jobs, now } = deps;
  const admitted = await admitSkillCall(deps, call, { entry, fields, resourceUrl, mcpTool, afterAdmit });
  if (admitted.kind !== "admitted") return admitted;
  const { value, payment } = admitted;
  const startedAt = now();
  const record = async (status: "completed" | "failed" | "expired", settled: boolean, errorCode: string | null) => {
    try {
      await jobs.recordSyncCall({
        id: newJobId(),
        skill: entry.id,
        status,
        caller: admitted.caller,
        payer: payment.payer ?? null,
        network: payment.network ?? null,
        priceMicros: chargedMicros(admitted.priceMicros, payment, entry.pricing),
        settleMode: payment.payer ? "completion" : "free",
        requestId: call.requestId,
        createdAt: startedAt,
        startedAt,
        finishedAt: now(),
        settled,
        errorCode,
      });
    } catch (error) {
      operation.log.warn("could not record a sync skill call", { request_id: call.requestId, error: (error as Error).message });
    }
  };
  let result: unknown;
  try {
    result = await runWithTimeout(entry, value, call.signal, (signal) => operation.contextFor(entry, signal, call.requestId, { payer: payment.payer, origin: call.origin }), worker.effectiveTimeoutMs(entry));
  } catch (error) {
    await payment.release();
    const failure = toApiError(error);
    await record(failure.code === "OPERATION_TIMEOUT" ? "expired" : "failed", false, failure.code);
    throw error;
  }
  const settled = await settlePaidCall(operation, call, entry, payment, result);
  if (settled.kind === "answer") {
    call.report.outcome = `settlement_${statusOf(settled.answer)}`;
    await record("failed", false, "SETTLEMENT_FAILED");
    return { kind: "answer", answer: settled.answer, charge: admitted.charge };
  }
  await record("completed", payment.payer !== undefined, null);
  call.report.outcome = "ok";
  const presented = presentResult(entry, value, settled.result);
  // spec §2.4: some answers carry their fields beside ok and skill (capital.ticket's `ticket`).
  const body = entry.definition.inlineResult && typeof presented === "object" && presented !== null ? { ok: true, skill: entry.id, ...presented } : { ok: true, skill: entry.id, result: presented };
  return { kind: "done", body, settlement: settled.settlement, rate: admitted.rate };
}

async function submitAsync<T>(deps: SkillCallDeps, call: PaidCall, { entry, fields, resourceUrl, mcpTool, afterAdmit }: SkillCallTarget<T>): Promise<SkillOutcome<T>> {
  const { operation, worker } = deps;
  const admitted = await admitSkillCall(deps, call, { entry, fields, resourceUrl, mcpTool, afterAdmit }, async () => {
    if (await worker.hasRoom()) return;
    const retry = await worker.retryAfterSec();
    throw new ApiError("QUEUE_FULL", {
      message: `The job queue is full; retry in ${retry} s. Nothing was charged.`,
      headers: { "Retry-After": String(retry) },
      details: { retry_after_sec: retry },
    });
  });
  if (admitted.kind !== "admitted") return admitted;
  const { value, payment } = admitted;
  const id = newJobId();
  // The skill's one-use resource (a quote) is taken with the verified payer before acceptance:
  // of two paid runs racing for it, the loser is refused here and its payment released.
  let giveBack: GiveBack = undefined;
  try {
    giveBack = await entry.definition.claim?.(value as never, operation.contextFor(entry, call.signal, call.requestId, { payer: payment.payer, origin: call.origin }), id);
  } catch (error) {
    await payment.release();
    throw error;
  }
  let outcome: Awaited<ReturnType<JobWorker["accept"]>>;
  try {
    outcome = await worker.accept({
      id,
      entry,
      value,
      payment,
      caller: admitted.caller,
      priceMicros: chargedMicros(admitted.priceMicros, payment, entry.pricing),
      requestId: call.requestId,
      origin: call.origin,
    });
  } catch (error) {
    await giveBack?.();
    throw error;
  }
  if (outcome.kind === "answer") {
    await giveBack?.();
    call.report.outcome = `settlement_${statusOf(outcome.answer)}`;
    return { kind: "answer", answer: outcome.answer, charge: admitted.charge };
  }
  call.report.outcome = "accepted";
  return { kind: "accepted", job: outcome.job, rate: admitted.rate };
}
