/**
 * @module http/operation — one paid call, start to end:
 * body → validate (400) → price → authorize (402) → rate limit (429, payment released)
 * → run with timeout (errors: nothing settled) → settle (failure: result withheld) → 200 with
 * PAYMENT-RESPONSE. `admitPaidCall` is the first half, shared with async jobs.
 * A retry of a paid call under the same x402 payment-identifier is answered by the payment layer
 * from memory (authorize returns it as an answer), so `runPaidOperation` hands it the result.
 */
import { engineOf, engineSentence } from "../docs/catalogue.ts";
import { ApiError } from "../errors.ts";
import { namedPayerOf } from "../x402/payer.ts";
import { type RateDecision, rateLimitHeaders } from "./rate-limit.ts";
import type { Logger } from "../log.ts";
import type { PluginContext } from "../plugin/context.ts";
import type { PluginEntry, SkillEntry } from "../plugin/registry.ts";
import { resolvePrices } from "../plugin/price.ts";
import { summarizeIssues } from "../plugin/schema.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json-depth.ts";
import type { SettlementReceipt } from "../plugin/define.ts";
import { type AcceptedPayment, type Charge, isHoldingPayment, type Payments, type ReplayableCharge, type SettlementFacts } from "./payments.ts";
import type { RequestContext } from "./request-context.ts";
import { errorResponse, jsonResponse, withRequestId } from "./respond.ts";

/** What a plugin's context may know of the call it serves. */
export interface CallFacts {
  readonly payer?: string | undefined;
  readonly origin?: string | undefined;
}

export interface OperationDeps {
  readonly payments: Payments;
  readonly log: Logger;
  readonly publicUrl: (request: Request) => string;
  readonly isOpenForWork: () => { open: boolean; reason: string };
  /**
   * Builds the capabilities handed to `run` for one call: `payer` is the paying address when paid (before
   * verification, the one the payment header names), `origin` the base URL the caller reached (absent for queued jobs).
   */
  readonly contextFor: (entry: PluginEntry | SkillEntry, signal: AbortSignal, requestId: string, call?: CallFacts) => PluginContext;
  /** Counts one paid call for a caller (`payer:0x…` when paid, `addr:<ip>` otherwise). */
  readonly rateLimit?: (caller: string) => RateDecision;
  /** Limits beyond the schema (e.g. max_prompt_chars); throws a 400 before any payment. */
  readonly checkInput?: (entry: PluginEntry | SkillEntry, input: unknown) => void;
  /** Signs evidence results once their payment settled (the statement names the transaction); never throws. */
  readonly sealEvidence?: (result: unknown, call: { server: string; payment: SettlementFacts | undefined }) => Promise<unknown>;
}

/** Parses the request body as a JSON object or throws the matching 400/415. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(type)) throw new ApiError("UNSUPPORTED_MEDIA_TYPE");
  const text = await request.text();
  if (nestsDeeperThan(text)) throw new ApiError("JSON_TOO_DEEP", { message: `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.` });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ApiError("INVALID_JSON", { message: `The request body is not valid JSON: ${(error as Error).message}` });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ApiError("INVALID_REQUEST", { message: "The request body must be a JSON object." });
  }
  return parsed as Record<string, unknown>;
}

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

export interface RunPaidOptions<E extends PluginEntry | SkillEntry> {
  readonly request: Request;
  readonly context: RequestContext;
  readonly entry: E;
  /** The body as the caller sent it, already parsed (the part validated against the entry's input). */
  readonly input: Record<string, unknown>;
  readonly route: string;
  /** Shapes the plugin's result into the response body. */
  readonly present: (result: unknown) => unknown;
}

