/**
 * @module directory/module — the directory as one feature module: its listings table, error codes,
 * the `ctx.directory` facet and the background checker (directory/service.ts), the free directory
 * documents and the `directory` command.
 */
import type { Config } from "../config.ts";
import { type CommandContext, defineModule, type ModuleDeps, notServed } from "../module/define.ts";
import type { WebEngine } from "../web/engine.ts";
import { errors } from "./errors.ts";
import { createDirectoryService, type DirectoryDocs, type DirectoryFacet } from "./service.ts";
import { tables } from "./tables.ts";

declare module "../module/define.ts" {
  interface ModuleFacets {
    /** The directory's listings and checks, read-only (directory.intro, network.peer_survey). */
    readonly directory: DirectoryFacet;
  }
  interface ModuleDocs {
    readonly directory: DirectoryDocs;
  }
}

export default defineModule({
  id: "directory",
  tables,
  errors,
  serve: ({ store, web, log, now, config }: ModuleDeps & { readonly web: WebEngine; readonly config: Partial<Pick<Config, "directoryChecksPerMin">> }) => {
    const directory = createDirectoryService({ listings: store.listings, web, log: log.child({ component: "directory" }), now, checksPerMin: config.directoryChecksPerMin ?? 3 });
    return { facet: () => directory.facet, docs: directory.docs, stop: () => directory.stop() };
  },
  freeDocuments: [
    { path: "/v1/directory", contentType: "application/json", summary: "Directory: what it lists, counts, tags, how to be listed", render: (docs) => docs.directory?.overview(docs.baseUrl) ?? notServed("directory") },
    {
      path: "/v1/directory/listings",
      contentType: "application/json",
      summary: "Directory listings, paged, filtered by tag or skill; never contact details",
      render: (docs) => docs.directory?.listings(docs.query ?? new URLSearchParams()) ?? notServed("directory"),
      query: [
        { name: "tag", description: "Only listings with this tag (case-insensitive).", schema: { type: "string", maxLength: 40 } },
        { name: "skill", description: "Only listings selling this skill id (case-insensitive).", schema: { type: "string", maxLength: 80 } },
        { name: "offset", description: "Listings to skip (default 0); next_offset gives the next page.", schema: { type: "integer", minimum: 0 } },
        { name: "limit", description: "Page size (default 20, at most 100).", schema: { type: "integer", minimum: 1, maximum: 100 } },
      ],
    },
  ],
  commands: [
    {
      spec: {
        name: "directory",
        words: "add | list | remove ID | check ID",
        maxWords: 2,
        summary: "List an agent by hand or from its A2A agent card (read through the guarded fetcher), list every listing, remove one or check one now.",
        flags: {
          name: { type: "string", value: "N", help: "add: the agent's name" },
          description: { type: "string", value: "D", help: "add: what it does" },
          endpoint: { type: "string", value: "URL", help: "add: where it answers" },
          contact: { type: "string", value: "C", help: "add: how to reach its operator" },
          tags: { type: "string", value: "a,b", help: "add: comma-separated tags" },
          card: { type: "string", value: "URL", help: "add: read the listing from this agent card" },
        },
      },
      usage: `  directory add --name N --description D --endpoint URL --contact C [--tags a,b]
  directory add --card URL [--contact C] [--tags a,b]
                         list an agent (its card is read through the guarded fetcher)
  directory list | directory remove ID | directory check ID`,
      run: async ({ config, withStore, words, flags, loadWeb }: CommandContext<Pick<Config, "unsafeAllowLoopbackTargets">, WebEngine>) => (await import("./cli.ts")).runDirectoryCli(config, withStore, { words, flags }, await loadWeb()),
    },
  ],
});
