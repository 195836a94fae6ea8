/**
 * @module x402/refund — what paying a refund back to a payer, from a refund account that holds
 * the token, promises (the senders themselves are in each family's folder, evm/refund-sender.ts
 * with viem and avm/refund-sender.ts through algod, loaded by refund-senders.ts only when a
 * network of that family has a refund key).
 *
 * Exactly-once is built on one rule: a refund is signed first, its signed bytes are recorded by
 * the caller, and only those bytes are ever broadcast — again and again if need be, which can
 * land at most once. A new transaction may be signed only once `check` proves, from the chain,
 * that the recorded one can never land (`dead`):
 * - EVM: it reverted, or the account's nonce moved past it without it (another transaction took it).
 * - Algorand: the ledger's round passed its last valid round and algod does not know it, while
 *   algod still remembers every transaction confirmed in that window (it looks back MaxTxnLife,
 *   1000 rounds); later than that nobody can tell without an indexer: `unknown`, for the operator.
 * The EVM account goes through viem's shared nonce manager, so a refund key that is also the
 * settler key never collides with settlements in this process.
 */
export interface RefundOrder {
  /** Written into the Algorand note; ties the transfer to the job for anyone reading the chain. */
  readonly reference: string;
  readonly payer: string;
  /** Atomic units of the network's token. */
  readonly amount: bigint;
}

/** A refund signed but not necessarily sent: `raw` is what gets (re)broadcast, `transaction` its id. */
export interface SignedRefund {
  readonly transaction: string;
  readonly raw: string;
}

export type RefundCheck =
  | { readonly state: "confirmed" }
  /** It may still land: broadcast the same bytes again and wait; never sign another. */
  | { readonly state: "pending" }
  /** It can never land: a new refund may be signed. */
  | { readonly state: "dead"; readonly reason: string }
  /** Nobody can tell any more (Algorand, long after its window): the operator decides. */
  | { readonly state: "unknown"; readonly reason: string };

export type BroadcastResult = { readonly kind: "accepted" } | { readonly kind: "error"; readonly message: string };

export interface RefundSender {
  readonly network: string;
  /** The refund account's address. */
  readonly from: string;
  readonly decimals: number;
  /** Checks the refund can be paid (balance, payer able to receive) and signs it. Nothing is sent. Throws RefundRefused. */
  sign(order: RefundOrder): Promise<SignedRefund>;
  /** Sends exactly these signed bytes. An error leaves the outcome open: `check` decides. */
  broadcast(signed: SignedRefund): Promise<BroadcastResult>;
  /** Gives back what signing reserved when the signed refund will never be sent (the EVM nonce). */
  discard(signed: SignedRefund): void;
  /** Where the transaction stands; with `waitMs`, waits up to that long for it to confirm first. */
  check(signed: SignedRefund, waitMs?: number): Promise<RefundCheck>;
}

/** The refund cannot be signed now (nothing was sent); the message is safe to show the operator. */
export class RefundRefused extends Error {
  override name = "RefundRefused";
}

/** Micro-dollars charged → atomic units of a USD token with `decimals` (6 for USDC). */
export function refundAmountAtomic(priceMicros: number, decimals: number): bigint {
  const micros = BigInt(priceMicros);
  return decimals >= 6 ? micros * 10n ** BigInt(decimals - 6) : micros / 10n ** BigInt(6 - decimals);
}

const MAX_MESSAGE = 200;

/** The first line of a chain library's error, cut to a length the operator's listing can show. */
export function shortRefundMessage(error: unknown): string {
  const text = error instanceof Error ? ((error as { shortMessage?: string }).shortMessage ?? error.message) : String(error);
  const line = text.split("\n")[0] ?? "";
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}…` : line;
}
