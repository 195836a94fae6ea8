/**
 * @module paid-call/payments — what a paid call needs from payment, in no transport's terms: ask
 * for or check a payment before work, settle or release after it. The x402 layer implements it
 * (x402-payments.ts, a front file above this room); with payments off every call is let through free. Refusals are payment
 * answers (x402/payment-answer.ts) that each transport renders its own way.
 */
import type { TSchema } from "@sinclair/typebox";
import type { PriceTable } from "../plugin/price.ts";
import type { PresentedPayment } from "../x402/authorize.ts";
import type { PaymentAnswer } from "../x402/payment-answer.ts";
import type { HeldAnswer } from "../x402/payment-identifier.ts";
import type { PaymentRequired, SettleResponse } from "../x402/messages.ts";

/** What one call costs and describes, for the offer and its bazaar extension. */
export interface Charge {
  readonly operationId: string;
  /** e.g. `POST /v1/web/read`, or `MCP web_read` */
  readonly route: string;
  readonly resourceUrl: string;
  readonly description: string;
  /** Exact total for this input, in micro-dollars, per price column (plugin/price.ts). */
  readonly priceMicros: PriceTable;
  readonly inputSchema: TSchema;
  readonly inputExample: unknown;
  readonly outputExample?: unknown;
  /** Set when the call came as an MCP tool: the bazaar entry names the tool, not an HTTP route. */
  readonly mcpTool?: string;
  /** Priced by delivery (the entry declares `delivered`): `priceMicros` is a limit. */
  readonly byDelivery?: boolean;
}

/** What a settlement produced, for work that records it (null fields: payments off or unknown). */
export interface SettlementFacts {
  readonly payer: string | null;
  readonly network: string | null;
  readonly transaction: string | null;
  readonly paymentId: string | null;
  /** The resource URL and request the signed receipt names (the evidence statement names them too). */
  readonly resourceUrl?: string;
  readonly requestId?: string;
}

export type SettleOutcome =
  /** `settlement`: the public outcome for the buyer (absent when free). */
  | { readonly kind: "settled"; readonly settlement?: SettleResponse; readonly facts?: SettlementFacts }
  /** Settlement failed (`failed`) or is indeterminate (`pending`): this answer replaces the result. */
  | { readonly kind: "answer"; readonly answer: PaymentAnswer; readonly state?: "failed" | "pending"; readonly facts?: SettlementFacts };

export interface SettleContext {
  readonly requestId: string;
  readonly delivered?: PriceTable;
}

export interface AcceptedPayment {
  /** Who paid (wallet address), when known: rate limits count per payer. */
  readonly payer?: string;
  /** The network paid on (CAIP-2), when paid. */
  readonly network?: string;
  /**
   * Unix seconds after which this authorization can no longer settle; null when the network
   * counts rounds instead (Algorand: about 10 rounds) and so cannot wait for a long job;
   * undefined when free. Async jobs settle at acceptance when it would lapse before they finish.
   */
  readonly validBefore?: number | null;
  /** The price columns of the network paid on (plugin/price.ts priceIn), when paid. */
  readonly priceColumns?: readonly string[];
  /** Plain JSON from which `Payments.restore` rebuilds this payment after a restart (null when free). */
  snapshot(): unknown;
  /**
   * Called once the work succeeded. `delivered`: the price of what the work delivered, when the
   * entry is priced by delivery (paid-call/delivery.ts): only that is charged (upto) or the rest is
   * recorded as a refund due (exact).
   */
  settle(context: SettleContext): Promise<SettleOutcome>;
  /**
   * Called when the work failed: nothing is settled and the authorization is not burned. Never rejects:
   * a release the store could not write leaves a reservation that reconcile frees once it lapses.
   */
  release(): Promise<void>;
}

export type AuthorizeOutcome =
  | { readonly kind: "answer"; readonly answer: PaymentAnswer }
  | { readonly kind: "accepted"; readonly payment: AcceptedPayment };

export interface AuthorizeCall {
  readonly requestId: string;
  /** Every refusal carries a fresh offer (transports whose only refusal is PaymentRequired: MCP). */
  readonly alwaysOffer?: boolean;
}

export interface Payments {
  readonly enabled: boolean;
  authorize(presented: PresentedPayment, charge: Charge, call: AuthorizeCall): Promise<AuthorizeOutcome>;
  /** A fresh offer for this charge whose `error` says why (after a failed settlement, over MCP). */
  offer(charge: Charge, error: string): Promise<PaymentRequired>;
  /** Rebuilds an accepted payment from its snapshot (async jobs settle after a restart). */
  restore(snapshot: unknown): AcceptedPayment;
}

const free: AcceptedPayment = {
  snapshot: () => null,
  settle: async () => ({ kind: "settled" }),
  release: async () => {},
};

/** `--payments off`: every call is free (the server then binds to loopback unless told otherwise). */
export const paymentsOff: Payments = {
  enabled: false,
  authorize: async () => ({ kind: "accepted", payment: free }),
  offer: async () => {
    throw new Error("payments are off: nothing is offered");
  },
  restore: () => free,
};

/** A charge whose answer may be given again for a retry of the very same call: `body` is what the caller sent. */
export interface ReplayableCharge extends Charge {
  readonly body: Readonly<Record<string, unknown>>;
}

/** An accepted payment that can keep the success answer, in memory, for a retry under the same payment identifier. */
export interface HoldingPayment extends AcceptedPayment {
  hold(answer: HeldAnswer): void;
}

export function isHoldingPayment(payment: AcceptedPayment): payment is HoldingPayment {
  return typeof (payment as Partial<HoldingPayment>).hold === "function";
}
