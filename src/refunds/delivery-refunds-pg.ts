/**
 * @module refunds/delivery-refunds-pg — delivery refunds (delivery-refunds.ts) on PostgreSQL: the
 * same rows and ledger steps, shared by every instance.
 */
import type { Sql } from "../store/postgres.ts";
import { type DeliveryRefundRow, type DeliveryRefunds, deliveryRefundOf, deliveryRefundTable, markPaidSql } from "./delivery-refunds.ts";
import { createPgRefundLedger } from "./ledger-pg.ts";

export function createPgDeliveryRefunds(sql: Sql): DeliveryRefunds {
  return {
    ...createPgRefundLedger(sql, deliveryRefundTable),
    async recordDue(r) {
      await sql`
        INSERT INTO delivery_refunds (id, operation_id, request_id, network, payer, transaction_id, quoted_micros, price_micros, created_at)
        VALUES (${r.id}, ${r.operationId}, ${r.requestId}, ${r.network}, ${r.payer}, ${r.transaction}, ${r.quotedMicros}, ${r.priceMicros}, ${r.createdAt.toISOString()})
        ON CONFLICT (id) DO NOTHING`;
    },
    list: async () => (await sql<DeliveryRefundRow[]>`SELECT * FROM delivery_refunds ORDER BY created_at, id`).map(deliveryRefundOf),
    markRefundPaid: async (id, note, at) => (await sql.unsafe(markPaidSql, [note, at.toISOString(), id])).count === 1,
  };
}
