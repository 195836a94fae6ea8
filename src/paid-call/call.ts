/**
 * @module paid-call/call — one paid call, start to end, for any transport (HTTP, MCP):
 * open for work (503) → validate (400) → the entry's own admission → price the exact input → offer
 * → authorize (match, claim, verify) → rate limit (429, payment released) → run with timeout
 * (errors: released, nothing settled) → settle (failure: result withheld) → the result with its
 * settlement. A call is an explicit `PaidCall` (ids, caller, origin, signal, the payment as the
 * transport carried it); refusals come back as payment answers for the transport to render.
 */
import { engineOf, engineSentence } from "../plugin/catalogue.ts";
import { ApiError } from "../errors.ts";
import { DELIVERY_SENTENCE } from "./delivery.ts";
import { type RateDecision, rateLimitHeaders } from "./rate-limit.ts";
import type { Logger } from "../log.ts";
import type { PluginContext } from "../plugin/context.ts";
import type { SettlementReceipt } from "../plugin/define.ts";
import { type NetworkPrices, type PriceTable, resolvePrices } from "../plugin/price.ts";
import type { PluginEntry, SkillEntry } from "../plugin/registry.ts";
import { summarizeIssues } from "../plugin/schema.ts";
import type { PresentedPayment } from "../x402/presented-payment.ts";
import { type PaymentAnswer, statusOf } from "../x402/payment-answer.ts";
import type { SettleResponse } from "../x402/messages.ts";
import type { AcceptedPayment, Charge, Payments, ReplayableCharge, SettlementFacts } from "./payments.ts";
import type { JobQueue } from "./job-queue.ts";

/** What a plugin's context may know of the call it serves. */
/** Signs a paid result after its payment settled, naming the payment (the evidence module's seal). */
export type SealEvidence = (result: unknown, call: { payment: SettlementFacts | undefined }) => Promise<unknown>;

declare module "../module/define.ts" {
  interface SalePorts {
    /** Where async skills are queued and sync skill calls recorded (paid-call/job-queue.ts; its job type is the queue's own). */
    readonly queue: JobQueue<any>;
    readonly sealEvidence: SealEvidence;
  }
}

export interface CallFacts {
  readonly payer?: string | undefined;
  readonly origin?: string | undefined;
}

export interface PaidCallDeps {
  readonly payments: Payments;
  readonly log: Logger;
  readonly isOpenForWork: () => Promise<{ open: boolean; reason: string }>;
  /**
   * Builds the capabilities handed to `run` for one call: `payer` is the paying address when paid (before
   * verification, the one the payment names), `origin` the base URL the caller reached (absent for queued jobs).
   */
  readonly contextFor: (entry: PluginEntry | SkillEntry, signal: AbortSignal, requestId: string, call?: CallFacts) => PluginContext;
  /** Counts one paid call for a caller (`payer:0x…` when paid, `addr:<ip>` otherwise). */
  readonly rateLimit?: (caller: string) => Promise<RateDecision>;
  /** Limits beyond the schema (e.g. max_prompt_chars); throws a 400 before any payment. */
  readonly checkInput?: (entry: PluginEntry | SkillEntry, input: unknown) => void;
  /** Signs evidence results once their payment settled (the statement names the transaction and the configured server); never throws. */
  readonly sealEvidence?: SealEvidence;
}

/** One call as the core sees it, whatever carried it. */
export interface PaidCall {
  readonly requestId: string;
  /** The caller's network address, read only when needed (unpaid attempts are limited per address). */
  readonly clientAddress: () => string;
  /** The base URL the caller reached: resource URLs and the plugin's view of the call. */
  readonly origin: string;
  /** Aborts when the caller leaves. */
  readonly signal: AbortSignal;
  /** The payment as the transport carried it. */
  readonly payment: PresentedPayment;
  /** Every refusal carries a fresh offer (MCP, whose only refusal is PaymentRequired). */
  readonly alwaysOffer?: boolean;
  /** What happened, for the transport's log line: the operation and its outcome. */
  readonly report: { operationId?: string; outcome?: string };
}

