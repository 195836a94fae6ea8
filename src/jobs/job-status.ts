/**
 * @module jobs/job-status — the job states and the only transitions between them (spec
 * job-worker §3 leaves them to us; OpenAPI and the README print this table).
 */

export const jobStatuses = ["queued", "running", "completed", "failed", "expired"] as const;
export type JobStatus = (typeof jobStatuses)[number];

/** What each state means, for the docs. */
export const jobStatusMeaning: Record<JobStatus, string> = {
  queued: "accepted and paid for (verified, or settled on networks whose authorization cannot wait); waiting for a worker",
  running: "a worker is running the skill; the result is released only after the payment settled",
  completed: "finished and settled; `result` holds the output until the job expires",
  failed: "the skill failed, the server restarted while it ran, or settlement failed; nothing is settled (or a refund is recorded)",
  expired: "the skill ran past its timeout and was aborted; nothing is settled (or a refund is recorded)",
};

export const jobTransitions: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  queued: ["running", "failed"],
  running: ["completed", "failed", "expired"],
  completed: [],
  failed: [],
  expired: [],
};

export function isTerminal(status: JobStatus): boolean {
  return jobTransitions[status].length === 0;
}
