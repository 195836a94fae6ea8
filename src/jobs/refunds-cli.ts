/**
 * @module jobs/refunds-cli — `tollbooth refunds`: jobs whose payment was settled at acceptance
 * and that then failed through our fault. The x402 layer has no refund primitive (a refund is a
 * transfer from the pay-to wallet, whose key Tollbooth never holds), so refunds are recorded
 * here and paid by the operator, who marks them paid with `--mark-paid JOB_ID --note TX`.
 */
import type { Config } from "../config.ts";
import { formatDollars } from "../plugin/price.ts";
import { openStore } from "../store/store.ts";

export function runRefundsCli(config: Pick<Config, "data">, options: { all?: boolean; markPaid?: string; note?: string }): number {
  const store = openStore(config.data);
  try {
    if (options.markPaid) {
      if (!options.note?.trim()) {
        console.error("tollbooth refunds --mark-paid JOB_ID needs --note TEXT (e.g. the refund transaction)");
        return 2;
      }
      if (!store.jobs.markRefundPaid(options.markPaid, options.note.trim())) {
        console.error(`no refund due on job ${options.markPaid}`);
        return 1;
      }
      console.log(`refund on ${options.markPaid} marked paid`);
      return 0;
    }
    const rows = store.jobs.listRefunds(options.all ? undefined : "due");
    if (rows.length === 0) {
      console.log(options.all ? "no refunds recorded" : "no refunds due");
      return 0;
    }
    for (const r of rows) {
      console.log(
        [r.finishedAt ?? r.createdAt, r.refundState, r.id, r.skill, `$${formatDollars(r.priceMicros)}`, r.network ?? "-", r.payer ?? "-", r.refundReason ?? "", r.refundNote ?? ""]
          .join("  ")
          .trimEnd(),
      );
    }
    if (!options.all) console.log(`\n${rows.length} refund${rows.length === 1 ? "" : "s"} due: pay them from the pay-to wallet, then mark each with --mark-paid JOB_ID --note TX`);
    return 0;
  } finally {
    store.close();
  }
}