/** Where the call is sold: its route (logs, receipts) and the resource URL named in the offer. */
export interface CallTarget<E extends PluginEntry | SkillEntry> {
  readonly entry: E;
  /** The input as the caller sent it, already parsed (the part validated against the entry's input). */
  readonly input: Record<string, unknown>;
  /** e.g. `POST /v1/web/read` */
  readonly route: string;
  readonly resourceUrl: string;
  /** The MCP tool name when sold as one (its bazaar entry then names the tool). */
  readonly mcpTool?: string;
}

export interface AdmitOptions<E extends PluginEntry | SkillEntry> extends CallTarget<E> {
  /** Runs after validation and before payment (queue capacity, idempotency); may throw. */
  readonly beforePayment?: (value: unknown) => void | Promise<void>;
  /** The caller will hand a success to `HoldingPayment.hold`, so a lost response can be answered again. */
  readonly replayable?: boolean;
}

export type Admission =
  /** An offer or a refused payment: render it as is. */
  | { readonly kind: "answer"; readonly answer: PaymentAnswer; readonly charge: Charge }
  | {
      readonly kind: "admitted";
      readonly value: unknown;
      readonly payment: AcceptedPayment;
      /** Who is counted for rate limits and idempotency: `payer:<address>` or `addr:<ip>`. */
      readonly caller: string;
      readonly priceMicros: Charge["priceMicros"];
      readonly charge: Charge;
      /** The rate limit after this call, for RateLimit-* headers. */
      readonly rate: RateDecision | undefined;
    };

export function validateInput<E extends PluginEntry | SkillEntry>(entry: E, body: unknown): Parameters<E["validateInput"]>[0] {
  const checked = entry.validateInput(body);
  if (!checked.ok) {
    throw new ApiError(checked.code ?? "INVALID_REQUEST", {
      message: `Invalid request for ${entry.id}: ${summarizeIssues(checked.issues)}`,
      details: { issues: checked.issues },
    });
  }
  return checked.value;
}

/**
 * The payer an EVM `exact` authorization names, before anything is verified. Only ever used to refuse
 * early (a quote bound to another payer: 403 before the offer); nothing is granted on it.
 */
export function namedPayerOf(presented: PresentedPayment): string | undefined {
  if (presented.kind !== "payload") return undefined;
  const from = (presented.payload.payload as { authorization?: { from?: unknown } }).authorization?.from;
  return typeof from === "string" && /^0x[0-9a-fA-F]{40}$/.test(from) ? from.toLowerCase() : undefined;
}

/** Everything before the work: open for work (503), validate (400), admit (the entry's own checks), price, authorize (offer), rate limit (429). */
export async function admitPaidCall<E extends PluginEntry | SkillEntry>(deps: PaidCallDeps, call: PaidCall, options: AdmitOptions<E>): Promise<Admission> {
  const { entry, input, route, beforePayment, replayable } = options;
  call.report.operationId = entry.id;
  const open = await deps.isOpenForWork();
  if (!open.open) {
    throw new ApiError("SERVICE_PAUSED", {
      message: `The service is not open for work${open.reason ? `: ${open.reason}` : ""}. Nothing was charged.`,
      details: { pause_reason: open.reason },
    });
  }
  const value = validateInput(entry, input);
  deps.checkInput?.(entry, value);
  // Before verification the payer is the one the payment names: admit may refuse on it, never grant.
  // Built only for an entry that reads it (its own admission, or its engine for the description).
  const ctx = entry.definition.admit || entry.definition.engine ? deps.contextFor(entry, call.signal, call.requestId, { payer: namedPayerOf(call.payment), origin: call.origin }) : undefined;
  const admittedBy = ctx && (await entry.definition.admit?.(value as never, ctx));
  await beforePayment?.(value);
  const byDelivery = "delivered" in entry.definition && entry.definition.delivered !== undefined;
  const charge: Charge | ReplayableCharge = {
    operationId: entry.id,
    route,
    resourceUrl: options.resourceUrl,
    description: entry.definition.summary + (ctx ? engineSentence(engineOf(entry, ctx.llm)) : "") + (byDelivery ? DELIVERY_SENTENCE : ""),
    priceMicros: admittedBy?.price !== undefined ? resolvePrices(admittedBy.price, entry.pricing) : entry.priceOf(value as never),
    inputSchema: entry.definition.input,
    inputExample: entry.definition.examples[0]?.input,
    outputExample: entry.definition.examples[0]?.output,
    ...(options.mcpTool !== undefined ? { mcpTool: options.mcpTool } : {}),
    ...(byDelivery ? { byDelivery } : {}),
    ...(replayable ? { body: input } : {}),
  };
  const authorized = await deps.payments.authorize(call.payment, charge, { requestId: call.requestId, ...(call.alwaysOffer ? { alwaysOffer: true } : {}) });
  if (authorized.kind === "answer") {
    // Unpaid attempts (offers, refused payments) count against the address.
    const decision = await deps.rateLimit?.(`addr:${call.clientAddress()}`);
    if (decision && !decision.allowed) throw rateLimited(decision);
    const status = statusOf(authorized.answer);
    call.report.outcome = status === 402 ? "challenge" : `http_${status}`;
    return { kind: "answer", answer: authorized.answer, charge };
  }
  const payment = authorized.payment;
  const caller = payment.payer ? `payer:${payment.payer.toLowerCase()}` : `addr:${call.clientAddress()}`;
  const decision = await deps.rateLimit?.(caller);
  if (decision && !decision.allowed) {
    await payment.release();
    throw rateLimited(decision);
  }
  return { kind: "admitted", value, payment, caller, priceMicros: charge.priceMicros, charge, rate: decision };
}

