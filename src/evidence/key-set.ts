/**
 * @module evidence/key-set — where the evidence signing keys live, behind one async interface with
 * two engines: the data folder's key file (key-file.ts: the default, beside the SQLite database) and
 * the shared PostgreSQL database (key-set-pg.ts), where every instance signs with the one current
 * key and publishes every key the cluster ever signed with.
 */
import { existsSync } from "node:fs";
import { EvidenceKeyError, type EvidenceKeys, evidenceKeyPath, openEvidenceKeys, type PublicJwk, rotateEvidenceKeys } from "./key-file.ts";

/** The published keys, current first, and which one signs. */
export interface KeyListing {
  readonly current: string;
  readonly keys: readonly PublicJwk[];
}

declare module "../module/define.ts" {
  interface ModuleStores {
    /** The evidence signing keys: the key file in the data folder, or on PostgreSQL one set for every instance (the evidence module's tables.ts). */
    readonly evidenceKeys: EvidenceKeySet;
  }
}

export interface EvidenceKeySet {
  /** The keys a server signs and publishes with; makes the first key when there is none. */
  open(): Promise<EvidenceKeys>;
  /** `tollbooth keys list`: undefined while no server has made a key yet (none is made here). */
  list(): Promise<KeyListing | undefined>;
  /** `tollbooth keys rotate`: a new current key; the old one stays published without its private half. */
  rotate(now?: Date): Promise<{ retired: string; current: string }>;
}

/** The key file in `dataDir` (today's keys, unchanged); `:memory:` keeps one key in memory and nothing to list or rotate. */
export function fileEvidenceKeySet(dataDir: string): EvidenceKeySet {
  const noFile = () => new EvidenceKeyError("--data :memory: keeps no key file");
  return {
    open: () => openEvidenceKeys(dataDir),
    async list() {
      if (dataDir === ":memory:") throw noFile();
      if (!existsSync(evidenceKeyPath(dataDir))) return undefined;
      const keys = await openEvidenceKeys(dataDir);
      return { current: (await keys.current()).kid, keys: (await keys.jwks()).keys };
    },
    async rotate(now) {
      if (dataDir === ":memory:") throw noFile();
      const { retired, current } = await rotateEvidenceKeys(dataDir, now);
      return { retired, current };
    },
  };
}
