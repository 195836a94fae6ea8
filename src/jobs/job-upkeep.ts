/**
 * @module jobs/job-upkeep — keeping leases honest: renewing the ones a worker holds, reaping the ones
 * that lapsed (their worker died or stalled: requeued, or failed after `maxAttempts` claims; a job
 * held at acceptance by a worker that died is dropped unless it began settling), and, with one
 * instance, failing at start the jobs a previous process left running.
 */
import { ApiError } from "../errors.ts";
import { type JobLease, type JobRow, leaseOf } from "./job-store.ts";
import { failJob, unknownSettlement } from "./job-outcomes.ts";
import { expiry, restorePayment, type WorkerState, write } from "./worker-state.ts";

/** Fails a job whose run stopped, saying what became of its payment (the settlement row decides when the job row does not). */
async function failStopped(state: WorkerState, row: JobRow, what: { running: string; settling: string }, lease: JobLease | undefined): Promise<void> {
  const settlement = row.settledAt === null ? await state.jobs.settlementOf(row.id) : undefined;
  if (settlement?.state === "pending") {
    const message = `${what.settling}; a refund is recorded should the payment have landed.`;
    await write(state, "fail", () =>
      state.jobs.fail(row.id, { status: "failed", code: "JOB_INTERRUPTED", message, refundReason: unknownSettlement }, state.now(), expiry(state, state.now()), lease),
    );
    return;
  }
  const settled = row.settledAt !== null || settlement?.state === "settled";
  const message = `${what.running}. ${settled ? "A refund is recorded." : "Nothing was charged."}`;
  await failJob(state, row, new ApiError("JOB_INTERRUPTED", { message }), settled, restorePayment(state, row), lease);
}

/** One instance: a job running when the previous process stopped is failed, not lost (a refund recorded when settled). */
export async function failInterrupted(state: WorkerState): Promise<number> {
  const running = await state.jobs.listByStatus("running");
  for (const row of running) {
    await failStopped(state, row, { running: `The server stopped while ${row.skill} was running`, settling: `The server stopped while ${row.skill} was settling` }, undefined);
  }
  return running.length;
}

export async function renewLeases(state: WorkerState): Promise<void> {
  if (state.stopped) return;
  await state.jobs.renewLeases(state.id, state.now().getTime() + state.leaseMs);
}

/** Lapsed leases: a held job whose acceptor died is discarded unless it began settling; a claimed one is requeued, or failed after maxAttempts. */
export async function reap(state: WorkerState): Promise<number> {
  const { jobs } = state;
  if (state.stopped) return 0;
  await renewLeases(state);
  let reaped = 0;
  for (const row of await jobs.expiredLeases(state.now().getTime())) {
    if (state.stopped) break;
    const lease = leaseOf(row)!;
    if (row.status === "queued" && (await jobs.settlementOf(row.id)) === undefined) {
      await jobs.discard(row.id);
    } else if (row.attempts >= state.maxAttempts) {
      const times = `${row.skill} was interrupted ${row.attempts} times (its worker stopped)`;
      await failStopped(state, row, { running: times, settling: `${times}, the last time while settling` }, lease);
    } else if (!(await jobs.requeue(row.id, lease))) {
      continue;
    }
    reaped++;
  }
  if (reaped) state.deps.log.info("lapsed job leases reaped", { reaped });
  return reaped;
}
