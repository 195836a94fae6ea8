/**
 * @module jobs/stats — the `stats_7d` and `sla` objects of spec job-worker §2.5, computed from
 * the jobs table over the last 168 hours. Durations (finished − started) above `sla_cap_ms` are
 * left out and counted; rates and durations are null when there is no sample.
 *
 * Median: the middle value, or the mean of the two middle values (rounded). p90: nearest rank,
 * the ⌈0.9·n⌉-th smallest value.
 */
import type { StatsRow } from "./job-store.ts";

export const statsWindowHours = 168;

export interface Stats7d {
  window_hours: number;
  jobs_accepted: number;
  jobs_completed_paid: number;
  jobs_failed_paid: number;
  jobs_completed_dev: number;
  jobs_settled_paid: number;
  success_rate_paid: number | null;
  median_duration_ms: number | null;
  p90_duration_ms: number | null;
  sample_size_durations: number;
  durations_excluded_outliers: number;
  sla_cap_ms: number;
  note: string;
}

export interface Sla {
  target_queue_start: string;
  job_timeout_sec: number;
  success_rate_paid_7d: number | null;
  median_duration_ms_7d: number | null;
  p90_duration_ms_7d: number | null;
  sample_size: number;
  window_hours: number;
}

export function median(sorted: readonly number[]): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  const mid = Math.floor(n / 2);
  return n % 2 === 1 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/** Rounds a rate to 4 decimals so the JSON stays readable. */
const rate = (part: number, whole: number): number | null => (whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000);

export function computeStats7d(rows: readonly StatsRow[], slaCapMs: number): Stats7d {
  let completedPaid = 0;
  let failedPaid = 0;
  let completedDev = 0;
  let settledPaid = 0;
  let excluded = 0;
  const durations: number[] = [];
  for (const row of rows) {
    const failed = row.status === "failed" || row.status === "expired";
    if (row.paid && row.status === "completed") completedPaid++;
    if (row.paid && failed) failedPaid++;
    if (!row.paid && row.status === "completed") completedDev++;
    if (row.paid && row.settled) settledPaid++;
    if (row.status === "completed" && row.durationMs !== null) {
      if (row.durationMs > slaCapMs) excluded++;
      else durations.push(row.durationMs);
    }
  }
  durations.sort((a, b) => a - b);
  return {
    window_hours: statsWindowHours,
    jobs_accepted: rows.length,
    jobs_completed_paid: completedPaid,
    jobs_failed_paid: failedPaid,
    jobs_completed_dev: completedDev,
    jobs_settled_paid: settledPaid,
    success_rate_paid: rate(completedPaid, completedPaid + failedPaid),
    median_duration_ms: median(durations),
    p90_duration_ms: percentile(durations, 90),
    sample_size_durations: durations.length,
    durations_excluded_outliers: excluded,
    sla_cap_ms: slaCapMs,
    note:
      "Counted from this server's job rows (sync and async skill calls) created in the last 168 hours. jobs_completed_paid counts paid jobs that completed, not on-chain settlements; jobs_settled_paid counts paid jobs whose settlement succeeded (payer and network recorded). Durations are completed jobs' run times (start to finish); those above sla_cap_ms are excluded and counted in durations_excluded_outliers. Median is the middle value (mean of the two middle values when even); p90 is the nearest rank.",
  };
}

export function slaOf(stats: Stats7d, jobTimeoutSec: number): Sla {
  return {
    target_queue_start: "usually under 15 seconds when open_for_work",
    job_timeout_sec: jobTimeoutSec,
    success_rate_paid_7d: stats.success_rate_paid,
    median_duration_ms_7d: stats.median_duration_ms,
    p90_duration_ms_7d: stats.p90_duration_ms,
    sample_size: stats.sample_size_durations,
    window_hours: statsWindowHours,
  };
}
