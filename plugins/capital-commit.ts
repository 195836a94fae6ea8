/** Buys seats on an open capital ticket: reserved before settlement, released if it fails, at seats × the ticket's seat price. */
import { CommitRequestSchema, CommitResultSchema, defaultSeatPriceMicros, definePlugin, formatDollars } from "tollbooth";

export default definePlugin({
  id: "capital.commit",
  route: "POST /v1/capital/commit",
  summary: "Commit seats on an open capital ticket; paid at seats × the ticket's seat price (1.00 USDC by default).",
  description:
    "Commits seats of an open ticket from GET /v1/capital/tickets. The 402 states the exact total: seats × that ticket's seat price. Unknown ticket 404, expired or cancelled 410 CAPITAL_TICKET_CLOSED, full 410 CAPITAL_TICKET_FULL and too many seats 409 come before any 402. The seats are reserved atomically before settlement and released if settlement fails, so two buyers racing for the last seat never both get it and the loser is never charged. The answer is the commitment record (id, ticket, seats, payer, transaction). `contact` is private to the operator.",
  input: CommitRequestSchema,
  output: CommitResultSchema,
  // Documented price: seats at the default seat price; `admit` prices the ticket actually named.
  price: ({ seats }) => formatDollars(seats * defaultSeatPriceMicros),
  timeoutMs: 15_000,
  errors: ["CAPITAL_TICKET_NOT_FOUND", "CAPITAL_TICKET_CLOSED", "CAPITAL_TICKET_FULL", "CAPITAL_SEATS_UNAVAILABLE"],
  examples: [
    {
      title: "Commit one seat",
      input: { ticket_id: "tkt_0123456789abcdef", seats: 1, contact: "ops@agent.example" },
      output: {
        ok: true,
        commitment: {
          id: "cmt_00112233445566778899aabbccddeeff",
          ticket_id: "tkt_0123456789abcdef",
          ticket_title: "Seed round for a crawler co-op",
          seats: 1,
          seat_price_usd: "1",
          total_usd: "1",
          state: "confirmed",
          payer: "0x1111111111111111111111111111111111111111",
          network: "eip155:8453",
          transaction: "0x5f0c0000000000000000000000000000000000000000000000000000000000aa",
          payment_id: "rcpt_example",
          committed_at: "2026-01-01T00:00:00.000Z",
          confirmed_at: "2026-01-01T00:00:02.000Z",
        },
      },
    },
  ],
  async admit({ ticket_id, seats }, ctx) {
    const ticket = await ctx.capital.ticketForSale(ticket_id);
    return { price: ctx.capital.priceOfSeats(ticket, seats) };
  },
  async run(input, ctx) {
    return { ok: true as const, commitment: await ctx.capital.reserve(input, ctx.requestId) };
  },
  settlement: {
    settled: async (result, receipt, ctx) => ({ ok: true as const, commitment: await ctx.capital.confirm(result.commitment.id, receipt) }),
    unsettled: (result, outcome, ctx) => ctx.capital.unsettled(result.commitment.id, outcome.state, outcome.receipt),
  },
});
