/**
 * @module x402-payments — the payments seam backed by the x402 steps: a Charge becomes a
 * PaidOperation (exact per-network USD total, bazaar discovery for the HTTP route or the MCP tool,
 * and for a replayable charge the body digest that payment-identifier retries must match).
 */
import type { PaymentInfo } from "./x402/payment-info.ts";
import { formatDollars, parseDollars, priceIn, type PriceTable, publishedColumn } from "./plugin/price.ts";
import type { DeliveryRefunds } from "./refunds/delivery-refunds.ts";
import { atomicToUsd, usdToAtomic } from "./x402/pricing.ts";
import { authorizePayment, challengeFor, type PaidOperation, type VerifiedPayment } from "./x402/authorize.ts";
import type { PaymentNetwork } from "./x402/family.ts";
import type { GateState } from "./x402/gate-state.ts";
import { digestJson } from "./x402/payment-identifier.ts";
import { holdAnswer, releasePayment, settlePayment } from "./x402/settle.ts";
import type { Charge, HoldingPayment, Payments, ReplayableCharge } from "./paid-call/payments.ts";

function isReplayableCharge(charge: Charge): charge is ReplayableCharge {
  return "body" in charge;
}

export function paidOperationFor(charge: Charge, networks: readonly PaymentNetwork[]): PaidOperation {
  const priceUsd: Record<string, string> = {};
  for (const network of networks) {
    const micros = priceIn(charge.priceMicros, network.priceColumns);
    if (micros !== undefined) priceUsd[network.network] = formatDollars(micros);
  }
  const inputSchema = JSON.parse(JSON.stringify(charge.inputSchema));
  return {
    resource: { url: charge.resourceUrl, description: charge.description, mimeType: "application/json" },
    priceUsd,
    bazaar:
      charge.mcpTool !== undefined
        ? { toolName: charge.mcpTool, description: charge.description, inputSchema, example: charge.inputExample, output: charge.outputExample }
        : {
            method: "POST",
            input: charge.inputExample,
            ...(charge.outputExample !== undefined ? { output: charge.outputExample } : {}),
            inputSchema,
          },
    ...(isReplayableCharge(charge) ? { requestDigest: digestJson(charge.body) } : {}),
    ...(charge.byDelivery ? { byDelivery: true } : {}),
  };
}

export interface X402PaymentsOptions {
  /** Where the undelivered part of an `exact` payment for work priced by delivery is recorded as owed. */
  readonly deliveryRefunds?: Pick<DeliveryRefunds, "recordDue">;
}

/** For a payment of work priced by delivery: the delivered amount in the token, and what stays owed when the quote is settled. */
function splitDelivery(payment: VerifiedPayment, network: PaymentNetwork, delivered: PriceTable) {
  const quotedAtomic = BigInt(payment.requirements.amount);
  const deliveredMicros = priceIn(delivered, network.priceColumns) ?? 0;
  const deliveredAtomic = usdToAtomic(formatDollars(deliveredMicros), network.decimals);
  const capped = deliveredAtomic < quotedAtomic ? deliveredAtomic : quotedAtomic;
  const quotedMicros = parseDollars(atomicToUsd(quotedAtomic, network.decimals)) ?? 0;
  return { deliveredAtomic: capped.toString(), quotedMicros, refundMicros: Math.max(0, quotedMicros - Math.min(quotedMicros, deliveredMicros)) };
}

export function createX402Payments(state: GateState, networks: readonly PaymentNetwork[], options: X402PaymentsOptions = {}): Payments {
  const accepted = (payment: VerifiedPayment, operationId: string): HoldingPayment => {
    let done = false;
    return {
      payer: payment.payer,
      network: payment.network,
      validBefore: payment.validBefore,
      priceColumns: networks.find((n) => n.network === payment.network)?.priceColumns ?? [],
      snapshot: () => ({ payment, operationId }),
      async settle({ requestId, delivered }) {
        done = true;
        const network = networks.find((n) => n.network === payment.network);
        const split = delivered && network ? splitDelivery(payment, network, delivered) : undefined;
        const upto = payment.requirements.scheme === "upto";
        const result = await settlePayment(state, payment, { requestId, operationId, ...(upto && split ? { amount: split.deliveredAtomic } : {}) });
        if (result.kind === "settled") {
          const r = result.receipt;
          if (!upto && split && split.refundMicros > 0) {
            await options.deliveryRefunds?.recordDue({
              id: r.id,
              operationId,
              requestId,
              network: payment.network,
              payer: payment.payer,
              transaction: r.transaction,
              quotedMicros: split.quotedMicros,
              priceMicros: split.refundMicros,
              createdAt: state.now(),
            });
          }
          const named = { ...(payment.resourceUrl ? { resourceUrl: payment.resourceUrl } : {}), requestId };
          return { kind: "settled", settlement: result.settlement, facts: { payer: r.payer, network: r.network, transaction: r.transaction, paymentId: r.id, ...named } };
        }
        const answer = result.answer;
        const pending = answer.kind === "refused" && answer.code === "SETTLEMENT_PENDING";
        const transaction = pending ? (answer.settlement?.transaction || null) : null;
        return {
          kind: "answer",
          answer,
          state: pending ? "pending" : "failed",
          facts: { payer: payment.payer, network: payment.network, transaction, paymentId: payment.receiptId },
        };
      },
      async release() {
        if (done) return;
        done = true;
        // Unwritten (database unreachable): the reservation stays until reconcile sees it lapse.
        await releasePayment(state, payment).catch(() => undefined);
      },
      hold(answer) {
        holdAnswer(state, payment, answer);
      },
    };
  };

  return {
    enabled: true,
    async authorize(presented, charge, call) {
      const result = await authorizePayment(state, presented, paidOperationFor(charge, networks), {
        requestId: call.requestId,
        operationId: charge.operationId,
        ...(call.alwaysOffer ? { alwaysOffer: true } : {}),
      });
      if (result.kind === "answer") return result;
      return { kind: "accepted", payment: accepted(result.payment, charge.operationId) };
    },
    offer: (charge, error) => challengeFor(state, paidOperationFor(charge, networks), error),
    restore(snapshot) {
      const { payment, operationId } = snapshot as { payment: VerifiedPayment; operationId: string };
      return accepted(payment, operationId);
    },
  };
}

/** What buyers are told about where to pay (capabilities, OpenAPI, agent card). */
export function paymentInfoFor(networks: readonly PaymentNetwork[]): PaymentInfo {
  return {
    enabled: true,
    networks: networks.map((n) => ({
      name: publishedColumn(n),
      network: n.network,
      asset: n.asset,
      payTo: n.payTo,
      priceColumns: n.priceColumns,
    })),
  };
}
