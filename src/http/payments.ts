/**
 * @module http/payments — what the HTTP layer needs from payment, and nothing more: ask for or
 * check a payment before work, settle or release after it. The x402 layer implements it; with
 * payments off every call is let through free.
 */
import type { TSchema } from "@sinclair/typebox";
import type { PriceTable } from "../plugin/price.ts";

/** What one call costs and describes, for the 402 challenge and its bazaar extension. */
export interface Charge {
  readonly operationId: string;
  /** e.g. `POST /v1/web/read` */
  readonly route: string;
  readonly resourceUrl: string;
  readonly description: string;
  /** Exact total for this body, in micro-dollars, per network. */
  readonly priceMicros: PriceTable;
  readonly inputSchema: TSchema;
  readonly inputExample: unknown;
  readonly outputExample?: unknown;
}

/** What a settlement produced, for work that records it (null fields: payments off or unknown). */
export interface SettlementFacts {
  readonly payer: string | null;
  readonly network: string | null;
  readonly transaction: string | null;
  readonly paymentId: string | null;
}

export type SettleOutcome =
  | { readonly kind: "settled"; readonly headers: Record<string, string>; readonly facts?: SettlementFacts }
  /** Settlement failed (`failed`) or is indeterminate (`pending`): this response replaces the result. */
  | { readonly kind: "answer"; readonly response: Response; readonly state?: "failed" | "pending"; readonly facts?: SettlementFacts };

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
  /** Called once the work succeeded. */
  settle(context: { requestId: string }): Promise<SettleOutcome>;
  /** Called when the work failed: nothing is settled and the authorization is not burned. */
  release(): void;
}

export type AuthorizeOutcome =
  | { readonly kind: "answer"; readonly response: Response }
  | { readonly kind: "accepted"; readonly payment: AcceptedPayment };

export interface Payments {
  readonly enabled: boolean;
  authorize(request: Request, charge: Charge): Promise<AuthorizeOutcome>;
  /** Rebuilds an accepted payment from its snapshot (async jobs settle after a restart). */
  restore(snapshot: unknown): AcceptedPayment;
}

const free: AcceptedPayment = {
  snapshot: () => null,
  settle: async () => ({ kind: "settled", headers: {} }),
  release: () => {},
};

/** `--payments off`: every call is free (the server then binds to loopback unless told otherwise). */
export const paymentsOff: Payments = {
  enabled: false,
  authorize: async () => ({ kind: "accepted", payment: free }),
  restore: () => free,
};

/** A charge whose answer may be given again for a retry of the very same call: `body` is what the caller sent. */
export interface ReplayableCharge extends Charge {
  readonly body: Readonly<Record<string, unknown>>;
}

export function isReplayableCharge(charge: Charge): charge is ReplayableCharge {
  return "body" in charge;
}

/** An accepted payment that can keep the success answer, in memory, for a retry under the same payment identifier. */
export interface HoldingPayment extends AcceptedPayment {
  hold(answer: { readonly status: number; readonly headers: Record<string, string>; readonly body: unknown }): void;
}

export function isHoldingPayment(payment: AcceptedPayment): payment is HoldingPayment {
  return typeof (payment as Partial<HoldingPayment>).hold === "function";
}
