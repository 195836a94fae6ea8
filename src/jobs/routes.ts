/**
 * @module jobs/routes — POST /v1/jobs (and /v1/jobs/:skill) and GET /v1/jobs/:id, thin over
 * http/operation (admission: pause, validation, limits, payment, rate limit), the worker and
 * the idempotency store.
 *
 *   sync skill:  admit → run (timeout) → settle → 200 {ok, skill, result}
 *   async skill: admit (queue room first) → accept (settle now only if the authorization cannot
 *                wait) → 202 {ok, job_id, status, poll} + Location + Retry-After
 */
import { ApiError, toApiError } from "../errors.ts";
import { admitPaidCall, type OperationDeps, readJsonObject, runWithTimeout, settleCall } from "../http/operation.ts";
import type { AcceptedPayment } from "../http/payments.ts";
import { contextOf, type RequestContext } from "../http/request-context.ts";
import { errorResponse, jsonResponse, withRequestId } from "../http/respond.ts";
import { formatDollars, priceIn, type PriceTable } from "../plugin/price.ts";
import type { Registry, SkillEntry } from "../plugin/registry.ts";
import { paymentPayloadDigest } from "../x402/payer.ts";
import { addressScope, type ClaimResult, hashRequestBody, type IdempotencyStore, readIdempotencyKey, storedResponseOf } from "./idempotency.ts";
import { isTerminal } from "./job-status.ts";
import { type JobRow, type JobStore, newJobId } from "./job-store.ts";
import { type JobWorker, presentResult } from "./worker.ts";

export interface JobRoutesDeps {
  readonly operation: OperationDeps;
  readonly registry: Registry;
  readonly worker: JobWorker;
  readonly jobs: JobStore;
  readonly idempotency: IdempotencyStore;
  readonly now: () => Date;
}

export interface JobRoutes {
  submit(request: Request, skillFromPath: string | undefined): Promise<Response>;
  get(request: Request, id: string): Response;
}

const jobIdPattern = /^job_[0-9a-f]{32}$/;

/** Runs once the payment is verified, with the verified caller; an answer replaces the work (the payment is then released unused). */
type AfterAdmit = (caller: string) => Response | undefined;
/** Seconds a poller should wait before asking again. */
const pollAfterSec = { queued: 3, running: 2 } as const;

