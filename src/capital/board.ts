/**
 * @module capital/board — the capital board as buyers see it: the free board and ticket
 * summaries (never the terms), the ticket sold by `capital.ticket` with a complete description of
 * the commit call, and the seat reservations `POST /v1/capital/commit` makes and settles. Skills
 * and plugins reach it through `ctx.capital`; they never touch the tables.
 */
import { Type as t, type Static } from "@sinclair/typebox";
import type { NetworkInfo, PaymentInfo } from "../x402/payment-info.ts";
import { ApiError } from "../errors.ts";
import type { SettlementReceipt } from "../plugin/settlement-receipt.ts";
import { formatDollars } from "../plugin/price.ts";
import type { Commitment, Ticket, TicketStore } from "./ticket-store.ts";

export const commitPath = "/v1/capital/commit";
/** spec job-worker §8: the default seat price and the price of a ticket's terms. */
export const defaultSeatPriceMicros = 1_000_000;
export const termsPriceUsd = "0.01";
/** Most seats one commit may take (a body bound; a ticket's seats_left is the real limit). */
export const maxSeatsPerCommit = 1000;
export const maxContactChars = 500;

export const TicketIdSchema = t.String({ pattern: "^tkt_[0-9a-f]{16}$", description: "A ticket id from GET /v1/capital/tickets." });

export const CommitRequestSchema = t.Object(
  {
    ticket_id: TicketIdSchema,
    seats: t.Integer({ minimum: 1, maximum: maxSeatsPerCommit, description: "Seats to commit; at most the ticket's seats_left." }),
    contact: t.Optional(t.String({ minLength: 1, maxLength: maxContactChars, description: "How the operator reaches you (email, URL, agent card); private." })),
  },
  { additionalProperties: false },
);

export const CommitmentSchema = t.Object({
  id: t.String({ description: "cmt_ + 128 random bits" }),
  ticket_id: t.String(),
  ticket_title: t.String(),
  seats: t.Integer(),
  seat_price_usd: t.String(),
  total_usd: t.String(),
  state: t.Union([t.Literal("reserved"), t.Literal("confirmed"), t.Literal("pending"), t.Literal("released")]),
  payer: t.Union([t.String(), t.Null()]),
  network: t.Union([t.String(), t.Null()]),
  transaction: t.Union([t.String(), t.Null()]),
  payment_id: t.Union([t.String(), t.Null()]),
  committed_at: t.String(),
  confirmed_at: t.Union([t.String(), t.Null()]),
});
export const CommitResultSchema = t.Object({ ok: t.Literal(true), commitment: CommitmentSchema });
export type CommitmentView = Static<typeof CommitmentSchema>;

export interface HowToCommit {
  readonly method: "POST";
  /** Absolute when the server knows its public URL or the caller's origin, else the path. */
  readonly url: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: { ticket_id: string; seats: number };
  readonly optional_fields: Record<string, string>;
  readonly body_schema: unknown;
  readonly seat_price_usd: string;
  readonly seats_left: number;
  readonly max_seats: number;
  readonly total_usd: string;
  readonly expires_at: string;
  readonly payment: {
    readonly protocol: "x402";
    readonly version: 2;
    readonly scheme: "exact";
    readonly enabled: boolean;
    readonly networks: readonly { network: string; asset: string; pay_to: string; price_per_seat_usd: string }[];
  };
  readonly steps: readonly string[];
  readonly answer: string;
}

/** What `ctx.capital` offers a skill or plugin file. */
export interface CapitalFacet {
  /** The ticket, when it can still be bought: 404 unknown, 410 expired, cancelled or full. */
  ticketForSale(id: string): Promise<Ticket>;
  /** 409 when fewer than `seats` are left; else the exact price of the seats. */
  priceOfSeats(ticket: Ticket, seats: number): string;
  howToCommit(ticket: Ticket): HowToCommit;
  /** Takes the seats atomically (the hold is undone if the payment does not settle). */
  reserve(input: { ticket_id: string; seats: number; contact?: string | undefined }, requestId: string): Promise<CommitmentView>;
  confirm(commitmentId: string, receipt: SettlementReceipt): Promise<CommitmentView>;
  /** Settlement failed: the seats go back. Pending: they stay held until the receipt resolves. */
  unsettled(commitmentId: string, state: "failed" | "pending", receipt: SettlementReceipt): Promise<void>;
}

export function ticketRefusal(ticket: Ticket | undefined, id: string): ApiError | undefined {
  if (!ticket) return new ApiError("CAPITAL_TICKET_NOT_FOUND", { message: `No capital ticket ${id}; see GET /v1/capital/tickets. Nothing was charged.` });
  if (ticket.state === "expired") return new ApiError("CAPITAL_TICKET_CLOSED", { message: `Ticket ${id} expired at ${ticket.expiresAt}. Nothing was charged.`, details: { state: "expired" } });
  if (ticket.state === "cancelled") return new ApiError("CAPITAL_TICKET_CLOSED", { message: `Ticket ${id} was cancelled. Nothing was charged.`, details: { state: "cancelled" } });
  if (ticket.state === "full") return new ApiError("CAPITAL_TICKET_FULL", { details: { state: "full", seats_left: 0 } });
  return undefined;
}

function seatsUnavailable(ticket: Ticket, seats: number): ApiError {
  return new ApiError("CAPITAL_SEATS_UNAVAILABLE", {
    message: `Ticket ${ticket.id} has ${ticket.seatsLeft} seat${ticket.seatsLeft === 1 ? "" : "s"} left; ${seats} were asked for. Nothing was charged.`,
    details: { seats_left: ticket.seatsLeft },
  });
}

