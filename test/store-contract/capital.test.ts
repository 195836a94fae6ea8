/**
 * One contract for the capital board's tickets and seat commitments on SQLite and on a real
 * PostgreSQL (issue 28). Two handles stand for two instances: seats raced for from both are never
 * oversold, and a payment confirmed while another instance cancels the ticket always ends with a
 * refund due.
 */
import { describe, expect, it } from "bun:test";
import { createPgTicketBoard, capitalPgMigrations } from "../../src/capital/ticket-pg.ts";
import { capitalMigrations, type Commitment, createTicketStore, type TicketBoard } from "../../src/capital/ticket-store.ts";
import { storeEngines, withInstances } from "../support/store-engines.ts";

const engines = storeEngines<TicketBoard>("capital", { sqliteMigrations: capitalMigrations, sqlite: createTicketStore, pgMigrations: capitalPgMigrations, pg: createPgTicketBoard });

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, seconds));
const hour = 3_600_000;
const ticketOf = (seats: number, expiresAt = new Date(at(0).getTime() + hour), title = "Shared crawler") => ({ title, summary: "s", terms: "t", seats, seatPriceMicros: 250_000, expiresAt });
const paid = (n: number) => ({ payer: `0xpayer${n}`, network: "eip155:8453", transaction: `0xtx${n}`, paymentId: `pay_${n}` });
const held = (c: Commitment | string): Commitment => {
  if (typeof c === "string") throw new Error(`not reserved: ${c}`);
  return c;
};

