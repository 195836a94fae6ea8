/**
 * @module directory/cli — `tollbooth directory add|list|remove|check`: the operator lists agents
 * by hand or from their A2A agent card. A card is read only through the web engine's guarded
 * fetch (public addresses, robots.txt), so a listing can never make this server reach a private
 * address. Output is JSON for scripts.
 */
import type { Config } from "../config.ts";
import { ApiError } from "../errors.ts";
import type { CommandContext } from "../module/define.ts";
import type { WebEngine } from "../web/engine.ts";
import { vetTarget } from "../web/fetch/target-guard.ts";
import type { Listing } from "./listing-store.ts";
import { checkListing, readAgentCard } from "./probe.ts";
import { publicListing } from "./service.ts";

/** The command's words and own flags as cli/args.ts read them (cli/commands.ts lists them). */
export interface DirectoryCliArgs {
  readonly words: readonly string[];
  readonly flags: Readonly<Record<string, string | undefined>>;
}

const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));
const operatorListing = (l: Listing) => ({ ...publicListing(l), contact: l.contact, check_error: l.checkError });

function tagsOf(text: string | undefined): string[] {
  return [...new Set((text ?? "").split(",").map((t) => t.trim().toLowerCase()).filter(Boolean))].map((t) => t.slice(0, 40)).slice(0, 20);
}

function refusal(error: unknown): string {
  return error instanceof ApiError ? `${error.code}: ${error.message}` : (error as Error).message;
}

function fail(message: string, code = 2): number {
  console.error(message);
  return code;
}

export async function runDirectoryCli(
  config: Pick<Config, "unsafeAllowLoopbackTargets">,
  withStore: CommandContext["withStore"],
  args: DirectoryCliArgs,
  web: () => WebEngine,
  now: () => Date = () => new Date(),
): Promise<number> {
  const [sub, id] = args.words;
  const f = args.flags;
  if (sub === "add") {
    const contact = f.contact?.trim() ? f.contact.trim().slice(0, 500) : null;
    if (f.card) {
      let card;
      try {
        card = await readAgentCard(web(), f.card, AbortSignal.timeout(20_000));
      } catch (error) {
        return fail(`tollbooth directory add: could not read the agent card at ${f.card}: ${refusal(error)}`, 1);
      }
      return withStore(async (store) => {
        const listing = await store.listings.add(
          {
            name: f.name?.trim() || card.name,
            description: f.description?.trim() || card.description,
            tags: [...new Set([...tagsOf(f.tags), ...card.tags])].slice(0, 20),
            skills: card.skills,
            endpoint: f.endpoint?.trim() || card.endpoint,
            cardUrl: f.card ?? null,
            priceSummary: card.priceSummary,
            networks: card.networks,
            contact,
            verifiedAt: now(),
            latencyMs: card.latencyMs,
          },
          now(),
        );
        print(operatorListing(listing));
        return 0;
      });
    }
    const missing = ["name", "description", "endpoint", "contact"].filter((name) => !f[name]?.trim());
    if (missing.length) return fail(`tollbooth directory add: missing ${missing.map((m) => `--${m}`).join(", ")} (usage: --name N --description D --endpoint URL --contact C [--tags a,b], or --card URL [--contact C])`);
    try {
      await vetTarget(f.endpoint!.trim(), { allowLoopbackTargets: config.unsafeAllowLoopbackTargets });
    } catch (error) {
      return fail(`tollbooth directory add: --endpoint is not a public http(s) URL: ${refusal(error)}`);
    }
    return withStore(async (store) => {
      const listing = await store.listings.add(
        {
          name: f.name!.trim().slice(0, 120),
          description: f.description!.trim().slice(0, 1000),
          tags: tagsOf(f.tags),
          skills: [],
          endpoint: f.endpoint!.trim(),
          cardUrl: null,
          priceSummary: {},
          networks: [],
          contact,
        },
        now(),
      );
      print(operatorListing(listing));
      return 0;
    });
  }
  if (sub === "list") {
    return withStore(async (store) => {
      print((await store.listings.listAll({ includeRemoved: true })).map(operatorListing));
      return 0;
    });
  }
  if (sub === "remove") {
    if (!id) return fail("tollbooth directory remove ID");
    return withStore(async (store) => {
      if (!(await store.listings.remove(id, now()))) return fail(`no listed entry ${id}`, 1);
      print(operatorListing((await store.listings.get(id))!));
      return 0;
    });
  }
  if (sub === "check") {
    if (!id) return fail("tollbooth directory check ID");
    return withStore(async (store) => {
      const listing = await store.listings.get(id);
      if (!listing) return fail(`no listing ${id}`, 1);
      await store.listings.recordCheck(id, await checkListing(web(), listing, AbortSignal.timeout(20_000), now));
      print(operatorListing((await store.listings.get(id))!));
      return 0;
    });
  }
  return fail("usage: tollbooth directory add --name N --description D --endpoint URL --contact C [--tags a,b] | add --card URL [--contact C] [--tags a,b] | list | remove ID | check ID");
}
