/**
 * @module module/error-spec — what one public error code says: its status and default message.
 * A leaf (it imports nothing), so errors.ts and every feature module can share it.
 */
export interface ErrorSpec {
  readonly status: number;
  /** Default message; a thrower may give a more specific one. */
  readonly message: string;
  /** Whether the caller may be charged when this error ends a call (always false: failed work is never settled). */
  readonly settled?: false;
}
