/**
 * @module jobs/idempotency — `Idempotency-Key` on POST /v1/jobs: a key is claimed while a
 * submission is being accepted, then holds the response it produced (the job id for async
 * skills, the whole answer for sync ones) for 24 hours. Keys are scoped to the caller.
 *
 * Only accepted work (2xx) is remembered: a 402 challenge, a refusal or a failed run releases
 * the key, so the same key can be used for the paid retry the x402 flow needs.
 */
import { createHash } from "node:crypto";
import { ApiError } from "../errors.ts";
import type { Database, Migration } from "../store/db.ts";

/**
 * An unpaid submission's key belongs to the client address. A paid one's belongs to its payer, and
 * only once that payer is proven: the payment verified (the scope is then the verified payer, set
 * after admission), or the very payload the key was accepted with sent again (matched by its
 * digest, x402/payer.ts).
 */
export const addressScope = (clientIp: string) => `addr:${clientIp}`;

export const idempotencyMigrations: Migration[] = [
  {
    id: "0310_idempotency_keys",
    sql: `CREATE TABLE idempotency_keys (
      scope TEXT NOT NULL,
      key TEXT NOT NULL,
      body_hash TEXT NOT NULL,
      state TEXT NOT NULL,
      status INTEGER,
      headers TEXT,
      body TEXT,
      job_id TEXT,
      created_at TEXT NOT NULL,
      PRIMARY KEY (scope, key)
    );
    CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);`,
  },
  {
    // A paid key remembers the digest of the payment payload it was accepted with (issue 15 §0).
    id: "sec_0311_idempotency_payload_digest",
    sql: `ALTER TABLE idempotency_keys ADD COLUMN payload_digest TEXT;
    CREATE INDEX idempotency_keys_payload ON idempotency_keys (payload_digest, key) WHERE payload_digest IS NOT NULL;`,
  },
];

export interface StoredResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

export type ClaimResult =
  | { readonly kind: "claimed" }
  | { readonly kind: "replay"; readonly response: StoredResponse }
  /** The key was used with another body: 422. */
  | { readonly kind: "mismatch" }
  /** The first request with this key is still being accepted: 409. */
  | { readonly kind: "in_flight" };

export interface IdempotencyStore {
  /** `payloadDigest`: the verified payment payload the key is claimed with (null when unpaid). */
  claim(scope: string, key: string, bodyHash: string, now: Date, payloadDigest?: string | null): ClaimResult;
  /**
   * The key claimed with this very payment payload (same digest) and body, in any scope: its
   * answer (replay), or in_flight; undefined when there is none. The payload was verified when
   * the key was claimed, so sending it again proves as much as it did then.
   */
  findIdentical(key: string, bodyHash: string, payloadDigest: string, now: Date): ClaimResult | undefined;
  /** Stores the answer of accepted work; `jobId` links an async job. */
  remember(scope: string, key: string, response: StoredResponse, jobId: string | null): void;
  release(scope: string, key: string): void;
  /** After a restart nothing is in flight any more. */
  releaseAllPending(): number;
  purge(before: Date): number;
}

/** Headers a replay repeats (never Date, request ids or RateLimit-*). */
const replayedHeaders = ["content-type", "location", "retry-after", "payment-response"];

export async function storedResponseOf(response: Response): Promise<StoredResponse> {
  const headers: Record<string, string> = {};
  for (const name of replayedHeaders) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { status: response.status, headers, body: await response.clone().text() };
}

/** Stable over key order, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. */
export function hashRequestBody(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The header value, or undefined when absent; 400 when it is not 1–255 visible ASCII characters. */
export function readIdempotencyKey(headers: Headers): string | undefined {
  const key = headers.get("idempotency-key");
  if (key === null) return undefined;
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new ApiError("INVALID_REQUEST", { message: "Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID is a good choice)." });
  }
  return key;
}

/** `ttlMs`: how long a key is remembered (a key older than that is free again even before the purge runs). */
export function createIdempotencyStore(db: Database, ttlMs: number): IdempotencyStore {
  const find = db.prepare<{ body_hash: string; state: string; status: number | null; headers: string | null; body: string | null; created_at: string }, [string, string]>(
    "SELECT body_hash, state, status, headers, body, created_at FROM idempotency_keys WHERE scope = ? AND key = ?",
  );
  const forget = db.prepare<unknown, [string, string]>("DELETE FROM idempotency_keys WHERE scope = ? AND key = ?");
  const insert = db.prepare<unknown, [string, string, string, string | null, string]>(
    "INSERT INTO idempotency_keys (scope, key, body_hash, payload_digest, state, created_at) VALUES (?, ?, ?, ?, 'pending', ?) ON CONFLICT DO NOTHING",
  );
  const findByPayload = db.prepare<{ body_hash: string; state: string; status: number | null; headers: string | null; body: string | null; created_at: string }, [string, string]>(
    "SELECT body_hash, state, status, headers, body, created_at FROM idempotency_keys WHERE payload_digest = ? AND key = ?",
  );
  const remember = db.prepare<unknown, [number, string, string, string | null, string, string]>(
    "UPDATE idempotency_keys SET state = 'done', status = ?, headers = ?, body = ?, job_id = ? WHERE scope = ? AND key = ?",
  );
  const release = db.prepare<unknown, [string, string]>("DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND state = 'pending'");
  const releaseAll = db.prepare<unknown, []>("DELETE FROM idempotency_keys WHERE state = 'pending'");
  const purge = db.prepare<unknown, [string]>("DELETE FROM idempotency_keys WHERE created_at < ?");

  const answerOf = (existing: { state: string; status: number | null; headers: string | null; body: string | null }): ClaimResult => {
    if (existing.state !== "done" || existing.status === null) return { kind: "in_flight" };
    return {
      kind: "replay",
      response: { status: existing.status, headers: JSON.parse(existing.headers ?? "{}") as Record<string, string>, body: existing.body ?? "" },
    };
  };

  const claim = db.transaction((scope: string, key: string, bodyHash: string, now: Date, payloadDigest: string | null): ClaimResult => {
    const old = find.get(scope, key);
    if (old && Date.parse(old.created_at) <= now.getTime() - ttlMs) forget.run(scope, key);
    if (insert.run(scope, key, bodyHash, payloadDigest, now.toISOString()).changes === 1) return { kind: "claimed" };
    const existing = find.get(scope, key);
    if (!existing) return { kind: "in_flight" };
    if (existing.body_hash !== bodyHash) return { kind: "mismatch" };
    return answerOf(existing);
  });

  return {
    claim: (scope, key, bodyHash, now, payloadDigest = null) => claim(scope, key, bodyHash, now, payloadDigest),
    findIdentical(key, bodyHash, payloadDigest, now) {
      const existing = findByPayload.get(payloadDigest, key);
      if (!existing || existing.body_hash !== bodyHash || Date.parse(existing.created_at) <= now.getTime() - ttlMs) return undefined;
      return answerOf(existing);
    },
    remember(scope, key, response, jobId) {
      remember.run(response.status, JSON.stringify(response.headers), response.body, jobId, scope, key);
    },
    release(scope, key) {
      release.run(scope, key);
    },
    releaseAllPending: () => releaseAll.run().changes,
    purge: (before) => purge.run(before.toISOString()).changes,
  };
}
