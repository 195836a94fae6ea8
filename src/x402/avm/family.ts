/**
 * @module x402/avm/family — the Algorand payment family (CAIP-2 `algorand`): a USDC ASA transfer in
 * an atomic group, its networks from networks.ts, its prices in the Algorand column.
 */
import { avmConfig, avmPriceColumns, type ResolvedAvmNetwork } from "./config.ts";
import type { PaymentFamily } from "../family.ts";
import { knownNetworks } from "../networks.ts";
import { avmReasons } from "./errors.ts";
import { createExactAvmMechanism, identifyAvmPayment } from "./exact.ts";

export const avmFamily: PaymentFamily<ResolvedAvmNetwork> = {
  name: "avm",
  namespace: "algorand",
  knownNetworks: knownNetworks.filter((n) => n.family === "avm"),
  priceColumns: avmPriceColumns,
  config: avmConfig,
  // An Algorand group names its sender only once decoded and checked: no payer before verification.
  namedPayer: () => undefined,
  identify: identifyAvmPayment,
  replayReason: avmReasons.alreadyUsed,
  expiringReason: avmReasons.invalidValidity,
  createMechanism: (network, ctx) =>
    createExactAvmMechanism({
      network,
      confirmationTimeoutMs: ctx.confirmationTimeoutMs,
      ...(ctx.fetch ? { fetch: ctx.fetch } : {}),
      ...(ctx.pollingIntervalMs !== undefined ? { pollingIntervalMs: ctx.pollingIntervalMs } : {}),
    }),
  hasChainAccess: (network) => network.algodUrl !== undefined,
  async settlerAddress(network) {
    if (!network.feePayerMnemonic) return undefined;
    const { mnemonicToSecretKey } = await import("algosdk");
    return mnemonicToSecretKey(network.feePayerMnemonic).addr.toString();
  },
  async loadRefundSender(network, options) {
    if (!network.refundMnemonic) return undefined;
    const { createAvmRefundSender } = await import("./refund-sender.ts");
    return createAvmRefundSender({
      network,
      ...(options.pollingIntervalMs !== undefined ? { pollingIntervalMs: options.pollingIntervalMs } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  },
};
