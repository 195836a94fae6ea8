/**
 * @module evidence/keys-cli — `tollbooth keys list` (the published keys) and `tollbooth keys
 * rotate` (a new signing key; the old one stays published without its private half). With
 * `--database-url` the keys are the shared database's (every instance signs with the new key within
 * a second or two), else the key file in `--data` (a running server signs with it within a second).
 * `tollbooth keys import` copies the key file of `--data` into the database of `--database-url`.
 */
import type { CommandContext } from "../module/define.ts";
import { EvidenceKeyError, evidenceKeyPath, readEvidenceKeyFile } from "./key-file.ts";
import { importEvidenceKeys } from "./key-set-pg.ts";
import { type EvidenceKeySet, fileEvidenceKeySet } from "./key-set.ts";

/** The settings `tollbooth keys` reads (config.ts's Config has them). */
export interface KeysConfig {
  readonly data: string;
  readonly databaseUrl?: string | undefined;
}

type KeysContext = Pick<CommandContext<KeysConfig>, "config" | "withPostgres">;

/** The key set of --database-url, else the key file of --data, for `use`; `where` names it for the operator. */
function withKeySet<T>({ config, withPostgres }: KeysContext, use: (keys: EvidenceKeySet, where: string) => Promise<T>): Promise<T> {
  if (!config.databaseUrl) return use(fileEvidenceKeySet(config.data), `key file ${evidenceKeyPath(config.data)}`);
  return withPostgres(config.databaseUrl, ({ store, where }) => {
    if (!store.evidenceKeys) throw new Error("--database-url: the evidence signing keys are not on PostgreSQL");
    return use(store.evidenceKeys, `database ${where}`);
  });
}

export async function runKeysCli(context: KeysContext, sub: string | undefined): Promise<number> {
  const { config } = context;
  if (sub !== "rotate" && sub !== "list" && sub !== "import" && sub !== undefined) {
    console.error(`tollbooth keys: unknown subcommand "${sub}" (list, rotate or import)`);
    return 2;
  }
  if (!config.databaseUrl && config.data === ":memory:") {
    console.error("tollbooth keys: --data :memory: keeps no key file");
    return 2;
  }
  if (sub === "import") return importKeys(context);
  return withKeySet(context, (keys, where) => keysAnswer(keys, where, sub));
}

async function keysAnswer(keys: EvidenceKeySet, where: string, sub: "list" | "rotate" | undefined): Promise<number> {
  try {
    if (sub === "rotate") {
      const { retired, current } = await keys.rotate();
      console.log(`new signing key ${current} in ${where}`);
      console.log(`retired ${retired}: its public key stays in /.well-known/jwks.json, its private key is gone`);
      return 0;
    }
    const listing = await keys.list();
    if (!listing) {
      console.log(`no evidence key in ${where} yet: the server makes one on first start`);
      return 0;
    }
    for (const key of listing.keys) console.log(`${key.kid}  ${key.kid === listing.current ? "signing" : "retired (published)"}`);
    console.log(`keys in ${where}`);
    return 0;
  } catch (error) {
    if (!(error instanceof EvidenceKeyError)) throw error;
    console.error(`tollbooth keys: ${error.message}`);
    return 1;
  }
}

/** `tollbooth keys import --data DIR --database-url URL`: the key file's keys into the database. */
async function importKeys({ config, withPostgres }: KeysContext): Promise<number> {
  if (!config.databaseUrl) {
    console.error("tollbooth keys import: give --database-url URL (the database to import the key file of --data into)");
    return 2;
  }
  return withPostgres(config.databaseUrl, async ({ sql, where }) => {
    try {
      const count = await importEvidenceKeys(sql, readEvidenceKeyFile(config.data));
      console.log(`imported ${count} evidence key(s) from ${evidenceKeyPath(config.data)} into database ${where}`);
      return 0;
    } catch (error) {
      if (!(error instanceof EvidenceKeyError)) throw error;
      console.error(`tollbooth keys import: ${error.message}`);
      return 1;
    }
  });
}
