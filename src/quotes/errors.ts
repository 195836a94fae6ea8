/** @module quotes/errors — custom work's public error codes (job.quote and job.run.*; listed in /openapi.json). */
import { defineErrors } from "../module/define.ts";

export const errors = defineErrors({
  QUOTE_NOT_FOUND: { status: 404, message: "No accepted quote has this quote_id; ask job.quote first. Nothing was charged." },
  QUOTE_WRONG_TIER: { status: 400, message: "This quote is run with another job.run skill (see run_skill); nothing was charged." },
  QUOTE_EXPIRED: { status: 410, message: "This quote expired (quotes can be run for 1 hour); ask job.quote again. Nothing was charged." },
  QUOTE_USED: { status: 409, message: "This quote was already run (a quote runs once); nothing was charged." },
  QUOTE_PAYER_MISMATCH: { status: 403, message: "This quote was bought by another payer; only that payer may run it. Nothing was charged." },
});