function rateLimited(decision: RateDecision): ApiError {
  return new ApiError("RATE_LIMITED", {
    message: `More than ${decision.limit} paid calls in a minute from this caller; retry in ${decision.resetSec} s. Nothing was charged.`,
    headers: rateLimitHeaders(decision),
    details: { retry_after_sec: decision.resetSec },
  });
}

export type PaidOutcome =
  | { readonly kind: "answer"; readonly answer: PaymentAnswer; readonly charge: Charge }
  | {
      readonly kind: "done";
      /** The work's result after the entry's settlement hooks. */
      readonly result: unknown;
      /** The settlement's public outcome (absent when free). */
      readonly settlement: SettleResponse | undefined;
      readonly payment: AcceptedPayment;
      readonly rate: RateDecision | undefined;
    };

/** Admit → run → settle. Throws the call's errors (validation, limits, the work's failure) as ApiError; a failed run is never charged. */
export async function runPaidCall<E extends PluginEntry | SkillEntry>(deps: PaidCallDeps, call: PaidCall, target: CallTarget<E> & { readonly replayable?: boolean }): Promise<PaidOutcome> {
  const admitted = await admitPaidCall(deps, call, target);
  if (admitted.kind === "answer") return admitted;
  const ran = await runAdmitted(deps, call, target.entry, admitted);
  if (ran.kind === "answer") return ran;
  return { kind: "done", result: ran.result, settlement: ran.settlement, payment: admitted.payment, rate: admitted.rate };
}

/**
 * Runs an admitted call and settles it: a run that fails releases the payment (then `onRunFailure`)
 * and throws; a settlement that fails is the answer to render. `timeoutMs`: the run's own when it is
 * not the entry's (a skill's, within the server's job timeout).
 */
export async function runAdmitted(
  deps: PaidCallDeps,
  call: PaidCall,
  entry: PluginEntry | SkillEntry,
  admitted: Extract<Admission, { kind: "admitted" }>,
  options: { readonly timeoutMs?: number; readonly onRunFailure?: (error: unknown) => Promise<void> } = {},
): Promise<Extract<PaidOutcome, { kind: "answer" }> | Extract<SettledCall, { kind: "settled" }>> {
  const { value, payment } = admitted;
  let result: unknown;
  try {
    result = await runWithTimeout(entry, value, call.signal, { contextFor: deps.contextFor, requestId: call.requestId, facts: { payer: payment.payer, origin: call.origin } }, options.timeoutMs);
  } catch (error) {
    await payment.release();
    await options.onRunFailure?.(error);
    throw error;
  }
  const settled = await settlePaidCall(deps, call, entry, payment, result, deliveredPrice(entry, value, result));
  if (settled.kind === "answer") {
    call.report.outcome = `settlement_${statusOf(settled.answer)}`;
    return { kind: "answer", answer: settled.answer, charge: admitted.charge };
  }
  call.report.outcome = "ok";
  return settled;
}

