/**
 * @module cli/receipts — `tollbooth receipts`: the latest payment receipts (settled, pending,
 * failed, unused) as a table, newest first.
 */
import type { Config } from "../config.ts";
import { openOperatorStore } from "../database.ts";

export async function listReceiptsForCli(config: Config, limit: number, state?: string): Promise<number> {
  const store = await openOperatorStore(config);
  try {
    const rows = await store.figures.recentReceipts(Number.isFinite(limit) && limit > 0 ? limit : 20, state);
    if (rows.length === 0) {
      console.log(`no receipts${state ? ` in state ${state}` : ""} in ${store.path}`);
      return 0;
    }
    const table = [["time", "state", "network", "amount (atomic)", "operation", "payer", "transaction / reason"]];
    for (const r of rows) {
      table.push([r.updated_at, r.state, r.network, r.amount, r.operation_id ?? "-", r.payer, r.transaction_id ?? r.reason ?? "-"]);
    }
    const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
    for (const row of table) console.log(row.map((cell, c) => cell.padEnd(widths[c]!)).join("  ").trimEnd());
    return 0;
  } finally {
    await store.close();
  }
}
