/**
 * @module jobs/routes — POST /v1/jobs (and /v1/jobs/:skill) and GET /v1/jobs/:id: the HTTP face of
 * a skill's sale (paid-call/sell.ts: admission, payment, run or queue) with the Idempotency-Key store.
 *
 *   sync skill:  200 {ok, skill, result} + PAYMENT-RESPONSE
 *   async skill: 202 {ok, job_id, status, poll} + Location + Retry-After
 */
import { ApiError } from "../errors.ts";
import { httpCall, type OperationDeps, paymentAnswerResponse, readJsonObject, routeUrl } from "../http/operation.ts";
import { type RateDecision, rateLimitHeaders } from "../paid-call/rate-limit.ts";
import { contextOf, type RequestContext } from "../http/request-context.ts";
import type { PaidCall } from "../paid-call/call.ts";
import { sell } from "../paid-call/sell.ts";
import { errorResponse, jsonResponse, withRequestId } from "../http/respond.ts";
import { formatDollars } from "../plugin/price.ts";
import type { Registry, SkillEntry } from "../plugin/registry.ts";
import { paymentPayloadDigest } from "../x402/payer.ts";
import { addressScope, type ClaimResult, hashRequestBody, readIdempotencyKey, storedResponseOf } from "./idempotency.ts";
import type { IdempotencyKeys } from "./idempotency-keys.ts";
import { isTerminal } from "./job-status.ts";
import type { JobRow, JobStore } from "./job-store.ts";
import { paymentResponseHeaders } from "../x402/http-answer.ts";

export interface JobRoutesDeps {
  /** How a call is sold; its queue is this room's worker (wired by the app). */
  readonly operation: OperationDeps<JobRow>;
  readonly registry: Registry;
  readonly jobs: JobStore;
  readonly idempotency: IdempotencyKeys;
  readonly now: () => Date;
}

export interface JobRoutes {
  submit(request: Request, skillFromPath: string | undefined): Promise<Response>;
  get(request: Request, id: string): Promise<Response>;
}

const jobIdPattern = /^job_[0-9a-f]{32}$/;

/** Runs once the payment is verified, with the verified caller; an answer replaces the work (the payment is then released unused). */
type AfterAdmit = (caller: string) => Promise<Response | undefined>;
/** Seconds a poller should wait before asking again. */
const pollAfterSec = { queued: 3, running: 2 } as const;

/** An async job a poller may see: a well-formed id, not a sync call's record, not past its result lifetime. */
export async function findVisibleJob(jobs: JobStore, id: string, now: () => Date): Promise<JobRow | undefined> {
  const row = jobIdPattern.test(id) ? await jobs.get(id) : undefined;
  const gone = !row || row.sync || (isTerminal(row.status) && (row.expiresAt === null || Date.parse(row.expiresAt) <= now().getTime()));
  return gone ? undefined : row;
}

export function jobView(row: JobRow, entry: SkillEntry | undefined): Record<string, unknown> {
  const terminal = isTerminal(row.status);
  return {
    ok: true,
    id: row.id,
    job_id: row.id,
    skill: row.skill,
    status: row.status,
    created_at: row.createdAt,
    started_at: row.startedAt,
    finished_at: row.finishedAt,
    ...(terminal ? { expires_at: row.expiresAt } : { retry_after_sec: pollAfterSec[row.status as "queued" | "running"] }),
    ...(row.status === "completed" ? { result: row.result } : {}),
    ...(row.status === "failed" || row.status === "expired" ? { error: { code: row.errorCode, message: row.errorMessage } } : {}),
    payment: {
      price_usd: formatDollars(row.priceMicros),
      settlement: row.settleMode === "free" ? "free" : row.settleMode === "acceptance" ? "at_acceptance" : "on_completion",
      settled: row.settledAt !== null,
      ...(row.refundState
        ? { refund: { state: row.refundState, reason: row.refundReason, ...(row.refundTx ? { transaction: row.refundTx } : {}), ...(row.refundPaidAt ? { paid_at: row.refundPaidAt } : {}) } }
        : {}),
    },
    ...(entry ? { timeout_sec: Math.ceil(entry.definition.timeoutMs / 1000) } : {}),
  };
}

/** A stored answer to send again, or undefined when the key was just claimed; throws the 422/409 refusals. */
function answerClaim(claim: ClaimResult, context: RequestContext): Response | undefined {
  switch (claim.kind) {
    case "claimed":
      return undefined;
    case "replay":
      context.outcome = "idempotent_replay";
      return new Response(claim.response.body, { status: claim.response.status, headers: { ...claim.response.headers, "Idempotent-Replayed": "true" } });
    case "mismatch":
      throw new ApiError("IDEMPOTENCY_KEY_REUSED", { message: "This Idempotency-Key was already used with a different body; use a new key for a new request. Nothing was charged." });
    case "in_flight":
      throw new ApiError("IDEMPOTENCY_IN_PROGRESS", {
        message: "A request with this Idempotency-Key is still being accepted; retry shortly. Nothing was charged.",
        headers: { "Retry-After": "1" },
      });
  }
}

