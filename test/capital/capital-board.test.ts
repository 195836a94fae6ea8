/**
 * The capital board with payments off (and on, for the 402): the operator's CLI on the data
 * folder of a running server, the free board and ticket summaries (never the terms), the
 * capital.ticket skill, commits taking seats, and every refusal — unknown, expired, cancelled,
 * full, too many seats — before any 402 and before any seat moves. @see issue 18
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type TestService, testService } from "../support/service.ts";

type Json = Record<string, any>;
const root = join(import.meta.dir, "../..");
const paidFlags = ["--payments", "on", "--pay-to-base", "0x1111111111111111111111111111111111111111", "--facilitator-url", "http://127.0.0.1:9/"];

let data: string;
let free: TestService;
let paid: TestService;

beforeAll(async () => {
  data = mkdtempSync(join(tmpdir(), "tb-capital-"));
  free = await testService(["--data", data]);
  paid = await testService(["--data", data, ...paidFlags]);
});
afterAll(() => {
  free?.close();
  paid?.close();
});

/** The real CLI, in its own process, on the running servers' data folder. */
function cli(...args: string[]): { code: number; out: Json; err: string } {
  const run = Bun.spawnSync([process.execPath, "src/main.ts", ...args, "--data", data], { cwd: root });
  const text = run.stdout.toString();
  return { code: run.exitCode ?? -1, out: text.trim().startsWith("{") || text.trim().startsWith("[") ? JSON.parse(text) : {}, err: run.stderr.toString() };
}

const addTicket = (...extra: string[]) => {
  const made = cli("tickets", "add", "--title", "Crawler co-op", "--summary", "Seed seats for a shared crawler", "--terms", "SAFE at 5M cap; pro rata", ...extra);
  expect(made.code).toBe(0);
  return made.out;
};
const job = (target: TestService, body: Json) => target.request("/v1/jobs", { method: "POST", json: body });
const commit = (target: TestService, body: Json) => target.request("/v1/capital/commit", { method: "POST", json: body });
const seatsLeft = async (id: string) => (await free.store.tickets.get(id, new Date()))?.seatsLeft;

describe("tickets CLI and the free board", () => {
  it("adds a ticket from a second process while the server runs, and the server lists it at once without its terms", async () => {
    const ticket = await addTicket("--seats", "3", "--seat-price", "0.5", "--expires-in", "2h");
    expect(ticket.id).toMatch(/^tkt_[0-9a-f]{16}$/);
    expect(ticket).toMatchObject({ state: "open", seats_total: 3, seats_left: 3, seat_price_usd: "0.5", terms: "SAFE at 5M cap; pro rata" });
    expect(Date.parse(ticket.expires_at) - Date.parse(ticket.opens_at)).toBe(2 * 3_600_000);

    const listed = (await (await free.request("/v1/capital/tickets")).json()) as Json;
    const summary = listed.tickets.find((t: Json) => t.id === ticket.id);
    expect(summary).toMatchObject({ title: "Crawler co-op", summary: "Seed seats for a shared crawler", seats_left: 3, seat_price_usd: "0.5", state: "open" });
    expect(JSON.stringify(listed)).not.toContain("SAFE at 5M cap");

    const board = (await (await free.request("/v1/capital")).json()) as Json;
    expect(board.open_tickets).toBeGreaterThanOrEqual(1);
    expect(board.seats_left).toBeGreaterThanOrEqual(3);
    expect(board.seat_price_usd).toBe("1");
    expect(board.commit.url).toBe("http://127.0.0.1:8402/v1/capital/commit");
    expect(JSON.stringify(board)).not.toContain("SAFE at 5M cap");

    const list = cli("tickets", "list");
    expect((list.out as unknown as Json[]).some((t) => t.id === ticket.id && t.terms === "SAFE at 5M cap; pro rata")).toBe(true);
  });

  it("refuses bad CLI input with a message and writes nothing", () => {
    expect(cli("tickets", "add", "--title", "x", "--summary", "y", "--terms", "z").err).toContain("--seats");
    expect(cli("tickets", "add", "--title", "x", "--summary", "y", "--terms", "z", "--seats", "2", "--seat-price", "-1").code).toBe(2);
    expect(cli("tickets", "add", "--title", "x", "--summary", "y", "--terms", "z", "--seats", "2", "--expires-in", "soon").err).toContain("--expires-in");
    expect(cli("tickets", "cancel", "tkt_0000000000000000").code).toBe(1);
  });
});

