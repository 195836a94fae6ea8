/**
 * @module jobs/idempotency-keys — the idempotency-key table family behind one asynchronous interface
 * with two engines: SQLite (idempotency.ts's synchronous store, the default) and PostgreSQL
 * (idempotency-pg.ts, for several instances sharing one database). test/store-contract/ runs one
 * suite against both; the job routes call this interface (the store's `idempotencyKeys` facet).
 */
import type { ClaimResult, IdempotencyStore, StoredResponse } from "./idempotency.ts";

export interface IdempotencyKeys {
  /** `payloadDigest`: the verified payment payload the key is claimed with (null when unpaid). */
  claim(scope: string, key: string, bodyHash: string, now: Date, payloadDigest?: string | null): Promise<ClaimResult>;
  /** The key claimed with this very payment payload and body, in any scope; undefined when none. */
  findIdentical(key: string, bodyHash: string, payloadDigest: string, now: Date): Promise<ClaimResult | undefined>;
  remember(scope: string, key: string, response: StoredResponse, jobId: string | null): Promise<void>;
  release(scope: string, key: string): Promise<void>;
  releaseAllPending(): Promise<number>;
  purge(before: Date): Promise<number>;
}

/** The SQLite store behind the asynchronous interface (each call still runs to completion at once). */
export function sqliteIdempotencyKeys(store: IdempotencyStore): IdempotencyKeys {
  return {
    claim: async (scope, key, bodyHash, now, payloadDigest = null) => store.claim(scope, key, bodyHash, now, payloadDigest),
    findIdentical: async (key, bodyHash, payloadDigest, now) => store.findIdentical(key, bodyHash, payloadDigest, now),
    remember: async (scope, key, response, jobId) => store.remember(scope, key, response, jobId),
    release: async (scope, key) => store.release(scope, key),
    releaseAllPending: async () => store.releaseAllPending(),
    purge: async (before) => store.purge(before),
  };
}
