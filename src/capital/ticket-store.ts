/**
 * @module capital/ticket-store — the capital board's tables: tickets the operator posts and the
 * seat commitments buyers pay for. Seats move only through conditional updates (a reservation
 * takes them only while enough are left on an open, unexpired ticket), so two buyers racing for
 * the last seat — in this process or another one on the same database — never both get it.
 *
 * A commitment is `reserved` while its payment settles, then `confirmed` (settled or free),
 * `pending` (settlement sent, not confirmed: the seats stay held until the receipt resolves) or
 * `released` (settlement failed: the seats go back). Refunds of confirmed commitments on a
 * cancelled ticket use the same columns and states as the jobs' refunds, so the one refund
 * payer (refunds/payer.ts) pays both.
 */
import { randomBytes } from "node:crypto";
import { createRefundLedger, type RefundColumns, type RefundLedger, type RefundLedgerTable, type RefundState } from "../refunds/ledger.ts";
import type { Database, Migration } from "../store/db.ts";

export const capitalMigrations: Migration[] = [
  {
    id: "capital_0001_tickets",
    sql: `CREATE TABLE capital_tickets (
      id TEXT PRIMARY KEY,
      title TEXT NOT NULL,
      summary TEXT NOT NULL,
      terms TEXT NOT NULL,
      seats_total INTEGER NOT NULL,
      seats_left INTEGER NOT NULL CHECK (seats_left >= 0),
      seat_price_micros INTEGER NOT NULL,
      state TEXT NOT NULL,
      opens_at TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      created_at TEXT NOT NULL,
      cancelled_at TEXT
    );
    CREATE INDEX capital_tickets_open ON capital_tickets (state, expires_at);
    CREATE TABLE capital_commitments (
      id TEXT PRIMARY KEY,
      ticket_id TEXT NOT NULL REFERENCES capital_tickets (id),
      seats INTEGER NOT NULL,
      price_micros INTEGER NOT NULL,
      contact TEXT,
      state TEXT NOT NULL,
      payer TEXT,
      network TEXT,
      transaction_id TEXT,
      payment_id TEXT,
      request_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      confirmed_at TEXT,
      released_at TEXT,
      release_reason TEXT,
      refund_state TEXT,
      refund_reason TEXT,
      refund_note TEXT,
      refund_claim TEXT,
      refund_claimed_at TEXT,
      refund_tx TEXT,
      refund_raw TEXT,
      refund_attempts INTEGER NOT NULL DEFAULT 0,
      refund_error TEXT,
      refund_paid_at TEXT
    );
    CREATE INDEX capital_commitments_ticket ON capital_commitments (ticket_id, state);
    CREATE INDEX capital_commitments_refunds ON capital_commitments (refund_state) WHERE refund_state IS NOT NULL;`,
  },
];

/** What a buyer or the operator sees: `open` until full, expired or cancelled. */
export type TicketState = "open" | "full" | "expired" | "cancelled";
export type CommitmentState = "reserved" | "confirmed" | "pending" | "released";

export interface Ticket {
  readonly id: string;
  readonly title: string;
  readonly summary: string;
  readonly terms: string;
  readonly seatsTotal: number;
  readonly seatsLeft: number;
  readonly seatPriceMicros: number;
  readonly state: TicketState;
  readonly opensAt: string;
  readonly expiresAt: string;
  readonly createdAt: string;
  readonly cancelledAt: string | null;
}

export interface Commitment {
  readonly id: string;
  readonly ticketId: string;
  readonly seats: number;
  readonly priceMicros: number;
  readonly contact: string | null;
  readonly state: CommitmentState;
  readonly payer: string | null;
  readonly network: string | null;
  readonly transaction: string | null;
  readonly paymentId: string | null;
  readonly requestId: string;
  readonly createdAt: string;
  readonly confirmedAt: string | null;
  readonly releasedAt: string | null;
  readonly releaseReason: string | null;
  readonly refundState: RefundState | null;
  readonly refundReason: string | null;
  readonly refundNote: string | null;
  readonly refundTx: string | null;
  readonly refundError: string | null;
  readonly refundPaidAt: string | null;
}

export interface NewTicket {
  readonly title: string;
  readonly summary: string;
  readonly terms: string;
  readonly seats: number;
  readonly seatPriceMicros: number;
  readonly expiresAt: Date;
}

