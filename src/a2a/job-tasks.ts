/**
 * @module a2a/job-tasks — an async skill's task follows its job: while the task is `working`, a
 * load reads the job and, once it ended, stores the task completed (the job's view as the
 * artifact, `payment-completed` with the receipt when it was paid) or failed (`payment-failed`
 * when it was paid: failed work is not settled, or its refund is on the view). A working job's
 * task cannot be canceled: the job runs to its end and settles only on success.
 */
import { TaskState } from "@a2a-js/sdk";
import { TaskNotCancelableError } from "@a2a-js/sdk/errors";
import type { JobRow } from "../jobs/job-store.ts";
import type { A2aTasks } from "./task-store.ts";
import { agentMessage, dataPart, ERROR_KEY, JOB_KEY, RECEIPTS_KEY, resultArtifact, STATUS_KEY, type Task, textPart } from "./parts.ts";

export type JobLookup = (id: string) => Promise<{ readonly row: JobRow; readonly view: Record<string, unknown> } | undefined>;

const jobOf = (task: Task | undefined): string | undefined => {
  const id = task?.metadata?.[JOB_KEY];
  return typeof id === "string" && task?.status?.state === TaskState.TASK_STATE_WORKING ? id : undefined;
};

/** The task once its job ended, or undefined while it runs. */
function ended(task: Task, job: Awaited<ReturnType<JobLookup>>): Task | undefined {
  const ids = { contextId: task.contextId, taskId: task.id };
  const at = new Date().toISOString();
  if (!job) {
    return { ...task, status: { state: TaskState.TASK_STATE_FAILED, message: agentMessage(ids, [textPart("The job is gone (its result lifetime passed).")]), timestamp: at } };
  }
  const { row, view } = job;
  const paid = row.settleMode !== "free";
  if (row.status === "completed") {
    const metadata = paid && row.settlement ? { [STATUS_KEY]: "payment-completed", [RECEIPTS_KEY]: [row.settlement] } : undefined;
    return { ...task, status: { state: TaskState.TASK_STATE_COMPLETED, message: agentMessage(ids, [textPart(`${row.skill} completed.`)], metadata), timestamp: at }, artifacts: [resultArtifact(row.skill, view)] };
  }
  if (row.status === "failed" || row.status === "expired") {
    const metadata = paid ? { [STATUS_KEY]: "payment-failed", [ERROR_KEY]: row.errorCode } : undefined;
    return { ...task, status: { state: TaskState.TASK_STATE_FAILED, message: agentMessage(ids, [textPart(row.errorMessage ?? `${row.skill} ${row.status}.`), dataPart(view)], metadata), timestamp: at }, artifacts: [] };
  }
  return undefined;
}

export function jobTasks(tasks: A2aTasks, lookup: JobLookup): A2aTasks {
  return {
    async load(taskId, context) {
      const task = await tasks.load(taskId, context);
      const jobId = jobOf(task);
      if (!task || !jobId) return task;
      const now = ended(task, await lookup(jobId));
      if (!now) return task;
      await tasks.save(now, context);
      return now;
    },
    async save(task, context) {
      if (task.status?.state === TaskState.TASK_STATE_CANCELED) {
        const stored = await tasks.load(task.id, context);
        const jobId = jobOf(stored);
        if (jobId && !ended(stored!, await lookup(jobId))) throw new TaskNotCancelableError(`Task ${task.id} follows job ${jobId}, which runs to its end (settled only on success): poll it with tasks/get.`);
      }
      await tasks.save(task, context);
    },
  };
}
