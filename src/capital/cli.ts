/**
 * @module capital/cli — `tollbooth tickets add|list|cancel` and `tollbooth commitments`: the
 * operator's side of the capital board, on the data folder (SQLite WAL, so a running server sees
 * every change at once). Output is JSON for scripts.
 */
import { formatDollars, parseDollars } from "../plugin/price.ts";
import type { CommandContext } from "../module/define.ts";
import { commitmentView, defaultSeatPriceMicros, ticketSummary } from "./board.ts";
import type { Commitment, Ticket, TicketStore } from "./ticket-store.ts";

/** The command's words and own flags as cli/args.ts read them (cli/commands.ts lists them). */
export interface CapitalCliArgs {
  readonly words: readonly string[];
  readonly flags: Readonly<Record<string, string | undefined>>;
  readonly all: boolean;
}

const maxExpiryMs = 90 * 86_400_000;

/** "30m", "48h", "7d" → milliseconds (at most 90 days). */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,6})([mhd])$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as "m" | "h" | "d"];
  return ms > 0 && ms <= maxExpiryMs ? ms : undefined;
}

const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));

/** The operator's view of a ticket: the summary, the terms, and its commitments by state. */
async function operatorTicket(ticket: Ticket, tickets: TicketStore) {
  const commitments = await tickets.listCommitments({ ticketId: ticket.id });
  const count = (state: Commitment["state"]) => commitments.filter((c) => c.state === state).reduce((n, c) => n + c.seats, 0);
  const { terms: _sold, ...summary } = ticketSummary(ticket);
  return {
    ...summary,
    terms: ticket.terms,
    created_at: ticket.createdAt,
    cancelled_at: ticket.cancelledAt,
    seats_committed: { confirmed: count("confirmed"), reserved: count("reserved"), pending: count("pending") },
  };
}

function operatorCommitment(c: Commitment, ticket: Ticket | undefined) {
  return {
    ...commitmentView(c, ticket),
    contact: c.contact,
    released_at: c.releasedAt,
    release_reason: c.releaseReason,
    refund: c.refundState
      ? { state: c.refundState, reason: c.refundReason, transaction: c.refundTx, error: c.refundError, note: c.refundNote, paid_at: c.refundPaidAt }
      : null,
  };
}

function fail(message: string): number {
  console.error(message);
  return 2;
}

export async function runTicketsCli({ withStore }: Pick<CommandContext, "withStore">, args: CapitalCliArgs, now: () => Date = () => new Date()): Promise<number> {
  const [sub, id] = args.words;
  const f = args.flags;
  if (sub === "add") {
    const missing = ["title", "summary", "terms", "seats"].filter((name) => !f[name]?.trim());
    if (missing.length) return fail(`tollbooth tickets add: missing ${missing.map((m) => `--${m}`).join(", ")} (usage: --title T --summary S --terms T --seats N [--seat-price 1.00] [--expires-in 48h])`);
    const seats = Number(f.seats);
    if (!Number.isInteger(seats) || seats < 1 || seats > 100_000) return fail("tollbooth tickets add: --seats must be a whole number from 1 to 100000");
    const seatPrice = f["seat-price"] === undefined ? defaultSeatPriceMicros : parseDollars(f["seat-price"]);
    if (seatPrice === undefined || seatPrice <= 0) return fail('tollbooth tickets add: --seat-price must be a dollar amount above 0 with at most 6 decimals, like "1.00"');
    const expiresMs = parseDuration(f["expires-in"] ?? "48h");
    if (expiresMs === undefined) return fail('tollbooth tickets add: --expires-in must be like "30m", "48h" or "7d" (at most 90 days)');
    for (const [name, max] of [["title", 120], ["summary", 1000], ["terms", 20_000]] as const) {
      if ((f[name] ?? "").length > max) return fail(`tollbooth tickets add: --${name} is longer than ${max} characters`);
    }
    return withStore(async (store) => {
      const at = now();
      const ticket = await store.tickets.add(
        { title: f.title!.trim(), summary: f.summary!.trim(), terms: f.terms!.trim(), seats, seatPriceMicros: seatPrice, expiresAt: new Date(at.getTime() + expiresMs) },
        at,
      );
      print(await operatorTicket(ticket, store.tickets));
      return 0;
    });
  }
  if (sub === "list") {
    return withStore(async (store) => {
      print(await Promise.all((await store.tickets.list(now(), { openOnly: !args.all })).map((t) => operatorTicket(t, store.tickets))));
      return 0;
    });
  }
  if (sub === "cancel") {
    if (!id) return fail("tollbooth tickets cancel ID");
    return withStore(async (store) => {
      const cancelled = await store.tickets.cancel(id, now());
      if (!cancelled) {
        console.error(`no ticket ${id}`);
        return 1;
      }
      const refunds = (await store.tickets.listCommitments({ ticketId: id })).filter((c) => c.refundState !== null);
      print({
        ticket: await operatorTicket(cancelled.ticket, store.tickets),
        refunds_recorded: cancelled.refundsDue,
        refunds_due: refunds.filter((c) => c.refundState !== "paid").map((c) => ({ commitment_id: c.id, payer: c.payer, network: c.network, amount_usd: formatDollars(c.priceMicros), state: c.refundState })),
        note: refunds.length
          ? "The server pays these from the network's refund key when one is set (every minute); otherwise pay them from the pay-to wallet and mark each with tollbooth commitments --mark-refund-paid ID --note TX."
          : "No paid commitments: nothing is owed.",
      });
      return 0;
    });
  }
  return fail("usage: tollbooth tickets add --title T --summary S --terms T --seats N [--seat-price 1.00] [--expires-in 48h] | tickets list [--all] | tickets cancel ID");
}

export function runCommitmentsCli({ withStore }: Pick<CommandContext, "withStore">, args: CapitalCliArgs, now: () => Date = () => new Date()): Promise<number> {
  return withStore(async (store) => {
    const markId = args.flags["mark-refund-paid"];
    if (markId) {
      if (!args.flags.note?.trim()) return fail("tollbooth commitments --mark-refund-paid ID needs --note TEXT (e.g. the refund transaction)");
      if (!(await store.tickets.markRefundPaid(markId, args.flags.note.trim(), now()))) {
        console.error(`no refund due on commitment ${markId}`);
        return 1;
      }
      console.log(`refund on ${markId} marked paid`);
      return 0;
    }
    const ticketId = args.flags.ticket;
    const rows = (await store.tickets.listCommitments(ticketId ? { ticketId } : {})).filter((c) => args.all || c.state !== "released");
    print(await Promise.all(rows.map(async (c) => operatorCommitment(c, await store.tickets.get(c.ticketId, now())))));
    return 0;
  });
}
