/**
 * @module crawl/crawl-refund — a crawl is paid `exact` for its whole limit at acceptance (`upto`
 * cannot serve it: its authorization lapses long before a crawl ends), so the pages it did not read
 * are owed back: when it ends, the store sets `refund_micros` (paid × (limit − read) / limit) in the
 * same statement that ends it, and this writes it to the delivery refunds ledger under the receipt's
 * id, once however many instances see the end (the ledger ignores a second record of an id). A crawl
 * whose instance stopped between the two is picked up by the sweep.
 */
import type { DeliveryRefunds } from "../refunds/delivery-refunds.ts";
import type { Receipt } from "../store/receipts.ts";
import { formatDollars } from "../plugin/price.ts";
import { findKnownNetwork } from "../x402/networks.ts";
import type { CrawlPaid, CrawlRow, CrawlStore } from "./crawl-store.ts";

/** A token's atomic amount in USD micros (USDC: 6 decimals), rounded down. */
export function atomicToMicros(atomic: string, network: string): number {
  const decimals = findKnownNetwork(network)?.decimals ?? 6;
  const amount = BigInt(atomic);
  return Number(decimals >= 6 ? amount / 10n ** BigInt(decimals - 6) : amount * 10n ** BigInt(6 - decimals));
}

/** What a crawl is refunded from: its settled receipt (undefined when payments are off or it is not settled). */
export function crawlPaidOf(receipt: Receipt | undefined, requestId: string): CrawlPaid | undefined {
  if (!receipt || receipt.state !== "settled") return undefined;
  return {
    paymentId: receipt.id,
    payer: receipt.payer,
    network: receipt.network,
    transaction: receipt.transaction,
    operationId: receipt.operationId ?? "web.crawl",
    requestId: receipt.requestId ?? requestId,
    micros: atomicToMicros(receipt.amount, receipt.network),
  };
}

/** `refund_due_usd` of an ended crawl's status and end event, when it owes anything back. */
export const refundDueOf = (row: Pick<CrawlRow, "refundMicros">): { refund_due_usd?: string } =>
  row.refundMicros !== null && row.refundMicros !== undefined && row.refundMicros > 0 ? { refund_due_usd: formatDollars(row.refundMicros) } : {};

export interface CrawlRefunds {
  /** Writes an ended crawl's refund due to the ledger (nothing when none is due). */
  record(row: CrawlRow): Promise<void>;
  /** Writes every refund due that an instance left unwritten. */
  sweep(): Promise<void>;
}

export function createCrawlRefunds(deps: { readonly store: CrawlStore; readonly ledger: Pick<DeliveryRefunds, "recordDue">; readonly now: () => Date }): CrawlRefunds {
  const record = async (row: CrawlRow) => {
    const paid = row.paid;
    if (!paid || !row.refundMicros || row.refundMicros <= 0 || row.refundRecorded) return;
    await deps.ledger.recordDue({
      id: paid.paymentId,
      operationId: paid.operationId,
      requestId: paid.requestId,
      network: paid.network,
      payer: paid.payer,
      transaction: paid.transaction,
      quotedMicros: paid.micros,
      priceMicros: row.refundMicros,
      createdAt: deps.now(),
    });
    await deps.store.refundRecorded(row.id);
  };
  return {
    record,
    async sweep() {
      for (const row of await deps.store.unrecordedRefunds()) await record(row);
    },
  };
}
