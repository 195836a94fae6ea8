/**
 * @module x402/avm/refund-sender — the Algorand side of refunds (see x402/refund.ts for the
 * exactly-once rule): an asset transfer through algod. Loaded by loadRefundSenders
 * (x402/refund-senders.ts) only when an Algorand network has a refund mnemonic.
 */
import { decodeSignedTransaction, makeAssetTransferTxnWithSuggestedParamsFromObject, mnemonicToSecretKey } from "algosdk";
import type { ResolvedAvmNetwork } from "./config.ts";
import { RefundRefused, type RefundCheck, type RefundSender, type SignedRefund, shortRefundMessage } from "../refund.ts";
import { createAlgodClient, type AlgodClient } from "./algod.ts";

/** algod keeps looking up confirmed transactions this many rounds back (consensus MaxTxnLife). */
export const ALGOD_LOOKBACK_ROUNDS = 1000n;

export interface AvmRefundOptions {
  readonly network: ResolvedAvmNetwork;
  readonly algod?: AlgodClient;
  readonly fetch?: typeof fetch;
  readonly pollingIntervalMs?: number;
  /** Validity window of a refund transaction, in rounds (algod allows up to 1000). */
  readonly validRounds?: bigint;
}

export function createAvmRefundSender(options: AvmRefundOptions): RefundSender {
  const { network } = options;
  if (!network.refundMnemonic) throw new Error(`network ${network.network}: refunds need a refund mnemonic`);
  if (!options.algod && !network.algodUrl) throw new Error(`network ${network.network}: refunds need algodUrl`);
  const algod =
    options.algod ??
    createAlgodClient({ url: network.algodUrl ?? "", ...(network.algodToken ? { token: network.algodToken } : {}), ...(options.fetch ? { fetch: options.fetch } : {}) });
  const account = mnemonicToSecretKey(network.refundMnemonic);
  const from = account.addr.toString();
  const validRounds = options.validRounds ?? 200n;
  const pollMs = options.pollingIntervalMs ?? 1_000;

  async function status(signed: SignedRefund): Promise<RefundCheck> {
    const pending = await algod.pending(signed.transaction);
    if (pending.kind === "confirmed") return { state: "confirmed" };
    if (pending.kind === "in_pool") return { state: "pending" };
    const { firstValid, lastValid } = decodeSignedTransaction(new Uint8Array(Buffer.from(signed.raw, "base64"))).txn;
    const round = (await algod.params()).lastRound;
    if (round <= lastValid) return { state: "pending" };
    if (round <= firstValid + ALGOD_LOOKBACK_ROUNDS) return { state: "dead", reason: `not confirmed by round ${lastValid}, its last valid round` };
    return { state: "unknown", reason: `round ${round} is too far past the refund's window (${firstValid}–${lastValid}) for algod to tell whether it landed` };
  }
  return {
    network: network.network,
    from,
    decimals: network.decimals,
    async sign(order) {
      if (!/^[A-Z2-7]{58}$/.test(order.payer)) throw new RefundRefused(`payer ${order.payer} is not an Algorand address`);
      let params;
      let held: bigint | undefined;
      let payerHolding: bigint | undefined;
      try {
        [params, held, payerHolding] = await Promise.all([algod.params(), algod.assetHolding(from, network.asset), algod.assetHolding(order.payer, network.asset)]);
      } catch (error) {
        throw new RefundRefused(`algod unavailable: ${shortRefundMessage(error)}`);
      }
      if (params.genesisHash !== network.genesisHash) throw new RefundRefused("algod serves another network");
      if (held === undefined || held < order.amount) throw new RefundRefused(`the refund account ${from} holds ${held ?? 0n} < ${order.amount} of asset ${network.asset}`);
      if (payerHolding === undefined) throw new RefundRefused(`the payer ${order.payer} is no longer opted in to asset ${network.asset}`);
      const txn = makeAssetTransferTxnWithSuggestedParamsFromObject({
        sender: from,
        receiver: order.payer,
        amount: order.amount,
        assetIndex: BigInt(network.asset),
        note: new TextEncoder().encode(`tollbooth refund ${order.reference}`),
        suggestedParams: {
          fee: params.minFee,
          flatFee: true,
          minFee: params.minFee,
          firstValid: params.lastRound,
          lastValid: params.lastRound + validRounds,
          genesisHash: new Uint8Array(Buffer.from(network.genesisHash, "base64")),
          genesisID: params.genesisId,
        },
      });
      return { transaction: txn.txID(), raw: Buffer.from(txn.signTxn(account.sk)).toString("base64") };
    },
    discard() {},
    async broadcast(signed) {
      const submitted = await algod.submit(new Uint8Array(Buffer.from(signed.raw, "base64")));
      return submitted.kind === "accepted" ? { kind: "accepted" } : { kind: "error", message: submitted.message };
    },
    async check(signed, waitMs) {
      const deadline = Date.now() + (waitMs ?? 0);
      for (;;) {
        const state = await status(signed);
        if (state.state !== "pending" || Date.now() + pollMs > deadline) return state;
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
  };
}
