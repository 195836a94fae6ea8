/**
 * @module evidence/module — signed evidence as one feature module: its error code, its free routes
 * (the key set, the DID document and the verify route: routes.ts), the seal every paid result
 * passes through after settlement (`services.evidence.seal`: the paid operation, the job worker and
 * the crawl service sign with it) and the `verify` command (anyone's check of a signed result,
 * offline but for the key set) and `tollbooth keys` (keys-cli.ts: list, rotate, import; on the
 * database of --database-url through the command's `withPostgres`). The signing keys stay a core
 * family of database.ts (on SQLite they are a key file, not a table): the server hands them to `serve`.
 */
import { type CommandContext, defineModule, type ModuleDeps } from "../module/define.ts";
import { errors } from "./errors.ts";
import { tables } from "./tables.ts";
import type { EvidenceKeys } from "./key-file.ts";
import { evidenceRoutes } from "./routes.ts";
import type { KeysConfig } from "./keys-cli.ts";
import { createEvidenceSeal, type SealCall } from "./seal.ts";

/** What the other modules and the front reach as `services.evidence`. */
export interface EvidenceService {
  /**
   * Signs a result whose payment settled (or an unpaid one: payment absent), naming this server;
   * absent when results go out unsigned (benchmarks only). A result that cannot be signed goes out
   * with `attestation_error`, and the failure is logged.
   */
  readonly seal?: (result: unknown, call: { readonly payment: SealCall["payment"] }) => Promise<unknown>;
}

declare module "../module/define.ts" {
  interface ModuleServices {
    readonly evidence: EvidenceService;
  }
}

export interface EvidenceServeDeps extends ModuleDeps {
  readonly evidenceKeys: EvidenceKeys;
  readonly config: { readonly publicUrl?: string | undefined; readonly host: string; readonly port: number };
  /** The port the server listens on once started (--port 0 picks one); else --port. */
  readonly listeningPort?: (() => number) | undefined;
  /** Benchmarks only: leave evidence results unsigned. */
  readonly unsignedEvidence?: boolean | undefined;
}

function evidenceService({ evidenceKeys, config, listeningPort, unsignedEvidence, log, now }: EvidenceServeDeps): EvidenceService {
  if (unsignedEvidence) return {};
  // Signed evidence names the server from configuration, never from a caller's Host.
  const server = () => config.publicUrl ?? bindUrl(config.host, listeningPort?.() ?? config.port);
  // A result that cannot be signed after settlement goes out saying so (attestation_error), never silently unsigned.
  const seal = createEvidenceSeal(evidenceKeys, now, (error) => log.error("evidence signing failed: the result is delivered with attestation_error", { error: error.message }));
  return { seal: (result, call) => seal.seal(result, { server: server(), payment: call.payment }) };
}

/** http://host:port of the bind address (IPv6 in brackets). */
function bindUrl(host: string, port: number): string {
  return `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}

export default defineModule({
  id: "evidence",
  tables,
  errors,
  serve: (deps: EvidenceServeDeps) => {
    const service = evidenceService(deps);
    return { service, ...(service.seal ? { salePorts: { sealEvidence: service.seal } } : {}), routes: evidenceRoutes(deps.evidenceKeys) };
  },
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
    {
      spec: {
        name: "keys",
        words: "[list|rotate|import]",
        maxWords: 1,
        summary: "Evidence signing keys: list them (default), or rotate: make a new key; the old public keys stay published. import: copy the key file of --data into the database of --database-url.",
        flags: {},
      },
      usage: `  keys [list|rotate|import]
                         evidence signing keys: list, make a new one (old ones stay published),
                         or copy the key file of --data into the database of --database-url`,
      run: async (context: CommandContext<KeysConfig>) => (await import("./keys-cli.ts")).runKeysCli(context, context.words[0]),
    },
  ],
});
