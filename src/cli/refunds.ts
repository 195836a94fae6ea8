/**
 * @module cli/refunds — `tollbooth refunds`: jobs whose payment was settled at acceptance
 * and that then failed through our fault. Where the network has a refund key the server pays
 * them itself (refunds/payer.ts) and the transaction is shown here; otherwise the operator
 * pays them from the pay-to wallet and marks them with `--mark-paid JOB_ID --note TX`.
 */
import type { Config } from "../config.ts";
import { formatDollars } from "../plugin/price.ts";
import { openStore } from "../database.ts";

export async function runRefundsCli(config: Pick<Config, "data">, options: { all?: boolean; markPaid?: string; note?: string }): Promise<number> {
  const store = openStore(config.data);
  try {
    if (options.markPaid) {
      if (!options.note?.trim()) {
        console.error("tollbooth refunds --mark-paid JOB_ID needs --note TEXT (e.g. the refund transaction)");
        return 2;
      }
      const before = await store.jobs.get(options.markPaid);
      if (!(await store.jobs.markRefundPaid(options.markPaid, options.note.trim()))) {
        console.error(`no refund due on job ${options.markPaid}`);
        return 1;
      }
      console.log(`refund on ${options.markPaid} marked paid`);
      if (before?.refundTx) console.log(`note: the server had signed ${before.refundTx} for it; it will not be sent again, but check it did not land too`);
      return 0;
    }
    const rows = await store.jobs.listRefunds(options.all ? undefined : "unpaid");
    if (rows.length === 0) {
      console.log(options.all ? "no refunds recorded" : "no refunds due");
      return 0;
    }
    for (const r of rows) {
      console.log(
        [
          r.finishedAt ?? r.createdAt,
          r.refundState,
          r.id,
          r.skill,
          `$${formatDollars(r.priceMicros)}`,
          r.network ?? "-",
          r.payer ?? "-",
          r.refundReason ?? "",
          r.refundTx ? `tx ${r.refundTx}` : "",
          r.refundState !== "paid" && r.refundError ? `(${r.refundError})` : "",
          r.refundNote ?? "",
        ]
          .join("  ")
          .trimEnd(),
      );
    }
    if (!options.all) {
      const sending = rows.filter((r) => r.refundState === "sending").length;
      const due = rows.length - sending;
      if (due) console.log(`\n${due} refund${due === 1 ? "" : "s"} due: the server pays them on networks with a refund key; otherwise pay them from the pay-to wallet, then mark each with --mark-paid JOB_ID --note TX`);
      if (sending) console.log(`${sending} refund${sending === 1 ? "" : "s"} being sent by the server (transaction shown); leave them unless marked "check by hand"`);
    }
    return 0;
  } finally {
    store.close();
  }
}