/** Why a reservation took nothing. */
export type ReserveRefusal = "unknown" | "cancelled" | "expired" | "full" | "too_many";

/**
 * The capital board's table family (issue 28): one asynchronous interface, two engines — SQLite
 * here (the default) and PostgreSQL (ticket-pg.ts). The refund ledger on the commitments
 * (refunds/ledger.ts, `capitalRefundTable`) is joined to it by the store that opens the engine.
 */
export interface TicketBoard {
  add(ticket: NewTicket, now: Date): Promise<Ticket>;
  get(id: string, now: Date): Promise<Ticket | undefined>;
  list(now: Date, options?: { openOnly?: boolean }): Promise<Ticket[]>;
  /** open → cancelled; every confirmed commitment with a payer gets a refund due. */
  cancel(id: string, now: Date): Promise<{ ticket: Ticket; refundsDue: number } | undefined>;
  /** Takes `seats` atomically, or says why it cannot. */
  reserve(input: ReserveInput, now: Date): Promise<Commitment | ReserveRefusal>;
  /** reserved | pending → confirmed with the settlement; a refund is due at once if the ticket was cancelled meanwhile. */
  confirm(id: string, settlement: SeatSettlement, now: Date): Promise<Commitment | undefined>;
  /** reserved | pending → released, seats given back. */
  release(id: string, reason: string, now: Date): Promise<boolean>;
  /** reserved → pending: settlement sent, not confirmed. */
  markPending(id: string, settlement: SeatSettlement): Promise<boolean>;
  getCommitment(id: string): Promise<Commitment | undefined>;
  listCommitments(options?: { ticketId?: string; state?: CommitmentState }): Promise<Commitment[]>;
  /** The operator paid a refund by hand. */
  markRefundPaid(id: string, note: string, now: Date): Promise<boolean>;
  /** Counts for the free board. */
  totals(now: Date): Promise<{ openTickets: number; seatsLeft: number }>;
}

export interface TicketStore extends TicketBoard, RefundLedger {}

export interface ReserveInput {
  readonly ticketId: string;
  readonly seats: number;
  readonly contact: string | null;
  readonly requestId: string;
}

export interface SeatSettlement {
  readonly payer: string | null;
  readonly network: string | null;
  readonly transaction: string | null;
  readonly paymentId: string | null;
}

/** The refund ledger's view of the commitments table (the same for either engine). */
export const capitalRefundTable: RefundLedgerTable = { table: "capital_commitments", settled: "state = 'confirmed'", orderBy: "confirmed_at" };

const idOf = (prefix: string, bytes: number) => `${prefix}_${randomBytes(bytes).toString("hex")}`;
/** 64 random bits: ticket ids are public (the free list shows them). */
export const newTicketId = () => idOf("tkt", 8);
/** 128 random bits: a commitment id is its buyer's handle. */
export const newCommitmentId = () => idOf("cmt", 16);

export interface TicketRow {
  id: string;
  title: string;
  summary: string;
  terms: string;
  seats_total: number;
  seats_left: number;
  seat_price_micros: number;
  state: string;
  opens_at: string;
  expires_at: string;
  created_at: string;
  cancelled_at: string | null;
}

export interface CommitmentRow extends RefundColumns {
  id: string;
  ticket_id: string;
  seats: number;
  price_micros: number;
  contact: string | null;
  state: string;
  payer: string | null;
  network: string | null;
  transaction_id: string | null;
  payment_id: string | null;
  request_id: string;
  created_at: string;
  confirmed_at: string | null;
  released_at: string | null;
  release_reason: string | null;
  refund_paid_at: string | null;
}

export function ticketState(row: TicketRow, now: Date): TicketState {
  if (row.state === "cancelled") return "cancelled";
  if (Date.parse(row.expires_at) <= now.getTime()) return "expired";
  if (row.seats_left === 0) return "full";
  return "open";
}

export function toTicket(row: TicketRow, now: Date): Ticket {
  return {
    id: row.id,
    title: row.title,
    summary: row.summary,
    terms: row.terms,
    seatsTotal: row.seats_total,
    seatsLeft: row.seats_left,
    seatPriceMicros: row.seat_price_micros,
    state: ticketState(row, now),
    opensAt: row.opens_at,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    cancelledAt: row.cancelled_at,
  };
}

