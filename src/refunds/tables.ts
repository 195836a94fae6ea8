/**
 * @module refunds/tables — the delivery refunds table on both engines (refunds due for work paid
 * `exact` and delivered in part) and the `store.deliveryRefunds` facet over it.
 */
import type { ModuleTables } from "../module/define.ts";
import { createDeliveryRefunds, deliveryRefundMigrations, type DeliveryRefunds, deliveryRefundPgMigrations } from "./delivery-refunds.ts";
import { createPgDeliveryRefunds } from "./delivery-refunds-pg.ts";

declare module "../module/define.ts" {
  interface ModuleStores {
    /** Refunds due for work paid `exact` and delivered in part (paid-call/delivery.ts). */
    readonly deliveryRefunds: DeliveryRefunds;
  }
}

export const tables = {
  family: "delivery refunds",
  sqlite: deliveryRefundMigrations,
  postgres: deliveryRefundPgMigrations,
  openSqlite: (db) => ({ deliveryRefunds: createDeliveryRefunds(db) }),
  openPostgres: (sql) => ({ deliveryRefunds: createPgDeliveryRefunds(sql) }),
} satisfies ModuleTables;
