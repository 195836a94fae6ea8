/**
 * @module configured-payments — turns the payment settings into the x402 configuration: either the
 * full `x402` object from the config file, or the shortcuts (--pay-to-base, --pay-to-algorand,
 * --facilitator-url) for the common case of a remote facilitator on the main networks.
 */
import type { Config } from "./config.ts";
import { ConfigError } from "./config.ts";
import type { PaymentInfo } from "./x402/payment-info.ts";
import type { Logger } from "./log.ts";
import { createX402Payments, paymentInfoFor } from "./x402-payments.ts";
import type { DeliveryRefunds } from "./refunds/delivery-refunds.ts";
import { payDeliveryRefunds } from "./refunds/delivery-refund-payer.ts";
import { paymentsOff, type Payments } from "./paid-call/payments.ts";
import { type Pricing, pricingFor } from "./plugin/price.ts";
import type { ReceiptStore } from "./store/receipts.ts";
import { type ConfiguredNetwork, resolveNetworks, X402ConfigError, type X402Config } from "./x402/config.ts";
import { loadFamilyFolders } from "./x402/family-registry.ts";
import type { PaymentGate } from "./x402/gate.ts";
import type { ReceiptKeySource } from "./x402/offer-receipt.ts";
import type { RefundSender } from "./x402/refund.ts";
import { loadRefundSenders } from "./x402/refund-senders.ts";

export function x402ConfigFrom(config: Config): X402Config {
  if (config.x402) return config.x402;
  const facilitator = config.facilitatorUrl ? { url: config.facilitatorUrl } : undefined;
  const networks: X402Config["networks"] = [];
  if (config.payToBase) networks.push({ family: "evm", network: "eip155:8453", payTo: config.payToBase, settlement: "remote" });
  if (config.payToAlgorand) networks.push({ family: "avm", network: "algorand", payTo: config.payToAlgorand, settlement: "remote" });
  return { networks, facilitator, maxTimeoutSeconds: 300, settlementMarginSeconds: 30, confirmationTimeoutMs: 60_000, staleReservationSeconds: 900 };
}

/** Registers the payment families of the folders `x402.families` names (x402/family.ts). Throws X402ConfigError. */
export async function loadConfiguredFamilies(x402: X402Config): Promise<void> {
  try {
    await loadFamilyFolders(x402.families ?? []);
  } catch (error) {
    throw new X402ConfigError((error as Error).message);
  }
}

export interface PaymentSetup {
  readonly payments: Payments;
  readonly info: PaymentInfo;
  readonly gate: PaymentGate | undefined;
  /** One per network with a refund key (the job worker pays refunds with them). */
  readonly refundSenders: ReadonlyMap<string, RefundSender>;
  /** Pays the delivery refunds still unpaid on networks with a refund key (run with reconcile); absent with payments off. */
  readonly payDeliveryRefunds?: () => Promise<void>;
  /** Records a delivery refund due and starts paying it at once where the network has a refund key (web/crawl's). */
  readonly deliveryRefunds?: Pick<DeliveryRefunds, "recordDue">;
}

/**
 * The networks payments are taken on, as configured: none with payments off; else the families the
 * configuration names loaded and every entry resolved. Throws ConfigError naming the problem.
 */
export async function configuredNetworks(config: Config): Promise<ConfiguredNetwork[]> {
  if (config.payments === "off") return [];
  const x402 = x402ConfigFrom(config);
  try {
    await loadConfiguredFamilies(x402);
    return resolveNetworks(x402);
  } catch (error) {
    if (error instanceof X402ConfigError) throw new ConfigError([`payments: ${error.message}`]);
    throw error;
  }
}

/** What every price table must price and the documents quote on this configuration (plugin/price.ts Pricing). Throws ConfigError. */
export async function configuredPricing(config: Config): Promise<Pricing> {
  return pricingFor(await configuredNetworks(config));
}

/**
 * The payment rails over the configured networks (`configuredNetworks`); the chain libraries under
 * them (viem, algosdk: ~15 MB of RSS) are loaded here only when payments are on.
 */
export async function setUpPayments(
  config: Config,
  networks: readonly ConfiguredNetwork[],
  receipts: ReceiptStore,
  options: { fetch?: typeof fetch; pollingIntervalMs?: number; receiptKeys?: ReceiptKeySource; deliveryRefunds?: { readonly ledger: DeliveryRefunds; readonly log: Logger } } = {},
): Promise<PaymentSetup> {
  if (config.payments === "off") return { payments: paymentsOff, info: { enabled: false, networks: [] }, gate: undefined, refundSenders: new Map() };
  const x402 = x402ConfigFrom(config);
  const { createPaymentGate } = await import("./x402/gate.ts");
  const { receiptKeys, deliveryRefunds, ...gateOptions } = options;
  const offerReceipts = receiptKeys ? await (await import("./x402/offer-receipt.ts")).createOfferReceiptSigner(receiptKeys) : undefined;
  const gate = createPaymentGate({ config: x402, receipts, ...gateOptions, ...(offerReceipts ? { offerReceipts } : {}) });
  const refundSenders = await loadRefundSenders(networks, options.pollingIntervalMs !== undefined ? { pollingIntervalMs: options.pollingIntervalMs } : {});
  const paying = deliveryRefunds ? payDeliveryRefunds(deliveryRefunds.ledger, { senders: refundSenders, log: deliveryRefunds.log, confirmationTimeoutMs: x402.confirmationTimeoutMs }) : undefined;
  return {
    payments: createX402Payments(gate.state, networks, paying ? { deliveryRefunds: paying.refunds } : {}),
    info: paymentInfoFor(networks),
    gate,
    refundSenders,
    ...(paying ? { payDeliveryRefunds: paying.pass, deliveryRefunds: paying.refunds } : {}),
  };
}
