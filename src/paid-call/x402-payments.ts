/**
 * @module paid-call/x402-payments — the payments seam backed by the x402 steps: a Charge becomes a
 * PaidOperation (exact per-network USD total, bazaar discovery for the HTTP route or the MCP tool,
 * and for a replayable charge the body digest that payment-identifier retries must match).
 */
import type { PaymentInfo } from "../x402/payment-info.ts";
import { formatDollars, priceIn, publishedColumn } from "../plugin/price.ts";
import { authorizePayment, challengeFor, type PaidOperation, type VerifiedPayment } from "../x402/authorize.ts";
import type { PaymentNetwork } from "../x402/family.ts";
import type { GateState } from "../x402/gate-state.ts";
import { digestJson } from "../x402/payment-identifier.ts";
import { holdAnswer, releasePayment, settlePayment } from "../x402/settle.ts";
import { type Charge, type HoldingPayment, isReplayableCharge, type Payments } from "./payments.ts";

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
  };
}

export function createX402Payments(state: GateState, networks: readonly PaymentNetwork[]): Payments {
  const accepted = (payment: VerifiedPayment, operationId: string): HoldingPayment => {
    let done = false;
    return {
      payer: payment.payer,
      network: payment.network,
      validBefore: payment.validBefore,
      priceColumns: networks.find((n) => n.network === payment.network)?.priceColumns ?? [],
      snapshot: () => ({ payment, operationId }),
      async settle({ requestId }) {
        done = true;
        const result = await settlePayment(state, payment, { requestId, operationId });
        if (result.kind === "settled") {
          const r = result.receipt;
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
