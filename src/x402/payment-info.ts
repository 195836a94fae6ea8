/**
 * @module x402/payment-info — the payments this server accepts, as published to buyers: in the
 * documents, the capital board's commit instructions and the 402 offers.
 */
/** One network payments are accepted on, as published to buyers. */
export interface NetworkInfo {
  /** The price column it is published under (base, algorand, a loaded family's own). */
  readonly name: string;
  /** CAIP-2 id, e.g. eip155:8453 */
  readonly network: string;
  readonly asset: string;
  readonly payTo: string;
  /** The price columns it charges by, first found wins (plugin/price.ts priceIn). */
  readonly priceColumns: readonly string[];
}

export interface PaymentInfo {
  readonly enabled: boolean;
  readonly networks: readonly NetworkInfo[];
}
