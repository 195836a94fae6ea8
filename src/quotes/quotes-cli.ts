/**
 * @module quotes/quotes-cli — `tollbooth quotes`: the latest job.quote answers for the operator,
 * newest first: decision, tier and price, whether the quote was run (and by which job), payer, goal.
 */
import type { CommandContext } from "../module/define.ts";
import type { QuoteRow } from "./quote-store.ts";
import { priceText } from "./tiers.ts";

function stateOf(q: QuoteRow, now: Date): string {
  if (q.decision !== "accept") return "-";
  if (q.usedAt) return `run by ${q.jobId ?? "?"}`;
  return Date.parse(q.expiresAt) <= now.getTime() ? "expired" : "open";
}

export function listQuotesForCli({ withStore }: Pick<CommandContext, "withStore">, limit: number, now = new Date()): Promise<number> {
  return withStore(async (store) => {
    const rows = await store.quotes.recent(Number.isFinite(limit) && limit > 0 ? limit : 20);
    if (rows.length === 0) {
      console.log(`no quotes in ${store.path}`);
      return 0;
    }
    const table = [["created", "decision", "reason", "skill", "price", "budget", "state", "payer", "goal"]];
    for (const q of rows) {
      const goal = q.goal.replace(/\s+/g, " ");
      table.push([
        q.createdAt,
        q.decision,
        q.reason,
        q.runSkill ?? "-",
        q.priceMicros === null ? "-" : priceText(q.priceMicros),
        priceText(q.budgetMicros),
        stateOf(q, now),
        q.payer ?? "-",
        goal.length > 60 ? `${goal.slice(0, 59)}…` : goal,
      ]);
    }
    const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
    for (const row of table) console.log(row.map((cell, c) => cell.padEnd(widths[c]!)).join("  ").trimEnd());
    return 0;
  });
}