export function toCommitment(r: CommitmentRow): Commitment {
  return {
    id: r.id,
    ticketId: r.ticket_id,
    seats: r.seats,
    priceMicros: r.price_micros,
    contact: r.contact,
    state: r.state as CommitmentState,
    payer: r.payer,
    network: r.network,
    transaction: r.transaction_id,
    paymentId: r.payment_id,
    requestId: r.request_id,
    createdAt: r.created_at,
    confirmedAt: r.confirmed_at,
    releasedAt: r.released_at,
    releaseReason: r.release_reason,
    refundState: r.refund_state as RefundState | null,
    refundReason: r.refund_reason,
    refundNote: r.refund_note,
    refundTx: r.refund_tx,
    refundError: r.refund_error,
    refundPaidAt: r.refund_paid_at,
  };
}

export const cancelledRefund = "the ticket was cancelled after the seats were paid";

/** Why a reservation on this ticket took nothing. */
export function reserveRefusal(row: TicketRow, now: Date): ReserveRefusal {
  const state = ticketState(row, now);
  return state === "open" ? "too_many" : state;
}

export function createTicketStore(db: Database): TicketStore {
  const insert = db.prepare(
    `INSERT INTO capital_tickets (id, title, summary, terms, seats_total, seats_left, seat_price_micros, state, opens_at, expires_at, created_at)
     VALUES ($id, $title, $summary, $terms, $seats, $seats, $price, 'open', $at, $expires, $at)`,
  );
  const get = db.prepare<TicketRow, [string]>("SELECT * FROM capital_tickets WHERE id = ?");
  const all = db.prepare<TicketRow, []>("SELECT * FROM capital_tickets ORDER BY created_at DESC, rowid DESC");
  const openRows = db.prepare<TicketRow, [string]>(
    "SELECT * FROM capital_tickets WHERE state = 'open' AND expires_at > ? AND seats_left > 0 ORDER BY expires_at, rowid",
  );
  const cancel = db.prepare<unknown, [string, string]>("UPDATE capital_tickets SET state = 'cancelled', cancelled_at = ? WHERE id = ? AND state = 'open'");
  const refundConfirmed = db.prepare<unknown, [string, string]>(
    "UPDATE capital_commitments SET refund_state = 'due', refund_reason = ? WHERE ticket_id = ? AND state = 'confirmed' AND payer IS NOT NULL AND refund_state IS NULL",
  );
  const take = db.prepare<unknown, [number, string, string, number]>(
    "UPDATE capital_tickets SET seats_left = seats_left - ?1 WHERE id = ?2 AND state = 'open' AND expires_at > ?3 AND seats_left >= ?4",
  );
  const giveBack = db.prepare<unknown, [number, string]>("UPDATE capital_tickets SET seats_left = seats_left + ? WHERE id = ?");
  const insertCommitment = db.prepare(
    `INSERT INTO capital_commitments (id, ticket_id, seats, price_micros, contact, state, request_id, created_at)
     VALUES ($id, $ticket, $seats, $price, $contact, 'reserved', $requestId, $at)`,
  );
  const getCommitment = db.prepare<CommitmentRow, [string]>("SELECT * FROM capital_commitments WHERE id = ?");
  const allCommitments = db.prepare<CommitmentRow, []>("SELECT * FROM capital_commitments ORDER BY created_at, rowid");
  const confirm = db.prepare(
    `UPDATE capital_commitments SET state = 'confirmed', payer = $payer, network = $network, transaction_id = COALESCE($tx, transaction_id),
       payment_id = COALESCE($paymentId, payment_id), confirmed_at = $at WHERE id = $id AND state IN ('reserved', 'pending')`,
  );
  const pending = db.prepare(
    `UPDATE capital_commitments SET state = 'pending', payer = $payer, network = $network, transaction_id = $tx, payment_id = $paymentId
     WHERE id = $id AND state = 'reserved'`,
  );
  const release = db.prepare<unknown, [string, string, string]>(
    "UPDATE capital_commitments SET state = 'released', released_at = ?, release_reason = ? WHERE id = ? AND state IN ('reserved', 'pending')",
  );
  const refundOne = db.prepare<unknown, [string, string]>(
    "UPDATE capital_commitments SET refund_state = 'due', refund_reason = ? WHERE id = ? AND payer IS NOT NULL AND refund_state IS NULL",
  );
  const totals = db.prepare<{ n: number; seats: number | null }, [string]>(
    "SELECT COUNT(*) AS n, SUM(seats_left) AS seats FROM capital_tickets WHERE state = 'open' AND expires_at > ? AND seats_left > 0",
  );
  const refundPaid = db.prepare<unknown, [string, string, string]>(
    "UPDATE capital_commitments SET refund_state = 'paid', refund_note = ?, refund_paid_at = ?, refund_raw = NULL, refund_claim = NULL WHERE id = ? AND refund_state IN ('due', 'sending')",
  );

  const reserveTx = db.transaction((input: ReserveInput, now: Date): Commitment | ReserveRefusal => {
    const row = get.get(input.ticketId);
    if (!row) return "unknown";
    if (take.run(input.seats, input.ticketId, now.toISOString(), input.seats).changes !== 1) return reserveRefusal(row, now);
    const id = newCommitmentId();
    insertCommitment.run({
      id,
      ticket: input.ticketId,
      seats: input.seats,
      price: input.seats * row.seat_price_micros,
      contact: input.contact,
      requestId: input.requestId,
      at: now.toISOString(),
    });
    return toCommitment(getCommitment.get(id)!);
  });

  const releaseTx = db.transaction((id: string, reason: string, now: Date): boolean => {
    const row = getCommitment.get(id);
    if (!row || release.run(now.toISOString(), reason, id).changes !== 1) return false;
    giveBack.run(row.seats, row.ticket_id);
    return true;
  });

  const confirmTx = db.transaction((id: string, s: SeatSettlement, now: Date) => {
    if (confirm.run({ id, payer: s.payer, network: s.network, tx: s.transaction, paymentId: s.paymentId, at: now.toISOString() }).changes !== 1) return undefined;
    const row = getCommitment.get(id)!;
    const ticket = get.get(row.ticket_id);
    // Cancelled while this payment settled: the buyer paid for seats that no longer exist.
    if (ticket?.state === "cancelled") refundOne.run(cancelledRefund, id);
    return toCommitment(getCommitment.get(id)!);
  });

  const cancelTx = db.transaction((id: string, now: Date) => {
    if (!get.get(id)) return undefined;
    cancel.run(now.toISOString(), id);
    const refundsDue = refundConfirmed.run(cancelledRefund, id).changes;
    return { ticket: toTicket(get.get(id)!, now), refundsDue };
  });

  return {
    async add(ticket, now) {
      const id = newTicketId();
      insert.run({
        id,
        title: ticket.title,
        summary: ticket.summary,
        terms: ticket.terms,
        seats: ticket.seats,
        price: ticket.seatPriceMicros,
        at: now.toISOString(),
        expires: ticket.expiresAt.toISOString(),
      });
      return toTicket(get.get(id)!, now);
    },
    async get(id, now) {
      const row = get.get(id);
      return row ? toTicket(row, now) : undefined;
    },
    async list(now, options = {}) {
      const rows = options.openOnly ? openRows.all(now.toISOString()) : all.all();
      return rows.map((r) => toTicket(r, now));
    },
    cancel: async (id, now) => cancelTx.immediate(id, now),
    reserve: async (input, now) => reserveTx.immediate(input, now),
    confirm: async (id, settlement, now) => confirmTx.immediate(id, settlement, now),
    release: async (id, reason, now) => releaseTx.immediate(id, reason, now),
    markPending: async (id, s) => pending.run({ id, payer: s.payer, network: s.network, tx: s.transaction, paymentId: s.paymentId }).changes === 1,
    async getCommitment(id) {
      const row = getCommitment.get(id);
      return row ? toCommitment(row) : undefined;
    },
    async listCommitments(options = {}) {
      return allCommitments
        .all()
        .map(toCommitment)
        .filter((c) => (options.ticketId === undefined || c.ticketId === options.ticketId) && (options.state === undefined || c.state === options.state));
    },
    markRefundPaid: async (id, note, now) => refundPaid.run(note, now.toISOString(), id).changes === 1,
    async totals(now) {
      const row = totals.get(now.toISOString());
      return { openTickets: row?.n ?? 0, seatsLeft: row?.seats ?? 0 };
    },
    // The refund ledger: the jobs' statements on this table (refunds/ledger.ts).
    ...createRefundLedger(db, capitalRefundTable),
  };
}
