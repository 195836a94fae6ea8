/**
 * @module plugin/check-failure — what a plugin's `check` returns for a broken cross-field rule; its
 * own module so that schema files (web, crawl) name it without importing the plugin contract.
 */
import type { ErrorCode } from "../errors.ts";

/** A broken cross-field rule; `code` defaults to INVALID_REQUEST and must be a 400 code. */
export interface CheckFailure {
  readonly code: ErrorCode;
  readonly message: string;
}
