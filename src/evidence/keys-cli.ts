/**
 * @module evidence/keys-cli — `tollbooth keys list` (the published keys) and `tollbooth keys
 * rotate` (a new signing key; the old one stays published without its private half). A running
 * server signs with the new key within a second.
 */
import { existsSync } from "node:fs";
import type { Config } from "../config.ts";
import { EvidenceKeyError, evidenceKeyPath, openEvidenceKeys, rotateEvidenceKeys } from "./key-file.ts";

export async function runKeysCli(config: Pick<Config, "data">, sub: string | undefined): Promise<number> {
  if (config.data === ":memory:") {
    console.error("tollbooth keys: --data :memory: keeps no key file");
    return 2;
  }
  try {
    if (sub === "rotate") {
      const { retired, current, path } = await rotateEvidenceKeys(config.data);
      console.log(`new signing key ${current} in ${path}`);
      console.log(`retired ${retired}: its public key stays in /.well-known/jwks.json, its private key is gone`);
      return 0;
    }
    if (sub === "list" || sub === undefined) {
      if (!existsSync(evidenceKeyPath(config.data))) {
        console.log(`no evidence key file at ${evidenceKeyPath(config.data)} yet: the server makes one on first start`);
        return 0;
      }
      const keys = await openEvidenceKeys(config.data);
      const current = (await keys.current()).kid;
      for (const key of (await keys.jwks()).keys) console.log(`${key.kid}  ${key.kid === current ? "signing" : "retired (published)"}`);
      console.log(`key file: ${evidenceKeyPath(config.data)}`);
      return 0;
    }
    console.error(`tollbooth keys: unknown subcommand "${sub}" (list or rotate)`);
    return 2;
  } catch (error) {
    if (!(error instanceof EvidenceKeyError)) throw error;
    console.error(`tollbooth keys: ${error.message}`);
    return 1;
  }
}
