/**
 * @module paid-call/sell — one entry for every sale, whatever carried it (HTTP, MCP, A2A) and
 * whatever is sold, over call.ts:
 *
 *   operation:   admit → run (timeout) → settle → the result with its settlement (runPaidCall)
 *   sync skill:  admit → run (timeout) → settle → { ok, skill, result }, recorded by the queue
 *   async skill: admit (queue room first) → claim the skill's one-use resource → the queue accepts
 *                (it settles now only if the authorization cannot wait) → the queued job
 *
 * The job queue is a port (job-queue.ts) the jobs room implements and the app wires in.
 * `afterAdmit` runs with the verified caller (HTTP's Idempotency-Key); what it returns replaces
 * the work and the payment is released unused.
 */
import { ApiError, toApiError } from "../errors.ts";
import type { GiveBack } from "../plugin/define.ts";
import { listPrice, priceIn, type Pricing, type PriceTable } from "../plugin/price.ts";
import type { PluginEntry, SkillEntry } from "../plugin/registry.ts";
import type { SettleResponse } from "../x402/messages.ts";
import { type PaymentAnswer, statusOf } from "../x402/payment-answer.ts";
import { type Admission, admitPaidCall, type CallTarget, type PaidCall, type PaidCallDeps, type PaidOutcome, runAdmitted, runPaidCall } from "./call.ts";
import type { JobQueue, QueueAnswer, QueuedJob } from "./job-queue.ts";
import type { AcceptedPayment, Charge } from "./payments.ts";
import type { RateDecision } from "./rate-limit.ts";

export interface SellDeps<J extends QueuedJob = QueuedJob> extends PaidCallDeps {
  /** Where async skills are queued and sync skill calls recorded. */
  readonly queue: JobQueue<J>;
  readonly now: () => Date;
}

export interface SaleTarget<T> extends Omit<CallTarget<PluginEntry | SkillEntry>, "route"> {
  /** How logs and receipts name the route; a skill's is always `POST /v1/jobs/<id>`, an operation's its own route unless given. */
  readonly route?: string;
  /** An operation's success may be held for a retry under the same payment identifier (skills are not). */
  readonly replayable?: boolean;
  readonly afterAdmit?: (caller: string) => Promise<T | undefined>;
}

export type Sale<T, J extends QueuedJob = QueuedJob> =
  /** An offer or a refused payment (or a settlement that failed): render it. */
  | { readonly kind: "answer"; readonly answer: PaymentAnswer; readonly charge: Charge }
  | { readonly kind: "instead"; readonly value: T }
  /** `result`: an operation's result, or a sync skill's `{ ok, skill, result }`. */
  | { readonly kind: "done"; readonly result: unknown; readonly settlement: SettleResponse | undefined; readonly payment: AcceptedPayment; readonly rate: RateDecision | undefined }
  | { readonly kind: "accepted"; readonly job: J; readonly rate: RateDecision | undefined };

/** Sells one call: an operation (answered or done), or a skill (run now, or queued when async). */
export function sell(deps: PaidCallDeps, call: PaidCall, target: SaleTarget<never> & { readonly entry: PluginEntry }): Promise<PaidOutcome>;
export function sell<T, J extends QueuedJob>(deps: SellDeps<J>, call: PaidCall, target: SaleTarget<T>): Promise<Sale<T, J>>;
export async function sell<T, J extends QueuedJob>(deps: PaidCallDeps | SellDeps<J>, call: PaidCall, target: SaleTarget<T>): Promise<Sale<T, J>> {
  const { entry } = target;
  if (entry.definition.kind === "skill") {
    const skill = { ...target, entry: entry as SkillEntry, route: `POST /v1/jobs/${entry.id}` };
    // A skill is only ever sold with a queue (the second signature).
    const seller = deps as SellDeps<J>;
    return entry.definition.async ? submitAsync(seller, call, skill) : runSync(seller, call, skill);
  }
  const route = target.route ?? entry.definition.route;
  return runPaidCall(deps, call, { entry, input: target.input, route, resourceUrl: target.resourceUrl, ...(target.mcpTool !== undefined ? { mcpTool: target.mcpTool } : {}), ...(target.replayable ? { replayable: true } : {}) });
}

