/**
 * @module x402/facilitator — the seams between the gate and the chains.
 *
 * - `PaymentIdentity`: who pays and the replay key, read from a payload without trusting it.
 * - `Facilitator`: verify / settle / supported, as the facilitator HTTP API defines them; a local
 *   one delegates to in-process mechanisms, a remote one speaks HTTP.
 * - `SchemeMechanism`: one (family, scheme) implementation for one network (evm/exact, avm/exact).
 */
import type { PaymentPayload, PaymentRequirements, SettleResponse, SupportedResponse, VerifyResponse } from "./messages.ts";

export interface PaymentIdentity {
  readonly payer: string;
  /** The authorization nonce (EVM, 0x + 64 hex) or the payment transaction id (AVM); unique per payment. */
  readonly nonce: string;
  /** Unix seconds after which the authorization can no longer settle, when the scheme says so. */
  readonly validBefore: number | undefined;
}

export type IdentifyResult = { ok: true; identity: PaymentIdentity } | { ok: false; reason: string };

export interface SettleHooks {
  /** Called once the transaction is broadcast and before waiting for it, so a crash leaves a pending record with its id. */
  readonly onSubmitted?: (transaction: string) => void;
}

/** What reconcile learns about a payment whose settlement outcome was not known. */
export type SettlementCheck =
  | { state: "settled"; transaction: string }
  | { state: "failed"; reason: string }
  | { state: "unused" }
  | { state: "pending" };

export interface PendingSettlement {
  readonly network: string;
  readonly payer: string;
  readonly nonce: string;
  readonly transaction: string | null;
  readonly validBefore: number | null;
}

export interface Facilitator {
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  /** success, definite failure (`success:false`), or `errorReason: "settlement_pending"` with the transaction. */
  settle(payload: PaymentPayload, requirements: PaymentRequirements, hooks?: SettleHooks): Promise<SettleResponse>;
  supported(): Promise<SupportedResponse>;
}

export interface SchemeMechanism {
  readonly scheme: "exact";
  /** The payment family (evm, avm, or one loaded from a folder: x402/family.ts). */
  readonly family: string;
  readonly network: string;
  /** Fields this mechanism needs in `requirements.extra` (EVM domain name/version; AVM fee payer). */
  requirementsExtra(): Record<string, unknown>;
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements, hooks?: SettleHooks): Promise<SettleResponse>;
  /** Looks the payment up on chain (reconcile). */
  checkSettlement(pending: PendingSettlement): Promise<SettlementCheck>;
  /** The signer addresses for `/supported`. */
  signers(): readonly string[];
}