/** The declared price the payment was made at: the first of its network's price columns the table has (free → base). */
function chargedMicros(prices: PriceTable, payment: AcceptedPayment): number {
  return priceIn(prices, payment.priceColumns ?? []) ?? prices.base;
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
  const { operation, registry, worker, jobs, idempotency, now } = deps;
  const log = operation.log;

  async function runSync(request: Request, context: RequestContext, entry: SkillEntry, fields: Record<string, unknown>, afterAdmit?: AfterAdmit): Promise<Response> {
    const route = `POST /v1/jobs/${entry.id}`;
    const admitted = await admitPaidCall(operation, { request, context, entry, input: fields, route });
    if (admitted.kind === "answer") return admitted.response;
    const { value, payment } = admitted;
    const instead = afterAdmit?.(admitted.caller);
    if (instead) {
      payment.release();
      return instead;
    }
    const startedAt = now();
    const record = (status: "completed" | "failed" | "expired", settled: boolean, errorCode: string | null) => {
      try {
        jobs.recordSyncCall({
          id: newJobId(),
          skill: entry.id,
          status,
          caller: admitted.caller,
          payer: payment.payer ?? null,
          network: payment.network ?? null,
          priceMicros: chargedMicros(admitted.priceMicros, payment),
          settleMode: payment.payer ? "completion" : "free",
          requestId: context.id,
          createdAt: startedAt,
          startedAt,
          finishedAt: now(),
          settled,
          errorCode,
        });
      } catch (error) {
        log.warn("could not record a sync skill call", { request_id: context.id, error: (error as Error).message });
      }
    };
    let result: unknown;
    try {
      result = await runWithTimeout(entry, value, request.signal, (signal) => operation.contextFor(entry, signal, context.id, { payer: payment.payer, origin: operation.publicUrl(request) }), worker.effectiveTimeoutMs(entry));
    } catch (error) {
      payment.release();
      const failure = toApiError(error);
      record(failure.code === "OPERATION_TIMEOUT" ? "expired" : "failed", false, failure.code);
      throw error;
    }
    const settled = await settleCall(operation, { request, context, entry, payment, result });
    if (settled.kind === "answer") {
      context.outcome = `settlement_${settled.response.status}`;
      record("failed", false, "SETTLEMENT_FAILED");
      return settled.response;
    }
    record("completed", payment.payer !== undefined, null);
    context.outcome = "ok";
    const presented = presentResult(entry, value, settled.result);
    // spec §2.4: some answers carry their fields beside ok and skill (capital.ticket's `ticket`).
    const body = entry.definition.inlineResult && typeof presented === "object" && presented !== null ? { ok: true, skill: entry.id, ...presented } : { ok: true, skill: entry.id, result: presented };
    return jsonResponse(withRequestId(body, context.id), 200, { ...admitted.headers, ...settled.headers });
  }

  async function submitAsync(request: Request, context: RequestContext, entry: SkillEntry, fields: Record<string, unknown>, afterAdmit?: AfterAdmit): Promise<Response> {
    const route = `POST /v1/jobs/${entry.id}`;
    const admitted = await admitPaidCall(operation, {
      request,
      context,
      entry,
      input: fields,
      route,
      beforePayment: () => {
        if (worker.hasRoom()) return;
        const retry = worker.retryAfterSec();
        throw new ApiError("QUEUE_FULL", {
          message: `The job queue is full; retry in ${retry} s. Nothing was charged.`,
          headers: { "Retry-After": String(retry) },
          details: { retry_after_sec: retry },
        });
      },
    });
    if (admitted.kind === "answer") return admitted.response;
    const { value, payment } = admitted;
    const instead = afterAdmit?.(admitted.caller);
    if (instead) {
      payment.release();
      return instead;
    }
    const id = newJobId();
    // The skill's one-use resource (a quote) is taken with the verified payer before acceptance:
    // of two paid runs racing for it, the loser is refused here and its payment released.
    let giveBack: (() => void) | void = undefined;
    try {
      giveBack = entry.definition.claim?.(value as never, operation.contextFor(entry, request.signal, context.id, { payer: payment.payer, origin: operation.publicUrl(request) }), id);
    } catch (error) {
      payment.release();
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
        priceMicros: chargedMicros(admitted.priceMicros, payment),
        requestId: context.id,
      });
    } catch (error) {
      giveBack?.();
      throw error;
    }
    if (outcome.kind === "answer") {
      giveBack?.();
      context.outcome = `settlement_${outcome.response.status}`;
      return outcome.response;
    }
    const job = outcome.job;
    const poll = `/v1/jobs/${job.id}`;
    const retry = pollAfterSec.queued;
    context.outcome = "accepted";
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
      ...admitted.headers,
      ...(job.paymentResponse ? { "PAYMENT-RESPONSE": job.paymentResponse } : {}),
      Location: new URL(poll, operation.publicUrl(request)).toString(),
      "Retry-After": String(retry),
    });
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

        const key = readIdempotencyKey(request.headers);
        let afterAdmit: AfterAdmit | undefined;
        if (key !== undefined) {
          const bodyHash = hashRequestBody({ skill: entry.id, ...fields });
          const payloadDigest = operation.payments.enabled ? paymentPayloadDigest(request.headers) : null;
          if (payloadDigest === null) {
            const scope = addressScope(context.clientIp);
            const early = answerClaim(idempotency.claim(scope, key, bodyHash, now()), context);
            if (early) return early;
            claimed = { scope, key };
          } else {
            // Paid: the very payload accepted under this key may be answered again at once; any
            // other payload is verified first and the key claimed under the payer it proves.
            const identical = idempotency.findIdentical(key, bodyHash, payloadDigest, now());
            const early = identical && answerClaim(identical, context);
            if (early) return early;
            afterAdmit = (caller) => {
              try {
                const answer = answerClaim(idempotency.claim(caller, key, bodyHash, now(), payloadDigest), context);
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
          response = entry.definition.async ? await submitAsync(request, context, entry, fields, afterAdmit) : await runSync(request, context, entry, fields, afterAdmit);
        } catch (error) {
          response = errorResponse(error, context, log);
        }
        if (claimed) {
          // Only accepted work is remembered; anything else frees the key for the (paid) retry.
          if (response.status >= 200 && response.status < 300) {
            const jobId = response.status === 202 ? ((await response.clone().json()) as { job_id?: string }).job_id ?? null : null;
            idempotency.remember(claimed.scope, claimed.key, await storedResponseOf(response), jobId);
          } else {
            idempotency.release(claimed.scope, claimed.key);
          }
        }
        return response;
      } catch (error) {
        if (claimed) idempotency.release(claimed.scope, claimed.key);
        return errorResponse(error, context, log);
      }
    },

    get(request, id) {
      const context = contextOf(request);
      context.route = "/v1/jobs/:id";
      const row = jobIdPattern.test(id) ? jobs.get(id) : undefined;
      const gone = !row || row.sync || (isTerminal(row.status) && (row.expiresAt === null || Date.parse(row.expiresAt) <= now().getTime()));
      if (!row || gone) {
        return errorResponse(new ApiError("JOB_NOT_FOUND", { message: "No such job: the id is wrong, or the job finished more than the result lifetime ago and was deleted." }), context, log);
      }
      const headers: Record<string, string> = { "Cache-Control": "no-store" };
      if (!isTerminal(row.status)) headers["Retry-After"] = String(pollAfterSec[row.status as "queued" | "running"]);
      if (row.status === "completed" && row.paymentResponse) headers["PAYMENT-RESPONSE"] = row.paymentResponse;
      return jsonResponse(withRequestId(jobView(row, registry.skill(row.skill)), context.id), 200, headers);
    },
  };
}
