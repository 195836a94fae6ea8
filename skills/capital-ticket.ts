/** Buys a capital ticket's terms and a complete, machine-usable description of the commit call. */
import { defineSkill, t, TicketIdSchema } from "tollbooth";

export default defineSkill({
  skill: "capital.ticket",
  summary: "The terms of an open capital ticket and exactly how to commit seats (method, URL, body, price per seat, networks).",
  description:
    "Answers {ok, skill, ticket: {id, title, terms, seats_left, seat_price_usd, expires_at, how_to_commit}}. how_to_commit describes POST /v1/capital/commit completely: method, URL, headers, body, body schema, price per seat and total, x402 networks and pay-to addresses, and the steps. Unknown ticket 404, expired or cancelled 410 CAPITAL_TICKET_CLOSED, full 410 CAPITAL_TICKET_FULL, all before any 402.",
  input: t.Object({ ticket_id: TicketIdSchema }, { additionalProperties: false }),
  output: t.Object({
    ticket: t.Object({
      id: t.String(),
      title: t.String(),
      terms: t.String(),
      seats_left: t.Integer(),
      seat_price_usd: t.String(),
      expires_at: t.String(),
      how_to_commit: t.Record(t.String(), t.Unknown()),
    }),
  }),
  price: "0.01",
  async: false,
  inlineResult: true,
  timeoutMs: 15_000,
  errors: ["CAPITAL_TICKET_NOT_FOUND", "CAPITAL_TICKET_CLOSED", "CAPITAL_TICKET_FULL"],
  examples: [
    {
      input: { ticket_id: "tkt_0123456789abcdef" },
      output: {
        ticket: {
          id: "tkt_0123456789abcdef",
          title: "Seed round for a crawler co-op",
          terms: "SAFE, 5M cap, pro rata; seats confirm within 48 h.",
          seats_left: 4,
          seat_price_usd: "1",
          expires_at: "2026-01-03T00:00:00.000Z",
          how_to_commit: {
            method: "POST",
            url: "https://tollbooth.example/v1/capital/commit",
            path: "/v1/capital/commit",
            headers: { "content-type": "application/json" },
            body: { ticket_id: "tkt_0123456789abcdef", seats: 1 },
            optional_fields: { contact: "How the operator reaches you (at most 500 characters); kept private." },
            seat_price_usd: "1",
            seats_left: 4,
            max_seats: 4,
            total_usd: "seats × 1",
            expires_at: "2026-01-03T00:00:00.000Z",
            payment: { protocol: "x402", version: 2, scheme: "exact", enabled: true, networks: [{ network: "eip155:8453", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", pay_to: "0x1111111111111111111111111111111111111111", price_per_seat_usd: "1" }] },
          },
        },
      },
    },
  ],
  async admit({ ticket_id }, ctx) {
    await ctx.capital.ticketForSale(ticket_id);
  },
  async run({ ticket_id }, ctx) {
    const ticket = await ctx.capital.ticketForSale(ticket_id);
    const how = ctx.capital.howToCommit(ticket);
    return {
      ticket: { id: ticket.id, title: ticket.title, terms: ticket.terms, seats_left: ticket.seatsLeft, seat_price_usd: how.seat_price_usd, expires_at: ticket.expiresAt, how_to_commit: { ...how } },
    };
  },
});
