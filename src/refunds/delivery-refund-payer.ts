/**
 * @module refunds/delivery-refund-payer — pays delivery refunds (delivery-refunds.ts) from the
 * refund account of their network, as jobs' refunds are paid (payer.ts): each one as soon as it is
 * recorded, and every unpaid one again on each pass (a failed or unconfirmed one, a restart). On
 * networks without a refund key they stay due for the operator.
 */
import type { Logger } from "../log.ts";
import type { RefundSender } from "../x402/refund.ts";
import type { DeliveryRefunds } from "./delivery-refunds.ts";
import { createRefundPayer } from "./payer.ts";

export interface DeliveryRefundPaying {
  /** Records a refund due and starts paying it (never waits for the chain). */
  readonly refunds: Pick<DeliveryRefunds, "recordDue">;
  /** Pays every unpaid one it can (the reconcile timer runs it). */
  pass(): Promise<void>;
}

export function payDeliveryRefunds(
  refunds: DeliveryRefunds,
  deps: { readonly senders: ReadonlyMap<string, RefundSender>; readonly log: Logger; readonly confirmationTimeoutMs: number },
): DeliveryRefundPaying {
  if (deps.senders.size === 0) return { refunds, pass: async () => {} };
  const log = deps.log.child({ component: "delivery-refunds" });
  const payer = createRefundPayer({ ledger: refunds, idField: "receipt_id", senders: deps.senders, log, confirmationTimeoutMs: deps.confirmationTimeoutMs });
  return {
    refunds: {
      async recordDue(refund) {
        await refunds.recordDue(refund);
        if (payer.covers(refund.network)) void payer.pay(refund.id).catch((error: Error) => log.warn("delivery refund not paid yet", { receipt_id: refund.id, error: error.message }));
      },
    },
    async pass() {
      await payer.pass().catch((error: Error) => log.warn("delivery refund pass failed", { error: error.message }));
    },
  };
}
