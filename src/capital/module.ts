/**
 * @module capital/module — the capital board as one feature module: its tables, error codes, the
 * `ctx.capital` facet and its background passes (capital/service.ts), the free board documents and
 * the `tickets` and `commitments` commands.
 */
import type { Config } from "../config.ts";
import { type CommandContext, defineModule, type ModuleDeps, notServed } from "../module/define.ts";
import type { PaymentGate } from "../x402/gate.ts";
import type { PaymentInfo } from "../x402/payment-info.ts";
import type { RefundSender } from "../x402/refund.ts";
import type { CapitalFacet } from "./board.ts";
import { errors } from "./errors.ts";
import { type CapitalDocs, createCapitalService } from "./service.ts";
import { tables } from "./tables.ts";

declare module "../module/define.ts" {
  interface ModuleFacets {
    /** The capital board: tickets for sale and seat reservations (capital.ticket, capital.commit). */
    readonly capital: CapitalFacet;
  }
  interface ModuleDocs {
    readonly capital: CapitalDocs;
  }
}

/** What the capital service needs of the running server. */
interface CapitalDeps extends ModuleDeps {
  readonly config: Pick<Config, "publicUrl"> & Partial<Pick<Config, "x402">>;
  readonly paymentInfo: PaymentInfo;
  readonly gate?: PaymentGate | undefined;
  readonly refundSenders?: ReadonlyMap<string, RefundSender> | undefined;
}

type CapitalCommand = CommandContext;

export default defineModule({
  id: "capital",
  tables,
  errors,
  serve: ({ store, paymentInfo, log, now, config, gate, refundSenders }: CapitalDeps) => {
    const capital = createCapitalService({
      tickets: store.tickets,
      payments: paymentInfo,
      log: log.child({ component: "capital" }),
      now,
      publicUrl: config.publicUrl,
      ...(gate ? { lookupPayment: async (id: string) => gate.lookup(id), paymentOfRequest: (id: string) => gate.state.store.findByRequest(id) } : {}),
      ...(refundSenders ? { refundSenders } : {}),
      confirmationTimeoutMs: config.x402?.confirmationTimeoutMs ?? 60_000,
    });
    return { facet: (call) => capital.facet(call.origin), docs: capital.docs, stop: () => capital.stop() };
  },
  freeDocuments: [
    { path: "/v1/capital", contentType: "application/json", summary: "Capital board: open tickets, seats left, seat price, how to commit", render: (docs) => docs.capital?.board(docs.baseUrl) ?? notServed("capital board") },
    { path: "/v1/capital/tickets", contentType: "application/json", summary: "Free summaries of open capital tickets (terms are sold by capital.ticket)", render: (docs) => docs.capital?.tickets(docs.baseUrl) ?? notServed("capital board") },
  ],
  commands: [
    {
      spec: {
        name: "tickets",
        words: "add | list | cancel ID",
        maxWords: 2,
        summary: "Post a capital ticket (prints it as JSON with its id), list open tickets, or cancel one (records a refund due on each paid seat).",
        flags: {
          title: { type: "string", value: "T", help: "add: the ticket's title" },
          summary: { type: "string", value: "S", help: "add: what buyers see before paying" },
          terms: { type: "string", value: "T", help: "add: the terms, sold by capital.ticket" },
          seats: { type: "string", value: "N", help: "add: seats on the ticket" },
          "seat-price": { type: "string", value: "USD", help: "add: price of one seat (default 1.00)" },
          "expires-in": { type: "string", value: "DURATION", help: "add: 30m, 48h, 7d (at most 90 days)" },
          all: { type: "boolean", help: "list: every ticket, not only open ones" },
        },
      },
      usage: `  tickets add --title T --summary S --terms T --seats N [--seat-price 1.00] [--expires-in 48h]
                         post a capital ticket (prints it as JSON with its id)
  tickets list [--all] | tickets cancel ID
                         open tickets (--all: every one); cancel records refunds due on paid seats`,
      run: async (command: CapitalCommand) => (await import("./cli.ts")).runTicketsCli(command, { words: command.words, flags: command.flags, all: command.on("all") }),
    },
    {
      spec: {
        name: "commitments",
        maxWords: 0,
        summary: "Seat commitments with payer, transaction, contact and refund state.",
        flags: {
          ticket: { type: "string", value: "ID", help: "only this ticket's" },
          all: { type: "boolean", help: "released holds too" },
          "mark-refund-paid": { type: "string", value: "ID", help: "the operator paid this commitment's refund by hand (with --note)" },
          note: { type: "string", value: "TX", help: "e.g. the refund transaction" },
        },
      },
      usage: `  commitments [--ticket ID] [--all] [--mark-refund-paid ID --note TX]
                         seat commitments with payer, transaction and refund state`,
      run: async (command: CapitalCommand) => (await import("./cli.ts")).runCommitmentsCli(command, { words: command.words, flags: command.flags, all: command.on("all") }),
    },
  ],
});
