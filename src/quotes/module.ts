/**
 * @module quotes/module — custom work as one feature module: the quotes table, its error codes, the
 * `ctx.quotes` facet (each call sees its own payer's quotes), the sweep that deletes quotes a week
 * old and the `quotes` command.
 */
import { type CommandContext, defineModule } from "../module/define.ts";
import { errors } from "./errors.ts";
import { createQuoteAccess, type QuoteAccess } from "./quote-access.ts";
import { quoteRetentionMs } from "./tiers.ts";
import { tables } from "./tables.ts";

declare module "../module/define.ts" {
  interface ModuleFacets {
    /** Custom-work quotes, seen as this call's payer sees them (job.quote and job.run.*). */
    readonly quotes: QuoteAccess;
  }
}

export default defineModule({
  id: "quotes",
  tables,
  errors,
  serve: ({ store }) => ({ facet: ({ payer, requestId, now }) => createQuoteAccess(store.quotes, { payer, requestId, now }) }),
  // Quotes past their hour and the 24 h repeat window stay a week for `tollbooth quotes`.
  sweep: { everyMs: 60_000, run: (store, now) => store.quotes.purge(new Date(now.getTime() - quoteRetentionMs)) },
  commands: [
    {
      spec: { name: "quotes", maxWords: 0, summary: "Recent job.quote answers: decision, price, whether run, payer, goal.", flags: { limit: { type: "string", value: "N", help: "how many of the latest (default 20)" } } },
      usage: "  quotes [--limit N]     list recent job.quote answers (decision, price, run or open, payer, goal)",
      run: async (command: CommandContext) => (await import("./quotes-cli.ts")).listQuotesForCli(command, Number(command.flags.limit ?? 20)),
    },
  ],
});
