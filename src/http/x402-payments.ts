/**
 * @module http/x402-payments — the HTTP payments seam backed by the x402 gate: a Charge becomes a
 * PaidOperation (exact per-network USD total, bazaar discovery, and for a replayable charge the
 * body digest that payment-identifier retries must match), gate answers become Responses.
 */
import type { PaymentInfo } from "../x402/payment-info.ts";
import { formatDollars, priceIn } from "../plugin/price.ts";
import type { PaymentNetwork } from "../x402/family.ts";
import type { HttpAnswer, PaidOperation, PaymentGate, VerifiedPayment } from "../x402/gate.ts";
import { digestJson } from "../x402/payment-identifier.ts";
import { type Charge, type HoldingPayment, isReplayableCharge, type Payments } from "./payments.ts";
import { contextOf } from "./request-context.ts";
import { jsonResponse, withRequestId } from "./respond.ts";

export function answerToResponse(answer: HttpAnswer, requestId: string): Response {
  return jsonResponse(withRequestId(answer.body, requestId), answer.status, answer.headers);
}

/** The price column a configured network is published under: its family's (EVM → base, AVM → algorand, a loaded family's own), or its short name when that is a column. */
export function priceNetworkOf(network: PaymentNetwork): string {
  return network.priceColumns.find((c) => c !== network.name && c !== network.network) ?? network.name;
}

export function paidOperationFor(charge: Charge, networks: readonly PaymentNetwork[]): PaidOperation {
  const priceUsd: Record<string, string> = {};
  for (const network of networks) {
    const micros = priceIn(charge.priceMicros, network.priceColumns);
    if (micros !== undefined) priceUsd[network.network] = formatDollars(micros);
  }
  return {
    resource: { url: charge.resourceUrl, description: charge.description, mimeType: "application/json" },
    priceUsd,
    bazaar: {
      method: "POST",
      input: charge.inputExample,
      ...(charge.outputExample !== undefined ? { output: charge.outputExample } : {}),
      inputSchema: JSON.parse(JSON.stringify(charge.inputSchema)),
    },
    ...(isReplayableCharge(charge) ? { requestDigest: digestJson(charge.body) } : {}),
  };
}

export function createX402Payments(gate: PaymentGate, networks: readonly PaymentNetwork[]): Payments {
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
        const result = await gate.settle(payment, { requestId, operationId });
        if (result.kind === "settled") {
          const r = result.receipt;
          return { kind: "settled", headers: result.headers, facts: { payer: r.payer, network: r.network, transaction: r.transaction, paymentId: r.id } };
        }
        const body = result.answer.body as { error?: string; transaction?: string | null };
        const pending = body.error === "SETTLEMENT_PENDING";
        return {
          kind: "answer",
          response: answerToResponse(result.answer, requestId),
          state: pending ? "pending" : "failed",
          facts: { payer: payment.payer, network: payment.network, transaction: pending ? (body.transaction ?? null) : null, paymentId: payment.receiptId },
        };
      },
      release() {
        if (done) return;
        done = true;
        gate.release(payment);
      },
      hold(answer) {
        gate.hold(payment, answer);
      },
    };
  };

  return {
    enabled: true,
    async authorize(request, charge) {
      const context = contextOf(request);
      const result = await gate.authorize(request.headers, paidOperationFor(charge, networks), { requestId: context.id, operationId: charge.operationId });
      if (result.kind === "answer") return { kind: "answer", response: answerToResponse(result.answer, context.id) };
      return { kind: "accepted", payment: accepted(result.payment, charge.operationId) };
    },
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
      name: priceNetworkOf(n),
      network: n.network,
      asset: n.asset,
      payTo: n.payTo,
      priceColumns: n.priceColumns,
    })),
  };
}