for (const engine of engines) {
  describe.skipIf(engine.skip)(`capital board on ${engine.name}`, () => {
    it(
      "adds tickets and reads them back the same from the other instance: list, open list and totals",
      withInstances(engine, async ({ one, two }) => {
        const a = await one.add(ticketOf(3), at(0));
        expect(a).toMatchObject({ seatsTotal: 3, seatsLeft: 3, seatPriceMicros: 250_000, state: "open", createdAt: at(0).toISOString(), opensAt: at(0).toISOString(), expiresAt: new Date(at(0).getTime() + hour).toISOString(), cancelledAt: null });
        expect(a.id).toMatch(/^tkt_[0-9a-f]{16}$/);
        expect(await two.get(a.id, at(1))).toEqual(a);
        const b = await two.add(ticketOf(2, new Date(at(0).getTime() + 60_000), "soon"), at(0));
        const gone = await one.add(ticketOf(1, at(30), "gone"), at(0));
        expect((await one.list(at(1))).map((t) => t.id)).toEqual([gone.id, b.id, a.id]);
        expect((await two.list(at(40), { openOnly: true })).map((t) => t.id)).toEqual([b.id, a.id]);
        expect(await one.get(gone.id, at(40))).toMatchObject({ state: "expired" });
        expect(await two.totals(at(40))).toEqual({ openTickets: 2, seatsLeft: 5 });
        expect(await two.totals(new Date(at(0).getTime() + 2 * hour))).toEqual({ openTickets: 0, seatsLeft: 0 });
        expect(await one.get("tkt_none", at(1))).toBeUndefined();
      }),
      30_000,
    );

    it(
      "reserves seats at the ticket's price, or says why not: unknown, too many, full, expired, cancelled",
      withInstances(engine, async ({ one, two }) => {
        const t = await one.add(ticketOf(3), at(0));
        expect(await two.reserve({ ticketId: "tkt_none", seats: 1, contact: null, requestId: "r0" }, at(1))).toBe("unknown");
        expect(await two.reserve({ ticketId: t.id, seats: 4, contact: null, requestId: "r1" }, at(1))).toBe("too_many");
        const c = held(await two.reserve({ ticketId: t.id, seats: 3, contact: "ops@example.com", requestId: "r2" }, at(1)));
        expect(c).toMatchObject({ ticketId: t.id, seats: 3, priceMicros: 750_000, contact: "ops@example.com", state: "reserved", requestId: "r2", createdAt: at(1).toISOString(), payer: null });
        expect(c.id).toMatch(/^cmt_[0-9a-f]{32}$/);
        expect(await one.getCommitment(c.id)).toEqual(c);
        expect(await one.reserve({ ticketId: t.id, seats: 1, contact: null, requestId: "r3" }, at(2))).toBe("full");
        const later = await one.add(ticketOf(2, at(30)), at(0));
        expect(await two.reserve({ ticketId: later.id, seats: 1, contact: null, requestId: "r4" }, at(31))).toBe("expired");
        const cancelled = await one.add(ticketOf(2), at(0));
        expect(await two.cancel(cancelled.id, at(2))).toMatchObject({ refundsDue: 0, ticket: { state: "cancelled", cancelledAt: at(2).toISOString() } });
        expect(await one.reserve({ ticketId: cancelled.id, seats: 1, contact: null, requestId: "r5" }, at(3))).toBe("cancelled");
        expect(await one.cancel("tkt_none", at(3))).toBeUndefined();
      }),
      30_000,
    );

    it(
      "never oversells: 24 buyers racing for 5 seats across the two instances get exactly 5",
      withInstances(engine, async ({ one, two }) => {
        const t = await one.add(ticketOf(5), at(0));
        const tries = await Promise.all(Array.from({ length: 24 }, (_, n) => (n % 2 ? one : two).reserve({ ticketId: t.id, seats: 1, contact: null, requestId: `r${n}` }, at(1))));
        expect(tries.filter((c) => typeof c !== "string")).toHaveLength(5);
        expect(tries.filter((c) => typeof c === "string").every((c) => c === "full" || c === "too_many")).toBe(true);
        expect(await two.get(t.id, at(2))).toMatchObject({ seatsLeft: 0, state: "full" });
        expect(await one.listCommitments({ ticketId: t.id })).toHaveLength(5);

        const pairs = await one.add(ticketOf(5), at(0));
        const twos = await Promise.all(Array.from({ length: 12 }, (_, n) => (n % 2 ? one : two).reserve({ ticketId: pairs.id, seats: 2, contact: null, requestId: `p${n}` }, at(1))));
        expect(twos.filter((c) => typeof c !== "string")).toHaveLength(2);
        expect(await one.get(pairs.id, at(2))).toMatchObject({ seatsLeft: 1 });
      }),
      60_000,
    );

    it(
      "confirms, holds pending and releases a commitment once; a release gives its seats back",
      withInstances(engine, async ({ one, two }) => {
        const t = await one.add(ticketOf(4), at(0));
        const a = held(await one.reserve({ ticketId: t.id, seats: 2, contact: null, requestId: "ra" }, at(1)));
        const b = held(await one.reserve({ ticketId: t.id, seats: 1, contact: null, requestId: "rb" }, at(1)));
        const c = held(await one.reserve({ ticketId: t.id, seats: 1, contact: null, requestId: "rc" }, at(1)));
        expect(await two.markPending(a.id, paid(1))).toBe(true);
        expect(await one.markPending(a.id, paid(1))).toBe(false);
        expect(await two.getCommitment(a.id)).toMatchObject({ state: "pending", payer: "0xpayer1", transaction: "0xtx1", paymentId: "pay_1" });
        expect(await one.confirm(a.id, { ...paid(1), transaction: null, paymentId: null }, at(5))).toMatchObject({ state: "confirmed", transaction: "0xtx1", paymentId: "pay_1", confirmedAt: at(5).toISOString(), refundState: null });
        expect(await two.confirm(a.id, paid(1), at(6))).toBeUndefined();
        expect(await two.release(a.id, "late", at(6))).toBe(false);
        expect(await two.release(b.id, "settlement failed", at(6))).toBe(true);
        expect(await one.release(b.id, "settlement failed", at(7))).toBe(false);
        expect(await one.getCommitment(b.id)).toMatchObject({ state: "released", releasedAt: at(6).toISOString(), releaseReason: "settlement failed" });
        expect(await one.get(t.id, at(8))).toMatchObject({ seatsLeft: 1 });
        expect((await two.listCommitments({ state: "reserved" })).map((x) => x.id)).toEqual([c.id]);
        expect((await two.listCommitments({ ticketId: t.id })).map((x) => x.id).sort()).toEqual([a.id, b.id, c.id].sort());
        expect(await two.listCommitments({ ticketId: "tkt_none" })).toEqual([]);
      }),
      30_000,
    );

    it(
      "cancelling records a refund due on each paid commitment, also on one confirmed after the cancel; marked paid by hand once",
      withInstances(engine, async ({ one, two }) => {
        const t = await one.add(ticketOf(4), at(0));
        const a = held(await one.reserve({ ticketId: t.id, seats: 1, contact: null, requestId: "ra" }, at(1)));
        const free = held(await one.reserve({ ticketId: t.id, seats: 1, contact: null, requestId: "rf" }, at(1)));
        const late = held(await one.reserve({ ticketId: t.id, seats: 1, contact: null, requestId: "rl" }, at(1)));
        await one.confirm(a.id, paid(1), at(2));
        await one.confirm(free.id, { payer: null, network: null, transaction: null, paymentId: null }, at(2));
        expect(await two.cancel(t.id, at(3))).toMatchObject({ refundsDue: 1, ticket: { state: "cancelled" } });
        expect(await one.getCommitment(a.id)).toMatchObject({ refundState: "due", refundReason: expect.stringContaining("cancelled") });
        expect(await one.getCommitment(free.id)).toMatchObject({ refundState: null });
        expect(await one.confirm(late.id, paid(3), at(4))).toMatchObject({ state: "confirmed", refundState: "due" });
        expect(await two.cancel(t.id, at(5))).toMatchObject({ refundsDue: 0 });
        expect(await two.markRefundPaid(a.id, "0xrefund", at(6))).toBe(true);
        expect(await one.markRefundPaid(a.id, "0xrefund", at(7))).toBe(false);
        expect(await one.markRefundPaid(free.id, "0xrefund", at(7))).toBe(false);
        expect(await one.getCommitment(a.id)).toMatchObject({ refundState: "paid", refundNote: "0xrefund", refundPaidAt: at(6).toISOString() });
      }),
      30_000,
    );

    it(
      "a cancel racing with confirmations on the other instance leaves a refund due on every paid seat",
      withInstances(engine, async ({ one, two }) => {
        for (let round = 0; round < 3; round++) {
          const t = await one.add(ticketOf(12), at(0));
          const holds = await Promise.all(Array.from({ length: 12 }, (_, n) => one.reserve({ ticketId: t.id, seats: 1, contact: null, requestId: `r${round}_${n}` }, at(1))));
          const ids = holds.map((h) => held(h).id);
          const confirming = ids.map((id, n) => one.confirm(id, paid(n), at(2)));
          await Promise.all([two.cancel(t.id, at(2)), ...confirming]);
          const after = await two.listCommitments({ ticketId: t.id });
          expect(after.every((c) => c.state === "confirmed" && c.refundState === "due")).toBe(true);
        }
      }),
      60_000,
    );
  });
}