export function createJobRoutes(deps: JobRoutesDeps): JobRoutes {
  const { operation, registry, jobs, idempotency, now } = deps;
  const log = operation.log;

  async function submitSkill(call: PaidCall, context: RequestContext, entry: SkillEntry, fields: Record<string, unknown>, afterAdmit?: AfterAdmit): Promise<Response> {
    const outcome = await sell(operation, call, { entry, input: fields, resourceUrl: routeUrl(`POST /v1/jobs/${entry.id}`, call.origin), ...(afterAdmit ? { afterAdmit } : {}) });
    const rateHeaders = (rate: RateDecision | undefined) => (rate ? rateLimitHeaders(rate) : {});
    switch (outcome.kind) {
      case "answer":
        return paymentAnswerResponse(outcome.answer, context.id);
      case "instead":
        return outcome.value;
      case "done":
        return jsonResponse(withRequestId(outcome.result as Record<string, unknown>, context.id), 200, { ...rateHeaders(outcome.rate), ...paymentResponseHeaders(outcome.settlement) });
      case "accepted": {
        const job = outcome.job;
        const poll = `/v1/jobs/${job.id}`;
        const retry = pollAfterSec.queued;
        const body = {
          ok: true,
          skill: entry.id,
          job_id: job.id,
          status: job.status,
          poll,
          retry_after_sec: retry,
          settlement: jobView(job, entry).payment,
        };
        return jsonResponse(withRequestId(body, context.id), 202, {
          ...rateHeaders(outcome.rate),
          ...paymentResponseHeaders(job.settlement ?? undefined),
          Location: new URL(poll, call.origin).toString(),
          "Retry-After": String(retry),
        });
      }
    }
  }

  return {
    async submit(request, skillFromPath) {
      const context = contextOf(request);
      context.route = skillFromPath ? "/v1/jobs/:skill" : "/v1/jobs";
      let claimed: { scope: string; key: string } | undefined;
      try {
        const body = await readJsonObject(request);
        const { skill: named, ...fields } = body;
        if (skillFromPath && named !== undefined && named !== skillFromPath) {
          throw new ApiError("INVALID_REQUEST", { message: `The body names skill "${String(named)}" but the path names "${skillFromPath}".` });
        }
        const name = skillFromPath ?? named;
        const entry = typeof name === "string" ? registry.skill(name) : undefined;
        if (!entry) {
          throw new ApiError("UNKNOWN_SKILL", {
            message: name === undefined ? 'Name the skill in the body field "skill".' : `No skill "${String(name)}".`,
            details: { skills: registry.skills.map((s) => s.id) },
          });
        }
        context.operationId = entry.id;

        // The payment is decoded here, once: the Idempotency-Key match and the call read the same value.
        const call = httpCall(operation, request, context);
        const key = readIdempotencyKey(request.headers);
        let afterAdmit: AfterAdmit | undefined;
        if (key !== undefined) {
          const bodyHash = hashRequestBody({ skill: entry.id, ...fields });
          const payloadDigest = operation.payments.enabled ? paymentPayloadDigest(call.payment) : null;
          if (payloadDigest === null) {
            const scope = addressScope(context.clientIp);
            const early = answerClaim(await idempotency.claim(scope, key, bodyHash, now()), context);
            if (early) return early;
            claimed = { scope, key };
          } else {
            // Paid: the very payload accepted under this key may be answered again at once; any
            // other payload is verified first and the key claimed under the payer it proves.
            const identical = await idempotency.findIdentical(key, bodyHash, payloadDigest, now());
            const early = identical && answerClaim(identical, context);
            if (early) return early;
            afterAdmit = async (caller) => {
              try {
                const answer = answerClaim(await idempotency.claim(caller, key, bodyHash, now(), payloadDigest), context);
                if (!answer) claimed = { scope: caller, key };
                return answer;
              } catch (error) {
                return errorResponse(error, context, log);
              }
            };
          }
        }

        let response: Response;
        try {
          response = await submitSkill(call, context, entry, fields, afterAdmit);
        } catch (error) {
          response = errorResponse(error, context, log);
        }
        if (claimed) {
          // Only accepted work is remembered; anything else frees the key for the (paid) retry.
          if (response.status >= 200 && response.status < 300) {
            const jobId = response.status === 202 ? ((await response.clone().json()) as { job_id?: string }).job_id ?? null : null;
            await idempotency.remember(claimed.scope, claimed.key, await storedResponseOf(response), jobId);
          } else {
            await idempotency.release(claimed.scope, claimed.key);
          }
        }
        return response;
      } catch (error) {
        if (claimed) await idempotency.release(claimed.scope, claimed.key);
        return errorResponse(error, context, log);
      }
    },

    async get(request, id) {
      const context = contextOf(request);
      context.route = "/v1/jobs/:id";
      const row = await findVisibleJob(jobs, id, now);
      if (!row) {
        return errorResponse(new ApiError("JOB_NOT_FOUND", { message: "No such job: the id is wrong, or the job finished more than the result lifetime ago and was deleted." }), context, log);
      }
      const headers: Record<string, string> = {
        "Cache-Control": "no-store",
        ...(isTerminal(row.status) ? {} : { "Retry-After": String(pollAfterSec[row.status as "queued" | "running"]) }),
        ...(row.status === "completed" ? paymentResponseHeaders(row.settlement ?? undefined) : {}),
      };
      return jsonResponse(withRequestId(jobView(row, registry.skill(row.skill)), context.id), 200, headers);
    },
  };
}
