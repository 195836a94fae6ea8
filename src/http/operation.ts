/**
 * @module http/operation — a paid call over HTTP: the JSON body in, the payment from
 * PAYMENT-SIGNATURE, the call run by paid-call/call.ts, and its outcome out as a Response (200 with
 * PAYMENT-RESPONSE and RateLimit-*, or the payment answer as 402/400/409 with PAYMENT-* headers).
 * A retry under the same x402 payment-identifier is answered from memory by the payment steps.
 */
import { ApiError } from "../errors.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json-depth.ts";
import type { PaidCall } from "../paid-call/call.ts";
import type { QueuedJob } from "../paid-call/job-queue.ts";
import { type SellDeps, sell } from "../paid-call/sell.ts";
import { isHoldingPayment } from "../paid-call/payments.ts";
import type { RouteCall } from "../module/define.ts";
import type { PluginEntry } from "../plugin/registry.ts";
import { httpAnswerOf, paymentResponseHeaders, presentedIn } from "../x402/http-answer.ts";
import type { PaymentAnswer } from "../x402/payment-answer.ts";
import { rateLimitHeaders } from "../paid-call/rate-limit.ts";
import type { RequestContext } from "./request-context.ts";
import { errorResponse, jsonResponse, withRequestId } from "./respond.ts";

/** How the HTTP edge sells a call; `J` is what the job queue behind it reports of an accepted job. */
export interface OperationDeps<J extends QueuedJob = QueuedJob> extends SellDeps<J> {
  readonly publicUrl: (request: Request) => string;
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

/** An HTTP request as a paid call: its ids, client address, origin, signal and PAYMENT-SIGNATURE. */
export function httpCall(deps: OperationDeps, request: Request, context: RequestContext): PaidCall {
  return {
    requestId: context.id,
    clientAddress: () => context.clientIp,
    origin: deps.publicUrl(request),
    signal: request.signal,
    payment: presentedIn(request.headers),
    report: context,
  };
}

/** The resource URL of a `POST /path` route on this server. */
export function routeUrl(route: string, origin: string): string {
  return new URL(route.replace(/^POST /, ""), origin).toString();
}

export function paymentAnswerResponse(answer: PaymentAnswer, requestId: string): Response {
  const http = httpAnswerOf(answer);
  return jsonResponse(withRequestId(http.body, requestId), http.status, http.headers);
}

/** What a module's route handler is handed for one request (module/define.ts RouteCall): defined here, below the module that calls it. */
export function routeCallOf(request: Request, requestId: string, baseUrl: string, params: Readonly<Record<string, string>>): RouteCall {
  return { requestId, baseUrl, params, readJson: () => readJsonObject(request), json: jsonResponse };
}

export interface RunPaidOptions {
  readonly request: Request;
  readonly context: RequestContext;
  readonly entry: PluginEntry;
  /** The body as the caller sent it, already parsed (the part validated against the entry's input). */
  readonly input: Record<string, unknown>;
  readonly route: string;
}

export async function runPaidOperation(deps: OperationDeps, { request, context, entry, input, route }: RunPaidOptions): Promise<Response> {
  context.operationId = entry.id;
  try {
    const call = httpCall(deps, request, context);
    const outcome = await sell(deps, call, { entry, input, route, resourceUrl: routeUrl(route, call.origin), replayable: true });
    if (outcome.kind === "answer") return paymentAnswerResponse(outcome.answer, context.id);
    const body = outcome.result;
    const paymentHeaders = paymentResponseHeaders(outcome.settlement);
    const status = entry.definition.successStatus || 200;
    if (isHoldingPayment(outcome.payment)) outcome.payment.hold({ status, headers: {}, body, ...(outcome.settlement ? { settlement: outcome.settlement } : {}) });
    return jsonResponse(withRequestId(body, context.id), status, { ...(outcome.rate ? rateLimitHeaders(outcome.rate) : {}), ...paymentHeaders });
  } catch (error) {
    return errorResponse(error, context, deps.log);
  }
}