/** A ticket as the free list shows it: everything but the terms. */
export function ticketSummary(ticket: Ticket) {
  return {
    id: ticket.id,
    title: ticket.title,
    summary: ticket.summary,
    state: ticket.state,
    seats_total: ticket.seatsTotal,
    seats_left: ticket.seatsLeft,
    seat_price_usd: formatDollars(ticket.seatPriceMicros),
    opens_at: ticket.opensAt,
    expires_at: ticket.expiresAt,
    terms: { sold_by: "capital.ticket", price_usd: termsPriceUsd, request: { skill: "capital.ticket", ticket_id: ticket.id } },
  };
}

export function commitmentView(c: Commitment, ticket: Ticket | undefined): CommitmentView {
  return {
    id: c.id,
    ticket_id: c.ticketId,
    ticket_title: ticket?.title ?? "",
    seats: c.seats,
    seat_price_usd: formatDollars(c.priceMicros / c.seats),
    total_usd: formatDollars(c.priceMicros),
    state: c.state,
    payer: c.payer,
    network: c.network,
    transaction: c.transaction,
    payment_id: c.paymentId,
    committed_at: c.createdAt,
    confirmed_at: c.confirmedAt,
  };
}

export function howToCommit(ticket: Ticket, origin: string | undefined, payments: PaymentInfo): HowToCommit {
  const seatPrice = formatDollars(ticket.seatPriceMicros);
  const schema = JSON.parse(JSON.stringify(CommitRequestSchema)) as Record<string, unknown>;
  return {
    method: "POST",
    url: origin ? new URL(commitPath, origin).toString() : commitPath,
    path: commitPath,
    headers: { "content-type": "application/json" },
    body: { ticket_id: ticket.id, seats: 1 },
    optional_fields: { contact: `How the operator reaches you (at most ${maxContactChars} characters); kept private.` },
    body_schema: schema,
    seat_price_usd: seatPrice,
    seats_left: ticket.seatsLeft,
    max_seats: Math.min(ticket.seatsLeft, maxSeatsPerCommit),
    total_usd: `seats × ${seatPrice}`,
    expires_at: ticket.expiresAt,
    payment: {
      protocol: "x402",
      version: 2,
      scheme: "exact",
      enabled: payments.enabled,
      networks: payments.networks.map((n: NetworkInfo) => ({ network: n.network, asset: n.asset, pay_to: n.payTo, price_per_seat_usd: seatPrice })),
    },
    steps: [
      "POST the body without PAYMENT-SIGNATURE: the free 402 answer's PAYMENT-REQUIRED header states the exact total (seats × seat price) on every network.",
      "Sign one offer with an x402 v2 client (exact scheme) and POST the identical body again with PAYMENT-SIGNATURE.",
      "The seats are reserved before settlement and released if it fails; a 200 carries the commitment record and PAYMENT-RESPONSE.",
      "404 CAPITAL_TICKET_NOT_FOUND, 410 CAPITAL_TICKET_CLOSED or CAPITAL_TICKET_FULL, 409 CAPITAL_SEATS_UNAVAILABLE come before any 402 and charge nothing.",
    ],
    answer: "200 {ok: true, commitment: {id, ticket_id, seats, seat_price_usd, total_usd, state, payer, network, transaction, payment_id, committed_at, confirmed_at}}",
  };
}

export interface CapitalBoardDeps {
  readonly tickets: TicketStore;
  readonly payments: PaymentInfo;
  readonly now: () => Date;
  /** The configured public URL, used when the caller's origin is not known (async jobs). */
  readonly publicUrl?: string | undefined;
}

export function createCapitalFacet(deps: CapitalBoardDeps, origin: string | undefined): CapitalFacet {
  const { tickets, now } = deps;
  const base = deps.publicUrl ?? origin;
  const view = async (c: Commitment) => commitmentView(c, await tickets.get(c.ticketId, now()));
  return {
    async ticketForSale(id) {
      const ticket = await tickets.get(id, now());
      const refusal = ticketRefusal(ticket, id);
      if (refusal) throw refusal;
      return ticket as Ticket;
    },
    priceOfSeats(ticket, seats) {
      if (seats > ticket.seatsLeft) throw seatsUnavailable(ticket, seats);
      return formatDollars(seats * ticket.seatPriceMicros);
    },
    howToCommit: (ticket) => howToCommit(ticket, base, deps.payments),
    async reserve(input, requestId) {
      const taken = await tickets.reserve({ ticketId: input.ticket_id, seats: input.seats, contact: input.contact ?? null, requestId }, now());
      if (typeof taken !== "string") return view(taken);
      const ticket = await tickets.get(input.ticket_id, now());
      if (taken === "too_many" && ticket) throw seatsUnavailable(ticket, input.seats);
      throw ticketRefusal(ticket, input.ticket_id) ?? new ApiError("CAPITAL_TICKET_CLOSED");
    },
    async confirm(commitmentId, receipt) {
      const confirmed = await tickets.confirm(commitmentId, receipt, now());
      const current = confirmed ?? (await tickets.getCommitment(commitmentId));
      if (!current) throw new ApiError("INTERNAL_ERROR", { message: "The commitment vanished after settlement; the operator has the payment receipt." });
      return view(current);
    },
    async unsettled(commitmentId, state, receipt) {
      if (state === "pending") await tickets.markPending(commitmentId, receipt);
      else await tickets.release(commitmentId, "settlement failed", now());
    },
  };
}