export type SettledCall =
  | { readonly kind: "settled"; readonly settlement: SettleResponse | undefined; readonly result: unknown }
  | { readonly kind: "answer"; readonly answer: PaymentAnswer };

/**
 * Settles a call's payment after its work succeeded and runs the entry's settlement hooks:
 * `settled` makes what `run` held final (and may add the payment to the result), `unsettled`
 * undoes it when nothing was charged, or keeps it while the settlement is pending.
 */
/** The price of what the work delivered, for an entry priced by delivery (paid-call/delivery.ts); undefined otherwise. */
export function deliveredPrice(entry: PluginEntry | SkillEntry, input: unknown, result: unknown): PriceTable | undefined {
  const delivered = (entry.definition as { delivered?: (input: unknown, output: unknown) => NetworkPrices }).delivered;
  return delivered ? resolvePrices(delivered(input, result), entry.pricing) : undefined;
}

export async function settlePaidCall(
  deps: PaidCallDeps,
  call: PaidCall,
  entry: PluginEntry | SkillEntry,
  payment: AcceptedPayment,
  result: unknown,
  delivered?: PriceTable,
): Promise<SettledCall> {
  const hooks = entry.definition.settlement;
  const context = { requestId: call.requestId, ...(delivered ? { delivered } : {}) };
  if (!hooks) {
    const settled = await payment.settle(context);
    return settled.kind === "settled" ? { kind: "settled", settlement: settled.settlement, result: await sealed(deps, result, settled.facts) } : settled;
  }
  const receiptOf = (facts: SettlementFacts | undefined): SettlementReceipt => ({
    payer: facts?.payer ?? payment.payer ?? null,
    network: facts?.network ?? payment.network ?? null,
    transaction: facts?.transaction ?? null,
    paymentId: facts?.paymentId ?? null,
  });
  const ctx = deps.contextFor(entry, call.signal, call.requestId, { payer: payment.payer, origin: call.origin });
  let settled;
  try {
    settled = await payment.settle(context);
  } catch (error) {
    // Nobody knows whether it was charged: keep the hold, as for a pending settlement.
    await hooks.unsettled(result as never, { state: "pending", receipt: receiptOf(undefined) }, ctx);
    throw error;
  }
  if (settled.kind === "answer") {
    await hooks.unsettled(result as never, { state: settled.state ?? "failed", receipt: receiptOf(settled.facts) }, ctx);
    return settled;
  }
  return { kind: "settled", settlement: settled.settlement, result: await sealed(deps, await hooks.settled(result as never, receiptOf(settled.facts), ctx), settled.facts) };
}

/** The result as it goes out: signed when it is evidence, after its payment settled, so the statement can name the transaction. */
const sealed = (deps: PaidCallDeps, result: unknown, payment: SettlementFacts | undefined) =>
  deps.sealEvidence ? deps.sealEvidence(result, { payment }) : result;

/** Runs `run` with an abort signal for its declared timeout (and the caller leaving); a run that ignores the signal is abandoned. */
export async function runWithTimeout<E extends PluginEntry | SkillEntry>(
  entry: E,
  input: unknown,
  callerSignal: AbortSignal,
  context: { readonly contextFor: (entry: E, signal: AbortSignal, requestId: string, call?: CallFacts) => PluginContext; readonly requestId: string; readonly facts?: CallFacts },
  timeoutMs: number = entry.definition.timeoutMs,
): Promise<unknown> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([timeout, callerSignal]);
  // The context is built here from the caller's builder, not through a closure of the caller's
  // room, so a run calls only downward (docs/layout.md, "Walks").
  const ctx = context.contextFor(entry, signal, context.requestId, context.facts);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () =>
      reject(
        timeout.aborted
          ? new ApiError("OPERATION_TIMEOUT", { message: `${entry.id} ran past its ${timeoutMs} ms timeout; nothing was charged.` })
          : new ApiError("CLIENT_CLOSED"),
      );
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([entry.definition.run(input as never, ctx), aborted]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
