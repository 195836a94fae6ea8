/**
 * @module doctor/check — what one `tollbooth doctor` check is and answers; each check module
 * (doctor.ts, ops.ts, payments.ts, llm.ts, …) writes to it.
 */
import type { Config } from "../config.ts";

export type CheckStatus = "ok" | "warn" | "fail";
export interface CheckResult {
  readonly name: string;
  readonly status: CheckStatus;
  readonly detail: string;
}

export type Check = (config: Config) => Promise<CheckResult | CheckResult[]> | CheckResult | CheckResult[];
