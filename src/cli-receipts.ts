/**
 * @module cli-receipts — `tollbooth receipts`: the latest settlement receipts as a table.
 */
import type { Config } from "./config.ts";
import { openStore } from "./store/store.ts";

export function listReceiptsForCli(config: Config, limit: number): number {
  const store = openStore(config.data);
  try {
    const rows = store.requestOutcomes.recent(Number.isFinite(limit) && limit > 0 ? limit : 20);
    if (rows.length === 0) {
      console.log("no receipts yet");
      return 0;
    }
    for (const r of rows) console.log(`${r.at}  ${r.status}  ${r.operationId ?? r.route}  ${r.outcome}  ${r.durationMs}ms  ${r.requestId}`);
    return 0;
  } finally {
    store.close();
  }
}
