/**
 * @module x402/payment-info — the payments this server accepts, as published to buyers: in the
 * documents, the capital board's commit instructions and the 402 offers.
 */
import type { PriceNetwork } from "../plugin/price.ts";

/** One network payments are accepted on, as published to buyers. */
export interface NetworkInfo {
  readonly name: PriceNetwork;
  /** CAIP-2 id, e.g. eip155:8453 */
  readonly network: string;
  readonly asset: string;
  readonly payTo: string;
}

export interface PaymentInfo {
  readonly enabled: boolean;
  readonly networks: readonly NetworkInfo[];
}
