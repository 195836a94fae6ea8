/**
 * @module x402/payment-answer — what the payment steps answer instead of letting a call through, in
 * no transport's terms: an error code with, when there is one, a fresh offer (PaymentRequired) and
 * the settlement's public outcome. HTTP turns it into a status and the PAYMENT-* headers; MCP into
 * a tool error with the offer as structured content.
 */
import { errorCodes, type ErrorCode } from "../errors.ts";
import type { HeldAnswer } from "./payment-identifier.ts";
import type { PaymentRequired, SettleResponse } from "./messages.ts";

export type PaymentAnswer =
  | {
      readonly kind: "refused";
      readonly code: ErrorCode;
      readonly message?: string;
      /** A fresh offer, whose `error` says why the payment was not taken. */
      readonly required?: PaymentRequired;
      /** The settlement's public outcome (never the facilitator's raw message). */
      readonly settlement?: SettleResponse;
      /** Public fields of the error body: the reason, a payment id, the offer mirrored. */
      readonly details?: Readonly<Record<string, unknown>>;
    }
  /** A retry under a payment identifier whose first call's answer is held: send it again. */
  | { readonly kind: "replayed"; readonly held: HeldAnswer };

export function refusal(code: ErrorCode, parts: { message?: string; required?: PaymentRequired; settlement?: SettleResponse; details?: Record<string, unknown> } = {}): PaymentAnswer {
  return { kind: "refused", code, ...parts };
}

/** The machine-readable reason of a refusal: the verifier's or settler's reason when known, else the code. */
export function reasonOf(answer: PaymentAnswer): string {
  if (answer.kind === "replayed") return "replayed";
  const reason = answer.details?.reason;
  if (typeof reason === "string") return reason;
  return answer.required?.error ?? answer.settlement?.errorReason ?? answer.code.toLowerCase();
}

/** The status an HTTP answer of this refusal carries. */
export function statusOf(answer: PaymentAnswer): number {
  return answer.kind === "replayed" ? answer.held.status : errorCodes[answer.code].status;
}
