/**
 * @module mcp/tool-call — one `tools/call` over the paid-call core, with x402's MCP transport
 * (coinbase/x402 specs/transports-v2/mcp.md): the payment comes in `_meta["x402/payment"]`; a
 * call not paid (or paid wrongly) answers a tool error whose structured content is the
 * PaymentRequired offer and whose text is its JSON; a paid success carries
 * `_meta["x402/payment-response"]`; a settlement that fails returns no tool content, only the
 * payment error. Arguments that fail the tool's schema are -32602 before anything is priced.
 * A paid tool's offer declares x402's payment-identifier extension, as HTTP's does: a retry of the
 * same call under the same identifier (a lost answer) gets the held result and payment response
 * again, never a second run or charge.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { InvalidParams } from "./envelope.ts";
import type { CrawlDoor } from "../crawl/crawl-facet.ts";
import { ApiError, toApiError } from "../errors.ts";
import type { PaidCall } from "../paid-call/call.ts";
import type { QueuedJob } from "../paid-call/job-queue.ts";
import { type SellDeps, sell } from "../paid-call/sell.ts";
import { type Charge, isHoldingPayment, type Payments } from "../paid-call/payments.ts";
import type { PluginEntry, SkillEntry } from "../plugin/registry.ts";
import { summarizeIssues } from "../plugin/schema.ts";
import { noPayment, presentValue } from "../x402/presented-payment.ts";
import { type PaymentAnswer, reasonOf } from "../x402/payment-answer.ts";
import type { PaymentLookup } from "../x402/payment-records.ts";
import type { SettleResponse } from "../x402/messages.ts";
import { MCP_PATH, type ToolBinding } from "./tools.ts";

export const PAYMENT_META_KEY = "x402/payment";
export const PAYMENT_RESPONSE_META_KEY = "x402/payment-response";

export interface ToolCallDeps {
  /** How a call is sold (its queue takes async skills). */
  readonly operation: SellDeps;
  readonly payments: Payments;
  readonly jobStatus: (id: string) => Promise<{ readonly view: Record<string, unknown> } | undefined>;
  readonly lookupPayment?: ((id: string) => Promise<PaymentLookup | undefined>) | undefined;
  /** A crawl's status and cancel for its payer (crawl/crawl-service.ts); they throw ApiErrors. */
  readonly crawls?: CrawlDoor;
}

/** The call as MCP carries it: arguments, `_meta`, and who asked from where. */
export interface McpCall {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  readonly meta: Record<string, unknown> | undefined;
  readonly requestId: string;
  readonly clientAddress: () => string;
  readonly origin: string;
  readonly signal: AbortSignal;
  readonly report: { operationId?: string; outcome?: string; paymentInBody?: boolean };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function textResult(body: unknown, extra: Partial<CallToolResult> = {}): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(body) }], ...(isObject(body) ? { structuredContent: body } : {}), ...extra };
}

function settlementMeta(settlement: SettleResponse | undefined): Partial<CallToolResult> {
  return settlement ? { _meta: { [PAYMENT_RESPONSE_META_KEY]: settlement } } : {};
}

function errorResult(error: ApiError, requestId: string): CallToolResult {
  return textResult(error.toBody(requestId), { isError: true });
}

/** A payment answer as the MCP transport says it: the offer as a tool error; a settlement outcome in `_meta`; a pending one with no offer (paying again could pay twice). */
async function paymentAnswerResult(answer: PaymentAnswer, charge: Charge, deps: ToolCallDeps, requestId: string): Promise<CallToolResult> {
  if (answer.kind === "replayed") return textResult(answer.held.body, settlementMeta(answer.held.settlement));
  const meta = settlementMeta(answer.settlement);
  if (answer.code === "SETTLEMENT_PENDING") {
    return textResult({ ok: false, error: answer.code, message: answer.message ?? new ApiError(answer.code).message, ...(answer.details ?? {}), request_id: requestId }, { isError: true, ...meta });
  }
  const required = answer.required ?? (await deps.payments.offer(charge, `${answer.code.toLowerCase()}: ${reasonOf(answer)}`));
  return { isError: true, structuredContent: required as unknown as Record<string, unknown>, content: [{ type: "text", text: JSON.stringify(required) }], ...meta };
}

function checkArguments(entry: PluginEntry | SkillEntry, args: Record<string, unknown>): void {
  const checked = entry.validateInput(args);
  if (!checked.ok) throw new InvalidParams(`Invalid arguments for ${entry.id}: ${summarizeIssues(checked.issues)}`, { issues: checked.issues });
}

