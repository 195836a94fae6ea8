/**
 * @module cli/keys — `tollbooth keys list` (the published keys) and `tollbooth keys
 * rotate` (a new signing key; the old one stays published without its private half). With
 * `--database-url` the keys are the shared database's (every instance signs with the new key within
 * a second or two), else the key file in `--data` (a running server signs with it within a second).
 * `tollbooth keys import` copies the key file of `--data` into the database of `--database-url`.
 */
import type { Config } from "../config.ts";
import { openPgFacets, PostgresNotReadyError, redactedUrl } from "../database.ts";
import { EvidenceKeyError, evidenceKeyPath, readEvidenceKeyFile } from "../evidence/key-file.ts";
import { importEvidenceKeys } from "../evidence/key-set-pg.ts";
import { type EvidenceKeySet, fileEvidenceKeySet } from "../evidence/key-set.ts";

interface OpenKeySet {
  readonly keys: EvidenceKeySet;
  /** Where they live, for the operator. */
  readonly where: string;
  close(): Promise<void>;
}

async function openKeySet(config: Pick<Config, "data" | "databaseUrl">): Promise<OpenKeySet> {
  if (!config.databaseUrl) return { keys: fileEvidenceKeySet(config.data), where: `key file ${evidenceKeyPath(config.data)}`, close: async () => {} };
  const pg = await openPgFacets(config.databaseUrl, { max: 2 });
  if (!pg.evidenceKeys) {
    await pg.close();
    throw new PostgresNotReadyError(["evidence signing keys"]);
  }
  return { keys: pg.evidenceKeys, where: `database ${redactedUrl(config.databaseUrl)}`, close: () => pg.close() };
}

export async function runKeysCli(config: Pick<Config, "data" | "databaseUrl">, sub: string | undefined): Promise<number> {
  if (sub !== "rotate" && sub !== "list" && sub !== "import" && sub !== undefined) {
    console.error(`tollbooth keys: unknown subcommand "${sub}" (list, rotate or import)`);
    return 2;
  }
  if (!config.databaseUrl && config.data === ":memory:") {
    console.error("tollbooth keys: --data :memory: keeps no key file");
    return 2;
  }
  if (sub === "import") return importKeys(config);
  const { keys, where, close } = await openKeySet(config);
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
  } finally {
    await close();
  }
}

/** `tollbooth keys import --data DIR --database-url URL`: the key file's keys into the database. */
async function importKeys(config: Pick<Config, "data" | "databaseUrl">): Promise<number> {
  if (!config.databaseUrl) {
    console.error("tollbooth keys import: give --database-url URL (the database to import the key file of --data into)");
    return 2;
  }
  const pg = await openPgFacets(config.databaseUrl, { max: 2 });
  try {
    const count = await importEvidenceKeys(pg.sql, readEvidenceKeyFile(config.data));
    console.log(`imported ${count} evidence key(s) from ${evidenceKeyPath(config.data)} into database ${redactedUrl(config.databaseUrl)}`);
    return 0;
  } catch (error) {
    if (!(error instanceof EvidenceKeyError)) throw error;
    console.error(`tollbooth keys import: ${error.message}`);
    return 1;
  } finally {
    await pg.close();
  }
}
