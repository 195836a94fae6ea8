/**
 * @module cli/refunds — `tollbooth refunds`: every refund owed, from both ledgers. `failed-call`:
 * jobs whose payment was settled at acceptance and that then failed through our fault.
 * `crawl-delivery` / `search-delivery` (and `<operation>-delivery`): work paid exact and delivered
 * in part, the undelivered remainder owed back (refunds/delivery-refunds.ts). Where the network
 * has a refund key the server pays them itself (refunds/payer.ts, delivery-refund-payer.ts) and
 * the transaction is shown here; otherwise the operator pays them from the pay-to wallet and marks
 * them with `--mark-paid ID --note TX` (a job id, or a delivery refund's receipt id).
 */
import type { Config } from "../config.ts";
import { formatDollars } from "../plugin/price.ts";
import { openStore } from "../database.ts";

/** One refund line, whichever ledger it is on. */
interface RefundLine {
  readonly at: string;
  readonly state: string;
  readonly kind: string;
  readonly id: string;
  readonly what: string;
  readonly micros: number;
  readonly network: string | null;
  readonly payer: string | null;
  readonly reason: string;
  readonly tx: string | null;
  readonly error: string | null;
  readonly note: string | null;
}

/** web.crawl → crawl-delivery, web.search → search-delivery. */
const deliveryKind = (operationId: string) => `${operationId.replace(/^web\./, "").replace(/[^a-z0-9]+/gi, "-")}-delivery`;

export async function runRefundsCli(config: Pick<Config, "data">, options: { all?: boolean; markPaid?: string; note?: string }): Promise<number> {
  const store = openStore(config.data);
  try {
    if (options.markPaid) {
      const id = options.markPaid;
      if (!options.note?.trim()) {
        console.error("tollbooth refunds --mark-paid ID needs --note TEXT (e.g. the refund transaction)");
        return 2;
      }
      const note = options.note.trim();
      const job = await store.jobs.get(id);
      const delivery = job ? undefined : (await store.deliveryRefunds.list()).find((r) => r.id === id);
      const marked = job ? await store.jobs.markRefundPaid(id, note) : delivery ? await store.deliveryRefunds.markRefundPaid(id, note, new Date()) : false;
      if (!marked) {
        console.error(`no refund due under ${id}`);
        return 1;
      }
      console.log(`refund on ${id} marked paid`);
      const signed = job?.refundTx ?? delivery?.refundTx;
      if (signed) console.log(`note: the server had signed ${signed} for it; it will not be sent again, but check it did not land too`);
      return 0;
    }
    const jobs: RefundLine[] = (await store.jobs.listRefunds(options.all ? undefined : "unpaid")).map((r) => ({
      at: r.finishedAt ?? r.createdAt,
      state: r.refundState ?? "due",
      kind: "failed-call",
      id: r.id,
      what: r.skill,
      micros: r.priceMicros,
      network: r.network,
      payer: r.payer,
      reason: r.refundReason ?? "",
      tx: r.refundTx,
      error: r.refundError,
      note: r.refundNote,
    }));
    const deliveries: RefundLine[] = (await store.deliveryRefunds.list())
      .filter((r) => options.all || r.state !== "paid")
      .map((r) => ({
        at: r.createdAt.toISOString(),
        state: r.state,
        kind: deliveryKind(r.operationId),
        id: r.id,
        what: r.operationId,
        micros: r.priceMicros,
        network: r.network,
        payer: r.payer,
        reason: `undelivered: $${formatDollars(r.priceMicros)} of $${formatDollars(r.quotedMicros)} paid (request ${r.requestId})`,
        tx: r.refundTx,
        error: r.refundError,
        note: r.refundNote,
      }));
    const rows = [...jobs, ...deliveries].sort((a, b) => a.at.localeCompare(b.at));
    if (rows.length === 0) {
      console.log(options.all ? "no refunds recorded" : "no refunds due");
      return 0;
    }
    for (const r of rows) {
      console.log(
        [
          r.at,
          r.state,
          r.kind,
          r.id,
          r.what,
          `$${formatDollars(r.micros)}`,
          r.network ?? "-",
          r.payer ?? "-",
          r.reason,
          r.tx ? `tx ${r.tx}` : "",
          r.state !== "paid" && r.error ? `(${r.error})` : "",
          r.note ?? "",
        ]
          .join("  ")
          .trimEnd(),
      );
    }
    if (!options.all) {
      const sending = rows.filter((r) => r.state === "sending").length;
      const due = rows.length - sending;
      if (due) console.log(`\n${due} refund${due === 1 ? "" : "s"} due: the server pays them on networks with a refund key; otherwise pay them from the pay-to wallet, then mark each with --mark-paid ID --note TX`);
      if (sending) console.log(`${sending} refund${sending === 1 ? "" : "s"} being sent by the server (transaction shown); leave them unless marked "check by hand"`);
    }
    return 0;
  } finally {
    store.close();
  }
}
