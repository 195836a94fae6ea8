/**
 * @module evidence/module — signed evidence as one feature module: its error code, its free routes
 * (the key set, the DID document and the verify route: routes.ts) and the `verify` command (anyone's
 * check of a signed result, offline but for the key set). The signing keys stay a core family of
 * database.ts (on SQLite they are a key file, not a table) and `tollbooth keys` (cli/keys.ts) opens
 * them there; the server hands them to `serve`.
 */
import { type CommandContext, defineModule, type ModuleDeps } from "../module/define.ts";
import { errors } from "./errors.ts";
import type { EvidenceKeys } from "./key-file.ts";
import { evidenceRoutes } from "./routes.ts";

export default defineModule({
  id: "evidence",
  errors,
  serve: ({ evidenceKeys }: ModuleDeps & { readonly evidenceKeys: EvidenceKeys }) => ({ routes: evidenceRoutes(evidenceKeys) }),
  commands: [
    {
      spec: {
        name: "verify",
        words: "FILE",
        maxWords: 1,
        summary: "Check a signed evidence result: signature, key id, the hash of its text (and of the source when given); exit 0 only when all hold.",
        flags: {
          jwks: { type: "string", value: "FILE|URL", help: "the key set to trust (default: the one the statement's server publishes)" },
          source: { type: "string", value: "FILE", help: "the source bytes, to check their hash too" },
        },
      },
      usage: `  verify FILE [--jwks FILE|URL] [--source FILE]
                         check a signed evidence result: signature, key id, text (and source) hashes`,
      run: async ({ words, flags }: CommandContext) => (await import("./verify-cli.ts")).verifyForCli({ file: words[0], jwks: flags.jwks, source: flags.source }),
    },
  ],
});
