/**
 * @module x402/refund-senders — the chain side of refunds (see refund.ts for the exactly-once
 * rule): an EVM ERC-20 `transfer` with viem and an Algorand asset transfer through algod. Loaded
 * by loadRefundSenders only when a network has a refund key.
 */
import { decodeSignedTransaction, makeAssetTransferTxnWithSuggestedParamsFromObject, mnemonicToSecretKey } from "algosdk";
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  keccak256,
  nonceManager,
  parseAbi,
  parseTransaction,
  type Hex,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createAlgodClient, type AlgodClient } from "./avm/algod.ts";
import type { ResolvedAvmNetwork, ResolvedEvmNetwork, ResolvedNetwork } from "./config.ts";
import { RefundRefused, type RefundCheck, type RefundSender, type SignedRefund } from "./refund.ts";

/** algod keeps looking up confirmed transactions this many rounds back (consensus MaxTxnLife). */
export const ALGOD_LOOKBACK_ROUNDS = 1000n;

const MAX_MESSAGE = 200;
function shortMessage(error: unknown): string {
  const text = error instanceof Error ? ((error as { shortMessage?: string }).shortMessage ?? error.message) : String(error);
  const line = text.split("\n")[0] ?? "";
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}…` : line;
}

const erc20Abi = parseAbi(["function transfer(address to, uint256 amount) returns (bool)", "function balanceOf(address owner) view returns (uint256)"]);

export interface EvmRefundOptions {
  readonly network: ResolvedEvmNetwork;
  readonly pollingIntervalMs?: number;
}

export function createEvmRefundSender(options: EvmRefundOptions): RefundSender {
  const { network } = options;
  if (!network.refundPrivateKey || !network.rpcUrl) throw new Error(`network ${network.network}: refunds need rpcUrl and a refund key`);
  const chain = defineChain({
    id: network.chainId,
    name: network.name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [network.rpcUrl] } },
  });
  const transport = http(network.rpcUrl, { retryCount: 0 });
  const publicClient: PublicClient = createPublicClient({ chain, transport, pollingInterval: options.pollingIntervalMs ?? 1_000 });
  // The shared manager: the same key used for settlement draws its nonces from the same counter.
  const account = privateKeyToAccount(network.refundPrivateKey, { nonceManager });
  const wallet = createWalletClient({ account, chain, transport });
  const resetNonce = () => account.nonceManager?.reset({ address: account.address, chainId: network.chainId });

  return {
    network: network.network,
    from: account.address,
    decimals: network.decimals,
    async sign(order) {
      const to = order.payer as `0x${string}`;
      if (!/^0x[0-9a-fA-F]{40}$/.test(to)) throw new RefundRefused(`payer ${order.payer} is not an EVM address`);
      let held: bigint;
      try {
        held = await publicClient.readContract({ address: network.asset, abi: erc20Abi, functionName: "balanceOf", args: [account.address] });
      } catch (error) {
        throw new RefundRefused(`cannot read the refund account's balance: ${shortMessage(error)}`);
      }
      if (held < order.amount) throw new RefundRefused(`the refund account ${account.address} holds ${held} < ${order.amount}`);
      try {
        // Gas estimation simulates the transfer: a transfer that would revert is never signed.
        const request = await wallet.prepareTransactionRequest({
          account,
          nonceManager: account.nonceManager,
          to: network.asset,
          data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, order.amount] }),
        });
        const raw = await wallet.signTransaction(request);
        return { transaction: keccak256(raw), raw };
      } catch (error) {
        resetNonce();
        throw new RefundRefused(`cannot prepare the refund: ${shortMessage(error)}`);
      }
    },
    discard() {
      resetNonce();
    },
    async broadcast(signed) {
      try {
        await wallet.sendRawTransaction({ serializedTransaction: signed.raw as Hex });
        return { kind: "accepted" };
      } catch (error) {
        // Taken or not, the nonce counter may now be wrong; the next consumer re-reads it.
        resetNonce();
        return { kind: "error", message: shortMessage(error) };
      }
    },
    async check(signed, waitMs) {
      const hash = signed.transaction as Hex;
      if (waitMs !== undefined && waitMs > 0) {
        await publicClient.waitForTransactionReceipt({ hash, timeout: waitMs }).catch(() => undefined);
      }
      const nonce = parseTransaction(signed.raw as Hex).nonce ?? 0;
      // Read the account's nonce before the receipt: "moved past ours and still no receipt" then proves ours was skipped.
      const used = await publicClient.getTransactionCount({ address: account.address, blockTag: "latest" });
      const receipt = await publicClient.getTransactionReceipt({ hash }).catch(() => null);
      if (receipt) return receipt.status === "success" ? { state: "confirmed" } : { state: "dead", reason: "the refund transaction reverted" };
      if (used > nonce) return { state: "dead", reason: `nonce ${nonce} was used by another transaction` };
      return { state: "pending" };
    },
  };
}

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
        throw new RefundRefused(`algod unavailable: ${shortMessage(error)}`);
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

/** One sender per configured network that has a refund key; empty when none has. */
export function createRefundSenders(networks: readonly ResolvedNetwork[], options: { pollingIntervalMs?: number; fetch?: typeof fetch } = {}): Map<string, RefundSender> {
  const senders = new Map<string, RefundSender>();
  for (const network of networks) {
    const poll = options.pollingIntervalMs !== undefined ? { pollingIntervalMs: options.pollingIntervalMs } : {};
    if (network.family === "evm" && network.refundPrivateKey) senders.set(network.network, createEvmRefundSender({ network, ...poll }));
    if (network.family === "avm" && network.refundMnemonic) senders.set(network.network, createAvmRefundSender({ network, ...poll, ...(options.fetch ? { fetch: options.fetch } : {}) }));
  }
  return senders;
}