export interface AdmitOptions<E extends PluginEntry | SkillEntry> {
  readonly request: Request;
  readonly context: RequestContext;
  readonly entry: E;
  readonly input: Record<string, unknown>;
  readonly route: string;
  /** Runs after validation and before payment (queue capacity, idempotency); may throw. */
  readonly beforePayment?: (value: unknown) => void | Promise<void>;
  /** The caller will hand a success to `HoldingPayment.hold`, so a lost response can be answered again. */
  readonly replayable?: boolean;
}

export type Admission =
  /** A 402 challenge or a refused payment: send it as is. */
  | { readonly kind: "answer"; readonly response: Response }
  | {
      readonly kind: "admitted";
      readonly value: unknown;
      readonly payment: AcceptedPayment;
      /** Who is counted for rate limits and idempotency: `payer:<address>` or `addr:<ip>`. */
      readonly caller: string;
      readonly priceMicros: Charge["priceMicros"];
      /** RateLimit-* headers for the success response. */
      readonly headers: Record<string, string>;
    };

/** Everything before the work: open for work (503), validate (400), admit (the entry's own checks), price, authorize (402), rate limit (429). */
export async function admitPaidCall<E extends PluginEntry | SkillEntry>(
  deps: OperationDeps,
  { request, context, entry, input, route, beforePayment, replayable }: AdmitOptions<E>,
): Promise<Admission> {
  context.operationId = entry.id;
  const open = deps.isOpenForWork();
  if (!open.open) {
    throw new ApiError("SERVICE_PAUSED", {
      message: `The service is not open for work${open.reason ? `: ${open.reason}` : ""}. Nothing was charged.`,
      details: { pause_reason: open.reason },
    });
  }
  const value = validateInput(entry, input);
  deps.checkInput?.(entry, value);
  // Before verification the payer is the one the payment header names: admit may refuse on it, never grant.
  const ctx = deps.contextFor(entry, request.signal, context.id, { payer: namedPayerOf(request.headers), origin: deps.publicUrl(request) });
  const admittedBy = await entry.definition.admit?.(value as never, ctx);
  await beforePayment?.(value);
  const charge: Charge | ReplayableCharge = {
    operationId: entry.id,
    route,
    resourceUrl: new URL(route.replace(/^POST /, ""), deps.publicUrl(request)).toString(),
    description: entry.definition.summary + engineSentence(engineOf(entry, ctx.llm)),
    priceMicros: admittedBy?.price !== undefined ? resolvePrices(admittedBy.price) : entry.priceOf(value as never),
    inputSchema: entry.definition.input,
    inputExample: entry.definition.examples[0]?.input,
    outputExample: entry.definition.examples[0]?.output,
    ...(replayable ? { body: input } : {}),
  };
  const address = `addr:${context.clientIp}`;
  const authorized = await deps.payments.authorize(request, charge);
  if (authorized.kind === "answer") {
    // Unpaid attempts (challenges, refused payments) count against the address.
    const decision = deps.rateLimit?.(address);
    if (decision && !decision.allowed) throw rateLimited(decision);
    context.outcome = authorized.response.status === 402 ? "challenge" : `http_${authorized.response.status}`;
    return authorized;
  }
  const payment = authorized.payment;
  const caller = payment.payer ? `payer:${payment.payer.toLowerCase()}` : address;
  const decision = deps.rateLimit?.(caller);
  if (decision && !decision.allowed) {
    payment.release();
    throw rateLimited(decision);
  }
  return { kind: "admitted", value, payment, caller, priceMicros: charge.priceMicros, headers: decision ? rateLimitHeaders(decision) : {} };
}

function rateLimited(decision: RateDecision): ApiError {
  return new ApiError("RATE_LIMITED", {
    message: `More than ${decision.limit} paid calls in a minute from this caller; retry in ${decision.resetSec} s. Nothing was charged.`,
    headers: rateLimitHeaders(decision),
    details: { retry_after_sec: decision.resetSec },
  });
}

