/**
 * @module refunds/module — refunds owed to payers as one feature module: the delivery refunds table
 * on both engines. The ledger's steps (ledger.ts) and the payers (payer.ts, delivery-refund-payer.ts)
 * are shared with jobs and capital; `tollbooth refunds` is still cli/refunds.ts.
 */
import { defineModule } from "../module/define.ts";
import { tables } from "./tables.ts";

export default defineModule({ id: "refunds", tables });
