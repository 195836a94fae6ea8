/**
 * @module capital/service — the capital board inside a running server: the free documents, the
 * `ctx.capital` facet, and two background passes every minute: commitments whose settlement was
 * pending follow their payment receipt (settled → confirmed, failed or unused → seats released),
 * and refunds due on cancelled tickets are paid by the shared refund payer when a refund key is set.
 */
import type { PaymentInfo } from "../x402/payment-info.ts";
import { createRefundPayer, type RefundPayer } from "../refunds/payer.ts";
import type { Logger } from "../log.ts";
import type { Receipt } from "../store/receipts.ts";
import type { PaymentLookup } from "../x402/gate.ts";
import type { RefundSender } from "../x402/refund.ts";
import { commitPath, createCapitalFacet, type CapitalFacet, defaultSeatPriceMicros, termsPriceUsd, ticketSummary } from "./board.ts";
import { formatDollars } from "../plugin/price.ts";
import type { TicketStore } from "./ticket-store.ts";

/** What the free documents read. */
export interface CapitalDocs {
  board(baseUrl: string): Promise<unknown>;
  tickets(baseUrl: string): Promise<unknown>;
}

export interface CapitalService {
  facet(origin: string | undefined): CapitalFacet;
  readonly docs: CapitalDocs;
  /** Present when a network has a refund key. */
  readonly refunds: RefundPayer | undefined;
  /** Follows pending commitments to their receipts; returns how many moved. */
  reconcile(): Promise<{ confirmed: number; released: number }>;
  /** The reconcile pass run at creation, settled (never rejects). */
  readonly started: Promise<void>;
  stop(): void;
}

export interface CapitalServiceDeps {
  readonly tickets: TicketStore;
  readonly payments: PaymentInfo;
  readonly log: Logger;
  readonly now: () => Date;
  readonly publicUrl?: string | undefined;
  /** The payment receipts (payments on): by receipt id, and the one a request reserved. */
  readonly lookupPayment?: (id: string) => Promise<PaymentLookup | undefined>;
  readonly paymentOfRequest?: (requestId: string) => Promise<Receipt | undefined>;
  readonly refundSenders?: ReadonlyMap<string, RefundSender>;
  readonly confirmationTimeoutMs?: number;
}

const passEveryMs = 60_000;
/**
 * A seat hold still `reserved` this long after its request was taken lost that request (the
 * server stopped between the reservation and the settlement): no call runs this long.
 */
export const staleHoldMs = 15 * 60_000;

export function createCapitalService(deps: CapitalServiceDeps): CapitalService {
  const { tickets, log, now } = deps;
  const senders = deps.refundSenders ?? new Map<string, RefundSender>();
  const refunds =
    senders.size > 0
      ? createRefundPayer({ ledger: tickets, idField: "commitment_id", senders, log: log.child({ component: "capital-refunds" }), confirmationTimeoutMs: deps.confirmationTimeoutMs ?? 60_000, now })
      : undefined;

  async function reconcile() {
    const tally = { confirmed: 0, released: 0 };
    const at = now();
    for (const c of await tickets.listCommitments({ state: "reserved" })) {
      if (at.getTime() - Date.parse(c.createdAt) < staleHoldMs) continue;
      // Its request is gone: the payment it reserved says whether the buyer paid.
      const receipt = await deps.paymentOfRequest?.(c.requestId);
      const settlement = { payer: receipt?.payer ?? null, network: receipt?.network ?? null, transaction: receipt?.transaction ?? null, paymentId: receipt?.id ?? null };
      if (receipt?.state === "settled") {
        if (await tickets.confirm(c.id, settlement, at)) tally.confirmed++;
      } else if (receipt?.state === "pending") {
        await tickets.markPending(c.id, settlement);
      } else if (await tickets.release(c.id, "the server stopped before the payment settled", at)) {
        tally.released++;
      }
    }
    if (!deps.lookupPayment) return tally;
    for (const c of await tickets.listCommitments({ state: "pending" })) {
      const payment = c.paymentId ? await deps.lookupPayment(c.paymentId) : undefined;
      if (!payment) continue;
      if (payment.state === "settled") {
        if (await tickets.confirm(c.id, { payer: c.payer, network: c.network, transaction: payment.transaction, paymentId: c.paymentId }, now())) tally.confirmed++;
      } else if (payment.state === "failed" || payment.state === "unused") {
        if (await tickets.release(c.id, `settlement ${payment.state}`, now())) tally.released++;
      }
    }
    if (tally.confirmed || tally.released) log.info("capital commitments reconciled", tally);
    return tally;
  }

  const pass = () => {
    const reconciled = reconcile().then(
      () => {},
      (error: Error) => log.warn("capital reconcile failed", { error: error.message }),
    );
    void refunds?.pass().catch((error: Error) => log.warn("capital refund pass failed", { error: error.message }));
    return reconciled;
  };
  const started = pass();
  const timer = setInterval(pass, passEveryMs);
  timer.unref?.();

  const docs: CapitalDocs = {
    async board(baseUrl) {
      const at = now();
      const open = await tickets.list(at, { openOnly: true });
      const totals = await tickets.totals(at);
      return {
        ok: true,
        board: "capital",
        description:
          "Short-lived opportunity tickets posted by the operator. Summaries are free; a ticket's terms are sold by the capital.ticket skill; seats are committed with a paid POST /v1/capital/commit at seats × the ticket's seat price.",
        open_tickets: totals.openTickets,
        seats_left: totals.seatsLeft,
        seat_price_usd: formatDollars(defaultSeatPriceMicros),
        seat_prices_usd: [...new Set(open.map((tk) => formatDollars(tk.seatPriceMicros)))],
        terms_price_usd: termsPriceUsd,
        tickets: new URL("/v1/capital/tickets", baseUrl).toString(),
        how_to_commit: [
          "GET /v1/capital/tickets (free): pick an open ticket.",
          `POST /v1/jobs {"skill": "capital.ticket", "ticket_id": ID} ($${termsPriceUsd}): the terms and how_to_commit (method, URL, body, price per seat, networks).`,
          `POST ${commitPath} {"ticket_id": ID, "seats": N, "contact"?: "..."}: the free 402 states seats × seat price; pay it with x402 and retry. Seats are reserved before settlement and released if it fails.`,
        ],
        commit: { method: "POST", url: new URL(commitPath, baseUrl).toString() },
        payments: { protocol: "x402", version: 2, scheme: "exact", enabled: deps.payments.enabled, networks: deps.payments.networks.map((n) => ({ network: n.network, asset: n.asset, pay_to: n.payTo })) },
        refunds: "If the operator cancels a ticket after seats were paid, a refund to the paying wallet is recorded for each commitment (paid automatically where a refund account is configured).",
      };
    },
    async tickets() {
      const open = await tickets.list(now(), { openOnly: true });
      return { ok: true, count: open.length, tickets: open.map(ticketSummary) };
    },
  };

  return {
    facet: (origin) => createCapitalFacet({ tickets, payments: deps.payments, now, publicUrl: deps.publicUrl }, origin),
    docs,
    refunds,
    reconcile,
    started,
    stop() {
      clearInterval(timer);
      refunds?.stop();
    },
  };
}