export async function runPaidOperation<E extends PluginEntry | SkillEntry>(
  deps: OperationDeps,
  { request, context, entry, input, route, present }: RunPaidOptions<E>,
): Promise<Response> {
  context.operationId = entry.id;
  try {
    const admitted = await admitPaidCall(deps, { request, context, entry, input, route, replayable: true });
    if (admitted.kind === "answer") return admitted.response;
    const { value, payment } = admitted;

    let result: unknown;
    try {
      result = await runWithTimeout(entry, value, request.signal, (signal) => deps.contextFor(entry, signal, context.id, { payer: payment.payer, origin: deps.publicUrl(request) }));
    } catch (error) {
      payment.release();
      throw error;
    }

    const settled = await settleCall(deps, { request, context, entry, payment, result });
    if (settled.kind === "answer") {
      context.outcome = `settlement_${settled.response.status}`;
      return settled.response;
    }
    context.outcome = "ok";
    const body = present(settled.result);
    if (isHoldingPayment(payment)) payment.hold({ status: 200, headers: settled.headers, body });
    return jsonResponse(withRequestId(body, context.id), 200, { ...admitted.headers, ...settled.headers });
  } catch (error) {
    return errorResponse(error, context, deps.log);
  }
}

export type SettledCall = { readonly kind: "settled"; readonly headers: Record<string, string>; readonly result: unknown } | { readonly kind: "answer"; readonly response: Response };

/**
 * Settles a sync call's payment after its work succeeded and runs the entry's settlement hooks:
 * `settled` makes what `run` held final (and may add the payment to the result), `unsettled`
 * undoes it when nothing was charged, or keeps it while the settlement is pending.
 */
export async function settleCall(
  deps: OperationDeps,
  call: { request: Request; context: RequestContext; entry: PluginEntry | SkillEntry; payment: AcceptedPayment; result: unknown },
): Promise<SettledCall> {
  const { request, context, entry, payment, result } = call;
  const hooks = entry.definition.settlement;
  if (!hooks) {
    const settled = await payment.settle({ requestId: context.id });
    return settled.kind === "settled" ? { kind: "settled", headers: settled.headers, result: await sealed(deps, request, result, settled.facts) } : settled;
  }
  const receiptOf = (facts: SettlementFacts | undefined): SettlementReceipt => ({
    payer: facts?.payer ?? payment.payer ?? null,
    network: facts?.network ?? payment.network ?? null,
    transaction: facts?.transaction ?? null,
    paymentId: facts?.paymentId ?? null,
  });
  const ctx = deps.contextFor(entry, request.signal, context.id, { payer: payment.payer, origin: deps.publicUrl(request) });
  let settled;
  try {
    settled = await payment.settle({ requestId: context.id });
  } catch (error) {
    // Nobody knows whether it was charged: keep the hold, as for a pending settlement.
    await hooks.unsettled(result as never, { state: "pending", receipt: receiptOf(undefined) }, ctx);
    throw error;
  }
  if (settled.kind === "answer") {
    await hooks.unsettled(result as never, { state: settled.state ?? "failed", receipt: receiptOf(settled.facts) }, ctx);
    return settled;
  }
  return { kind: "settled", headers: settled.headers, result: await sealed(deps, request, await hooks.settled(result as never, receiptOf(settled.facts), ctx), settled.facts) };
}

const sealed = (deps: OperationDeps, request: Request, result: unknown, payment: SettlementFacts | undefined) =>
  deps.sealEvidence ? deps.sealEvidence(result, { server: deps.publicUrl(request), payment }) : result;

/** Runs `run` with an abort signal for its declared timeout (and the caller leaving); a run that ignores the signal is abandoned. */
export async function runWithTimeout(
  entry: PluginEntry | SkillEntry,
  input: unknown,
  callerSignal: AbortSignal,
  makeContext: (signal: AbortSignal) => PluginContext,
  timeoutMs: number = entry.definition.timeoutMs,
): Promise<unknown> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([timeout, callerSignal]);
  const ctx = makeContext(signal);
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
