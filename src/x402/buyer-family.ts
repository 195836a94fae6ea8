/**
 * @module x402/buyer-family — what a payment family gives the buyer (src/buyer/): how its key file
 * reads, which offer fields it needs before signing, and how the official x402 client signs with
 * its key. The chain libraries stay inside the family folders (evm/buyer.ts, avm/buyer.ts); the
 * buyer reaches them only through `buyerFamily(name)` (buyer-families.ts).
 */
import type { x402Client } from "@x402/core/client";

/** A buyer's signing key, as the family read it from the key file. */
export interface BuyerKey {
  readonly family: string;
  /** The paying account's address. */
  readonly address: string;
  /** The key material in the family's own form (EVM: 0x hex; Algorand: the 64-byte secret key in base64). */
  readonly secret: string;
}

/** The fields of a 402 offer the buyer vets; `extra` is the family's. */
export interface BuyerOffer {
  readonly asset: string;
  readonly payTo: string;
  readonly extra?: Record<string, unknown>;
}

export interface BuyerSignOptions {
  /** Algorand: the algod the client asks for suggested params. */
  readonly algodUrl?: string | undefined;
}

export interface BuyerFamily {
  readonly name: string;
  /** What the key file must hold, for refusals ("the paying wallet's private key as …"). */
  readonly keyHint: string;
  /** The key a file's text holds; undefined when it holds none of this family. */
  readKey(text: string): BuyerKey | undefined;
  /** Why the family cannot sign this offer for `payer`; undefined when it can. */
  offerProblem(offer: BuyerOffer, payer: string): string | undefined;
  /** Registers the official client's scheme for `network`, signing with `key`. */
  registerSigner(client: x402Client, key: BuyerKey, network: `${string}:${string}`, options: BuyerSignOptions): void;
}
