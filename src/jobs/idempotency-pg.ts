/**
 * @module jobs/idempotency-pg — idempotency keys on PostgreSQL, shared by every instance. A key is
 * claimed by one `INSERT … ON CONFLICT (scope, key) DO UPDATE … WHERE <older than its time to live>
 * RETURNING`: of any number of instances claiming one key at once, exactly one gets the row; the others read it (in flight, replay or mismatch), as the
 * SQLite store answers within one process. Each call is one or two single statements: no
 * transaction is held across a network round trip.
 */
import type { Migration } from "../store/db.ts";
import type { Sql } from "../store/postgres.ts";
import type { ClaimResult } from "./idempotency.ts";
import type { IdempotencyKeys } from "./idempotency-keys.ts";

/** Same ids as the SQLite migrations (idempotency.ts): one schema step per id, in either dialect. */
export const idempotencyPgMigrations: readonly Migration[] = [
  {
    id: "0310_idempotency_keys",
    sql: `CREATE TABLE idempotency_keys (
      scope TEXT NOT NULL,
      key TEXT NOT NULL,
      body_hash TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
      status INTEGER,
      headers TEXT,
      body TEXT,
      job_id TEXT,
      created_at TIMESTAMPTZ NOT NULL,
      PRIMARY KEY (scope, key)
    );
    CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);`,
  },
  {
    id: "sec_0311_idempotency_payload_digest",
    sql: `ALTER TABLE idempotency_keys ADD COLUMN payload_digest TEXT;
    CREATE INDEX idempotency_keys_payload ON idempotency_keys (payload_digest, key) WHERE payload_digest IS NOT NULL;`,
  },
];

interface KeyRow {
  body_hash: string;
  state: string;
  status: number | null;
  headers: string | null;
  body: string | null;
}

function answerOf(row: KeyRow): ClaimResult {
  if (row.state !== "done" || row.status === null) return { kind: "in_flight" };
  return { kind: "replay", response: { status: row.status, headers: JSON.parse(row.headers ?? "{}") as Record<string, string>, body: row.body ?? "" } };
}

/** `ttlMs`: how long a key is remembered (an older key is free again even before the purge runs). */
export function createPgIdempotencyKeys(sql: Sql, ttlMs: number): IdempotencyKeys {
  const cutoff = (now: Date) => new Date(now.getTime() - ttlMs);
  return {
    async claim(scope, key, bodyHash, now, payloadDigest = null) {
      // One statement: a new key, or one older than its time to live taken over as new.
      const inserted = await sql`
        INSERT INTO idempotency_keys AS k (scope, key, body_hash, payload_digest, state, created_at)
        VALUES (${scope}, ${key}, ${bodyHash}, ${payloadDigest}, 'pending', ${now})
        ON CONFLICT (scope, key) DO UPDATE SET body_hash = excluded.body_hash, payload_digest = excluded.payload_digest, state = 'pending',
          status = NULL, headers = NULL, body = NULL, job_id = NULL, created_at = excluded.created_at
        WHERE k.created_at <= ${cutoff(now)}
        RETURNING 1`;
      if (inserted.length === 1) return { kind: "claimed" };
      const [existing] = await sql<KeyRow[]>`SELECT body_hash, state, status, headers, body FROM idempotency_keys WHERE scope = ${scope} AND key = ${key}`;
      // Released by its holder between the two statements: it was in flight a moment ago.
      if (!existing) return { kind: "in_flight" };
      if (existing.body_hash !== bodyHash) return { kind: "mismatch" };
      return answerOf(existing);
    },
    async findIdentical(key, bodyHash, payloadDigest, now) {
      const [existing] = await sql<KeyRow[]>`
        SELECT body_hash, state, status, headers, body FROM idempotency_keys
        WHERE payload_digest = ${payloadDigest} AND key = ${key} AND created_at > ${cutoff(now)}
        ORDER BY created_at DESC LIMIT 1`;
      if (!existing || existing.body_hash !== bodyHash) return undefined;
      return answerOf(existing);
    },
    async remember(scope, key, response, jobId) {
      await sql`
        UPDATE idempotency_keys SET state = 'done', status = ${response.status}, headers = ${JSON.stringify(response.headers)}, body = ${response.body}, job_id = ${jobId}
        WHERE scope = ${scope} AND key = ${key}`;
    },
    async release(scope, key) {
      await sql`DELETE FROM idempotency_keys WHERE scope = ${scope} AND key = ${key} AND state = 'pending'`;
    },
    async releaseAllPending() {
      return (await sql`DELETE FROM idempotency_keys WHERE state = 'pending'`).count;
    },
    async purge(before) {
      return (await sql`DELETE FROM idempotency_keys WHERE created_at < ${before}`).count;
    },
  };
}
