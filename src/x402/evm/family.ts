/**
 * @module x402/evm/family — the EVM payment family (CAIP-2 `eip155`): USDC by EIP-3009
 * transferWithAuthorization, its networks from networks.ts, its prices in the Base column.
 */
import { evmConfig, evmPriceColumns, type ResolvedEvmNetwork } from "./config.ts";
import type { PaymentFamily } from "../family.ts";
import { knownNetworks } from "../networks.ts";
import { evmReasons } from "./errors.ts";
import { createExactEvmMechanism } from "./exact.ts";
import { identifyEvmPayment, namedEvmPayer } from "./payload.ts";

export const evmFamily: PaymentFamily<ResolvedEvmNetwork> = {
  name: "evm",
  namespace: "eip155",
  knownNetworks: knownNetworks.filter((n) => n.family === "evm"),
  priceColumns: evmPriceColumns,
  config: evmConfig,
  namedPayer: namedEvmPayer,
  identify: identifyEvmPayment,
  replayReason: evmReasons.nonceAlreadyUsed,
  expiringReason: evmReasons.validBefore,
  createMechanism: (network, ctx) =>
    createExactEvmMechanism({
      network,
      settlementMarginSeconds: ctx.settlementMarginSeconds,
      confirmationTimeoutMs: ctx.confirmationTimeoutMs,
      now: ctx.now,
      ...(ctx.pollingIntervalMs !== undefined ? { pollingIntervalMs: ctx.pollingIntervalMs } : {}),
    }),
  hasChainAccess: (network) => network.rpcUrl !== undefined,
  remoteRequirementsExtra: (network) => ({ name: network.eip712.name, version: network.eip712.version }),
  // x402's upto on EVM: a Permit2 authorization for the limit, settled by the facilitator /supported names.
  uptoRequirementsExtra(network, supported) {
    const facilitator = supported.facilitatorAddress;
    if (typeof facilitator !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(facilitator)) return undefined;
    return { name: network.eip712.name, version: network.eip712.version, assetTransferMethod: "permit2", facilitatorAddress: facilitator };
  },
  async settlerAddress(network) {
    if (!network.settlerPrivateKey) return undefined;
    const { privateKeyToAccount } = await import("viem/accounts");
    return privateKeyToAccount(network.settlerPrivateKey).address.toLowerCase();
  },
  async loadRefundSender(network, options) {
    if (!network.refundPrivateKey) return undefined;
    const { createEvmRefundSender } = await import("./refund-sender.ts");
    return createEvmRefundSender({ network, ...(options.pollingIntervalMs !== undefined ? { pollingIntervalMs: options.pollingIntervalMs } : {}) });
  },
};