describe("capital.ticket", () => {
  it("sells the terms with a complete description of the commit call", async () => {
    const ticket = await addTicket("--seats", "4", "--seat-price", "0.25");
    const res = await job(free, { skill: "capital.ticket", ticket_id: ticket.id });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ ok: true, skill: "capital.ticket", ticket: { id: ticket.id, terms: "SAFE at 5M cap; pro rata", seats_left: 4, seat_price_usd: "0.25" } });
    const how = body.ticket.how_to_commit;
    expect(how).toMatchObject({ method: "POST", url: "http://127.0.0.1:8402/v1/capital/commit", body: { ticket_id: ticket.id, seats: 1 }, seat_price_usd: "0.25", max_seats: 4 });
    expect(how.body_schema.required).toEqual(["ticket_id", "seats"]);
    // The described call works as described.
    const committed = await commit(free, how.body);
    expect(committed.status).toBe(200);
    expect(await seatsLeft(ticket.id)).toBe(3);
  });

  it("answers an open ticket with a 402 when payments are on, and refuses unknown and closed tickets before any 402", async () => {
    const ticket = await addTicket("--seats", "1");
    const preview = await job(paid, { skill: "capital.ticket", ticket_id: ticket.id });
    expect(preview.status).toBe(402);

    const unknown = await job(paid, { skill: "capital.ticket", ticket_id: "tkt_0000000000000000" });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("payment-required")).toBeNull();
    expect(await unknown.json()).toMatchObject({ error: "CAPITAL_TICKET_NOT_FOUND" });

    expect(cli("tickets", "cancel", ticket.id).code).toBe(0);
    const closed = await job(paid, { skill: "capital.ticket", ticket_id: ticket.id });
    expect(closed.status).toBe(410);
    expect(closed.headers.get("payment-required")).toBeNull();
    expect(await closed.json()).toMatchObject({ error: "CAPITAL_TICKET_CLOSED", state: "cancelled" });

    const malformed = await job(paid, { skill: "capital.ticket", ticket_id: "nope" });
    expect(malformed.status).toBe(400);
  });
});

