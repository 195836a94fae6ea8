/**
 * @module x402/evm/refund-sender — the EVM side of refunds (see x402/refund.ts for the
 * exactly-once rule): an ERC-20 `transfer` with viem. Loaded by loadRefundSenders
 * (x402/refund-senders.ts) only when an EVM network has a refund key.
 */
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
import type { ResolvedEvmNetwork } from "./config.ts";
import { RefundRefused, type RefundSender, shortRefundMessage } from "../refund.ts";

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
        throw new RefundRefused(`cannot read the refund account's balance: ${shortRefundMessage(error)}`);
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
        throw new RefundRefused(`cannot prepare the refund: ${shortRefundMessage(error)}`);
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
        return { kind: "error", message: shortRefundMessage(error) };
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
