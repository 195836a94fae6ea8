/**
 * @module http/operation — one paid call, start to end:
 * body → validate (400) → price → authorize (402) → run with timeout (errors: nothing settled)
 * → settle (failure: result withheld) → 200 with PAYMENT-RESPONSE.
 */
import { ApiError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { PluginContext } from "../plugin/context.ts";
import type { PluginEntry, SkillEntry } from "../plugin/registry.ts";
import { summarizeIssues } from "../plugin/schema.ts";
import type { Charge, Payments } from "./payments.ts";
import type { RequestContext } from "./request-context.ts";
import { errorResponse, jsonResponse, withRequestId } from "./respond.ts";

export interface OperationDeps {
  readonly payments: Payments;
  readonly log: Logger;
  readonly publicUrl: (request: Request) => string;
  readonly isOpenForWork: () => { open: boolean; reason: string };
  /** Builds the capabilities handed to `run` for one call. */
  readonly contextFor: (entry: PluginEntry | SkillEntry, signal: AbortSignal, requestId: string) => PluginContext;
}

/** Parses the request body as a JSON object or throws the matching 400/415. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(type)) throw new ApiError("UNSUPPORTED_MEDIA_TYPE");
  const text = await request.text();
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
    throw new ApiError("INVALID_REQUEST", {
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

export async function runPaidOperation<E extends PluginEntry | SkillEntry>(
  deps: OperationDeps,
  { request, context, entry, input, route, present }: RunPaidOptions<E>,
): Promise<Response> {
  context.operationId = entry.id;
  try {
    const open = deps.isOpenForWork();
    if (!open.open) {
      throw new ApiError("SERVICE_PAUSED", {
        message: `The service is not open for work${open.reason ? `: ${open.reason}` : ""}. Nothing was charged.`,
        details: { pause_reason: open.reason },
      });
    }
    const value = validateInput(entry, input);
    const charge: Charge = {
      operationId: entry.id,
      route,
      resourceUrl: new URL(route.replace(/^POST /, ""), deps.publicUrl(request)).toString(),
      description: entry.definition.summary,
      priceMicros: entry.priceOf(value as never),
      inputSchema: entry.definition.input,
      inputExample: entry.definition.examples[0]?.input,
      outputExample: entry.definition.examples[0]?.output,
    };
    const authorized = await deps.payments.authorize(request, charge);
    if (authorized.kind === "answer") {
      context.outcome = authorized.response.status === 402 ? "challenge" : `http_${authorized.response.status}`;
      return authorized.response;
    }

    let result: unknown;
    try {
      result = await runWithTimeout(entry, value, request.signal, (signal) => deps.contextFor(entry, signal, context.id));
    } catch (error) {
      authorized.payment.release();
      throw error;
    }

    const settled = await authorized.payment.settle({ requestId: context.id });
    if (settled.kind === "answer") {
      context.outcome = `settlement_${settled.response.status}`;
      return settled.response;
    }
    context.outcome = "ok";
    return jsonResponse(withRequestId(present(result), context.id), 200, settled.headers);
  } catch (error) {
    return errorResponse(error, context, deps.log);
  }
}

/** Runs `run` with an abort signal for its declared timeout (and the caller leaving); a run that ignores the signal is abandoned. */
export async function runWithTimeout(
  entry: PluginEntry | SkillEntry,
  input: unknown,
  callerSignal: AbortSignal,
  makeContext: (signal: AbortSignal) => PluginContext,
): Promise<unknown> {
  const timeout = AbortSignal.timeout(entry.definition.timeoutMs);
  const signal = AbortSignal.any([timeout, callerSignal]);
  const ctx = makeContext(signal);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () =>
      reject(
        timeout.aborted
          ? new ApiError("OPERATION_TIMEOUT", { message: `${entry.id} ran past its ${entry.definition.timeoutMs} ms timeout; nothing was charged.` })
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