export async function callTool(deps: ToolCallDeps, binding: ToolBinding, call: McpCall): Promise<CallToolResult> {
  switch (binding.kind) {
    case "job_status":
      return jobStatus(deps, call);
    case "payment_status":
      return paymentStatus(deps, call);
    case "crawl_status":
    case "crawl_cancel":
      return crawlCall(deps, binding.kind, call);
    default:
      break;
  }
  const entry = binding.entry;
  call.report.operationId = entry.id;
  checkArguments(entry, call.arguments);
  const carried = call.meta !== undefined && Object.hasOwn(call.meta, PAYMENT_META_KEY);
  const presented = carried ? presentValue(call.meta![PAYMENT_META_KEY]) : noPayment;
  if (carried) call.report.paymentInBody = true;
  const paidCall: PaidCall = {
    requestId: call.requestId,
    clientAddress: call.clientAddress,
    origin: call.origin,
    signal: call.signal,
    payment: presented,
    alwaysOffer: true,
    report: call.report,
  };
  const resourceUrl = `${new URL(MCP_PATH, call.origin).toString()}?tool=${binding.tool.name}`;
  try {
    const outcome = await sell<never, QueuedJob>(deps.operation, paidCall, {
      entry,
      input: call.arguments,
      resourceUrl,
      mcpTool: binding.tool.name,
      ...(binding.kind === "plugin" ? { route: `MCP ${binding.tool.name}`, replayable: true } : {}),
    });
    switch (outcome.kind) {
      case "answer":
        return await paymentAnswerResult(outcome.answer, outcome.charge, deps, call.requestId);
      case "instead":
        throw new Error("MCP calls take no afterAdmit");
      case "done":
        if (binding.kind !== "plugin") return textResult({ ...(outcome.result as Record<string, unknown>), request_id: call.requestId }, settlementMeta(outcome.settlement));
        if (isHoldingPayment(outcome.payment)) outcome.payment.hold({ status: 200, headers: {}, body: outcome.result, ...(outcome.settlement ? { settlement: outcome.settlement } : {}) });
        return textResult(outcome.result, settlementMeta(outcome.settlement));
      case "accepted": {
        const job = outcome.job;
        const body = { ok: true, skill: entry.id, job_id: job.id, status: job.status, poll_tool: "job_status", retry_after_sec: 3, request_id: call.requestId };
        return textResult(body, settlementMeta(job.settlement ?? undefined));
      }
    }
  } catch (error) {
    if (error instanceof InvalidParams) throw error;
    const failure = toApiError(error);
    call.report.outcome = failure.code;
    if (failure.code === "INTERNAL_ERROR") deps.operation.log.error("internal error", { request_id: call.requestId, error: error instanceof Error ? error.message : String(error) });
    return errorResult(failure, call.requestId);
  }
}

function stringArgument(call: McpCall, name: string, pattern?: RegExp): string {
  const value = call.arguments[name];
  const extra = Object.keys(call.arguments).filter((k) => k !== name);
  if (typeof value !== "string" || value.length === 0 || value.length > 200 || (pattern && !pattern.test(value)) || extra.length > 0) {
    throw new InvalidParams(`Invalid arguments for ${call.name}: "${name}" must be ${pattern ? `a string matching ${pattern.source}` : "a non-empty string"}, and nothing else is accepted.`);
  }
  return value;
}

async function jobStatus(deps: ToolCallDeps, call: McpCall): Promise<CallToolResult> {
  const id = stringArgument(call, "job_id", /^job_[0-9a-f]{32}$/);
  const found = await deps.jobStatus(id);
  if (!found) return errorResult(new ApiError("JOB_NOT_FOUND", { message: "No such job: the id is wrong, or the job finished more than the result lifetime ago and was deleted." }), call.requestId);
  return textResult({ ...found.view, request_id: call.requestId });
}

async function crawlCall(deps: ToolCallDeps, kind: "crawl_status" | "crawl_cancel", call: McpCall): Promise<CallToolResult> {
  const { crawl_id: id, proof, cursor, limit } = call.arguments;
  const known = kind === "crawl_status" ? ["crawl_id", "proof", "cursor", "limit"] : ["crawl_id", "proof"];
  if (typeof id !== "string" || !/^crawl_[0-9a-f]{32}$/.test(id) || (proof !== undefined && (typeof proof !== "string" || proof.length > 8192)) || Object.keys(call.arguments).some((k) => !known.includes(k))) {
    throw new InvalidParams(`Invalid arguments for ${call.name}: crawl_id (crawl_ and 32 hex digits) and an optional proof string${kind === "crawl_status" ? ", cursor and limit" : ""}; nothing else is accepted.`);
  }
  if (!deps.crawls) return errorResult(new ApiError("CRAWL_NOT_FOUND"), call.requestId);
  const asker = { proof: proof as string | undefined, origin: call.origin };
  try {
    const body = kind === "crawl_status" ? await deps.crawls.status(id, asker, { cursor, limit }) : await deps.crawls.stop(id, asker);
    return textResult({ ...body, request_id: call.requestId });
  } catch (error) {
    const failure = toApiError(error);
    call.report.outcome = failure.code;
    return errorResult(failure, call.requestId);
  }
}

async function paymentStatus(deps: ToolCallDeps, call: McpCall): Promise<CallToolResult> {
  const id = stringArgument(call, "id");
  const found = await deps.lookupPayment?.(id);
  if (!found) {
    return errorResult(new ApiError("PAYMENT_NOT_FOUND", { message: deps.lookupPayment ? "No payment is known under that transaction id or nonce." : "Payments are off on this server." }), call.requestId);
  }
  return textResult({ ok: true, payment: found, request_id: call.requestId });
}