/** spec §2.2: a JSON-encoded string when json_only (the skill's flag or the caller's field) is true. */
export function presentResult(entry: SkillEntry, input: unknown, result: unknown): unknown {
  const asked = typeof input === "object" && input !== null && (input as { json_only?: unknown }).json_only === true;
  return entry.definition.jsonOnly === true || asked ? JSON.stringify(result) : result;
}

/** The declared price the payment was made at (the paying network's columns; free → the list price of the configured networks). */
function chargedMicros(prices: PriceTable, payment: AcceptedPayment, pricing: Pricing): number {
  return priceIn(prices, payment.priceColumns ?? []) ?? listPrice(prices, pricing);
}

type SkillTarget<T> = SaleTarget<T> & { readonly entry: SkillEntry; readonly route: string };

/** Admits a skill call through the core, then lets the transport answer instead (an idempotent replay): its payment is released. */
async function admitSkillCall<T>(
  deps: PaidCallDeps,
  call: PaidCall,
  { entry, input, route, resourceUrl, mcpTool, afterAdmit }: SkillTarget<T>,
  beforePayment?: () => void | Promise<void>,
): Promise<Extract<Admission, { kind: "admitted" }> | Extract<Sale<T>, { kind: "answer" | "instead" }>> {
  const admitted = await admitPaidCall(deps, call, {
    entry,
    input,
    route,
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

async function runSync<T, J extends QueuedJob>(deps: SellDeps<J>, call: PaidCall, target: SkillTarget<T>): Promise<Sale<T, J>> {
  const { queue, now } = deps;
  const { entry } = target;
  const admitted = await admitSkillCall(deps, call, target);
  if (admitted.kind !== "admitted") return admitted;
  const { value, payment } = admitted;
  const startedAt = now();
  const record = async (status: "completed" | "failed" | "expired", settled: boolean, errorCode: string | null) => {
    try {
      await queue.recordSync({
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
      deps.log.warn("could not record a sync skill call", { request_id: call.requestId, error: (error as Error).message });
    }
  };
  const settled = await runAdmitted(deps, call, entry, admitted, {
    timeoutMs: queue.effectiveTimeoutMs(entry),
    onRunFailure: async (error) => {
      const failure = toApiError(error);
      await record(failure.code === "OPERATION_TIMEOUT" ? "expired" : "failed", false, failure.code);
    },
  });
  if (settled.kind === "answer") {
    await record("failed", false, "SETTLEMENT_FAILED");
    return settled;
  }
  await record("completed", payment.payer !== undefined, null);
  const presented = presentResult(entry, value, settled.result);
  // spec §2.4: some answers carry their fields beside ok and skill (capital.ticket's `ticket`).
  const body = entry.definition.inlineResult && typeof presented === "object" && presented !== null ? { ok: true, skill: entry.id, ...presented } : { ok: true, skill: entry.id, result: presented };
  return { kind: "done", result: body, settlement: settled.settlement, payment, rate: admitted.rate };
}

async function submitAsync<T, J extends QueuedJob>(deps: SellDeps<J>, call: PaidCall, target: SkillTarget<T>): Promise<Sale<T, J>> {
  const { queue } = deps;
  const { entry } = target;
  const admitted = await admitSkillCall(deps, call, target, async () => {
    if (await queue.hasRoom()) return;
    const retry = await queue.retryAfterSec();
    throw new ApiError("QUEUE_FULL", {
      message: `The job queue is full; retry in ${retry} s. Nothing was charged.`,
      headers: { "Retry-After": String(retry) },
      details: { retry_after_sec: retry },
    });
  });
  if (admitted.kind !== "admitted") return admitted;
  const { value, payment } = admitted;
  const id = queue.newJobId();
  // The skill's one-use resource (a quote) is taken with the verified payer before acceptance:
  // of two paid runs racing for it, the loser is refused here and its payment released.
  let giveBack: GiveBack = undefined;
  try {
    giveBack = await entry.definition.claim?.(value as never, deps.contextFor(entry, call.signal, call.requestId, { payer: payment.payer, origin: call.origin }), id);
  } catch (error) {
    await payment.release();
    throw error;
  }
  let outcome: QueueAnswer<J>;
  try {
    outcome = await queue.accept({
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