describe("POST /v1/capital/commit", () => {
  it("takes seats and answers the commitment record; the 402 states seats × the ticket's seat price", async () => {
    const ticket = await addTicket("--seats", "5", "--seat-price", "0.4");
    const preview = await commit(paid, { ticket_id: ticket.id, seats: 3 });
    expect(preview.status).toBe(402);
    const offers = (await preview.json()) as Json;
    expect(offers.accepts[0].amount).toBe("1200000");
    expect(await seatsLeft(ticket.id)).toBe(5);

    const res = await commit(free, { ticket_id: ticket.id, seats: 3, contact: "ops@buyer.example" });
    expect(res.status).toBe(200);
    const record = ((await res.json()) as Json).commitment;
    expect(record).toMatchObject({ ticket_id: ticket.id, ticket_title: "Crawler co-op", seats: 3, seat_price_usd: "0.4", total_usd: "1.2", state: "confirmed", payer: null, transaction: null });
    expect(record.id).toMatch(/^cmt_[0-9a-f]{32}$/);
    expect(await seatsLeft(ticket.id)).toBe(2);
    const listed = cli("commitments", "--ticket", ticket.id).out as unknown as Json[];
    expect(listed).toEqual([expect.objectContaining({ id: record.id, seats: 3, contact: "ops@buyer.example", state: "confirmed", refund: null })]);
  });

  it("refuses too many seats (409), a full ticket (410), an expired one (410), a cancelled one (410) and an unknown one (404), before any 402 and without moving a seat", async () => {
    const ticket = await addTicket("--seats", "2");
    const tooMany = await commit(paid, { ticket_id: ticket.id, seats: 3 });
    expect(tooMany.status).toBe(409);
    expect(tooMany.headers.get("payment-required")).toBeNull();
    expect(await tooMany.json()).toMatchObject({ error: "CAPITAL_SEATS_UNAVAILABLE", seats_left: 2 });
    expect(await seatsLeft(ticket.id)).toBe(2);

    expect((await commit(free, { ticket_id: ticket.id, seats: 2 })).status).toBe(200);
    const full = await commit(paid, { ticket_id: ticket.id, seats: 1 });
    expect(full.status).toBe(410);
    expect(await full.json()).toMatchObject({ error: "CAPITAL_TICKET_FULL" });
    expect((await commit(free, { ticket_id: ticket.id, seats: 1 })).status).toBe(410);
    expect(await seatsLeft(ticket.id)).toBe(0);
    const fullTerms = await job(paid, { skill: "capital.ticket", ticket_id: ticket.id });
    expect(fullTerms.status).toBe(410);

    const past = new Date(Date.now() - 3_600_000);
    const expired = await free.store.tickets.add({ title: "old", summary: "s", terms: "t", seats: 2, seatPriceMicros: 1_000_000, expiresAt: new Date(Date.now() - 1000) }, past);
    const late = await commit(paid, { ticket_id: expired.id, seats: 1 });
    expect(late.status).toBe(410);
    expect(await late.json()).toMatchObject({ error: "CAPITAL_TICKET_CLOSED", state: "expired" });
    expect((await commit(free, { ticket_id: expired.id, seats: 1 })).status).toBe(410);
    expect(await seatsLeft(expired.id)).toBe(2);

    const cancelled = await addTicket("--seats", "2");
    cli("tickets", "cancel", cancelled.id);
    const gone = await commit(paid, { ticket_id: cancelled.id, seats: 1 });
    expect(gone.status).toBe(410);
    expect(await gone.json()).toMatchObject({ error: "CAPITAL_TICKET_CLOSED", state: "cancelled" });

    const unknown = await commit(paid, { ticket_id: "tkt_ffffffffffffffff", seats: 1 });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("payment-required")).toBeNull();
    expect((await commit(paid, { ticket_id: ticket.id, seats: 0 })).status).toBe(400);
  });

  it("never sells the last seat twice: concurrent commits, and two database connections reserving directly", async () => {
    const ticket = await addTicket("--seats", "1");
    const answers = await Promise.all(Array.from({ length: 6 }, () => commit(free, { ticket_id: ticket.id, seats: 1 })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 410, 410, 410, 410, 410]);
    expect(await seatsLeft(ticket.id)).toBe(0);
    expect(await free.store.tickets.listCommitments({ ticketId: ticket.id })).toHaveLength(1);

    const other = await addTicket("--seats", "1");
    const { openStore } = await import("../../src/database.ts");
    const second = openStore(data);
    try {
      const at = new Date();
      const first = await free.store.tickets.reserve({ ticketId: other.id, seats: 1, contact: null, requestId: "a" }, at);
      const again = await second.tickets.reserve({ ticketId: other.id, seats: 1, contact: null, requestId: "b" }, at);
      expect(typeof first).toBe("object");
      expect(again).toBe("full");
      // A released hold gives the seat back to the other connection.
      expect(await free.store.tickets.release((first as { id: string }).id, "settlement failed", at)).toBe(true);
      expect(typeof await second.tickets.reserve({ ticketId: other.id, seats: 1, contact: null, requestId: "c" }, at)).toBe("object");
    } finally {
      second.close();
    }
  });

  it("records a refund due when a payment settles after its ticket was cancelled", async () => {
    const at = new Date();
    const ticket = await free.store.tickets.add({ title: "late", summary: "s", terms: "t", seats: 2, seatPriceMicros: 300_000, expiresAt: new Date(at.getTime() + 60_000) }, at);
    const held = await free.store.tickets.reserve({ ticketId: ticket.id, seats: 2, contact: null, requestId: "r" }, at);
    if (typeof held === "string") throw new Error(held);
    expect((await free.store.tickets.cancel(ticket.id, at))?.refundsDue).toBe(0);
    const confirmed = await free.store.tickets.confirm(held.id, { payer: "0x2222222222222222222222222222222222222222", network: "eip155:8453", transaction: "0xabc", paymentId: "p1" }, at);
    expect(confirmed).toMatchObject({ state: "confirmed", refundState: "due", refundReason: expect.stringContaining("cancelled") });
    expect((await free.store.tickets.refundWork(["eip155:8453"])).map((w) => [w.id, w.priceMicros])).toContainEqual([held.id, 600_000]);
  });

  it("gives back the seats of a hold whose request was lost (server stopped before settlement), and leaves fresh holds alone", async () => {
    const { createCapitalService, staleHoldMs } = await import("../../src/capital/service.ts");
    const { createMemoryLogger } = await import("../../src/log.ts");
    const at = new Date();
    const ticket = await free.store.tickets.add({ title: "crash", summary: "s", terms: "t", seats: 3, seatPriceMicros: 1_000_000, expiresAt: new Date(at.getTime() + 3_600_000) }, at);
    const stale = await free.store.tickets.reserve({ ticketId: ticket.id, seats: 2, contact: null, requestId: "req_lost" }, new Date(at.getTime() - staleHoldMs - 1000));
    const fresh = await free.store.tickets.reserve({ ticketId: ticket.id, seats: 1, contact: null, requestId: "req_live" }, at);
    if (typeof stale === "string" || typeof fresh === "string") throw new Error("not reserved");
    expect(await seatsLeft(ticket.id)).toBe(0);
    const capital = createCapitalService({ tickets: free.store.tickets, payments: free.paymentInfo, log: createMemoryLogger(), now: () => new Date() });
    await capital.started;
    capital.stop();
    expect(await free.store.tickets.getCommitment(stale.id)).toMatchObject({ state: "released", releaseReason: expect.stringContaining("stopped") });
    expect((await free.store.tickets.getCommitment(fresh.id))?.state).toBe("reserved");
    expect(await seatsLeft(ticket.id)).toBe(2);
  });

  it("keeps expired, full and cancelled tickets off the free list", async () => {
    const listed = (await (await free.request("/v1/capital/tickets")).json()) as Json;
    expect(listed.tickets.every((t: Json) => t.state === "open" && t.seats_left > 0)).toBe(true);
    expect(listed.count).toBe(listed.tickets.length);
  });
});
