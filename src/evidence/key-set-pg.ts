/**
 * @module evidence/key-set-pg — the evidence signing keys in the shared PostgreSQL database, so every
 * instance signs with one key and each publishes the keys of all. One row per key; at most one row is
 * current (a partial unique index), and only the current row holds a private half (a check).
 *
 * The first instance to start makes the key: instances starting together each insert theirs with
 * `ON CONFLICT DO NOTHING`, one lands, and all read it back. A rotation is one transaction (retire
 * the current key and drop its private half, insert the new one) under an advisory lock, so two
 * rotations at once leave one current key. A running instance signs from memory (no database round
 * trip per signature) and looks up the current kid, one indexed row, at most once a second: signing
 * starts that look-up in the background, the JWKS waits for it (a second at most, then answers with
 * the keys held), so the published set is not more than a second behind a database that answers.
 */
import type { Migration } from "../store/db.ts";
import type { Sql } from "../store/postgres.ts";
import { EvidenceKeyError, type EvidenceKeys, newEvidenceKey, type PublicJwk, signingKeyFrom, type SigningKey, type StoredKey } from "./key-file.ts";
import type { EvidenceKeySet, KeyListing } from "./key-set.ts";

/** The key file has no SQLite migration; this family's id on PostgreSQL. */
export const evidenceKeyPgMigrations: readonly Migration[] = [
  {
    id: "evidence_0001_keys",
    sql: `CREATE TABLE evidence_keys (
      kid TEXT PRIMARY KEY,
      public_jwk TEXT NOT NULL,
      private_jwk TEXT,
      created_at TEXT NOT NULL,
      retired_at TEXT,
      CHECK ((retired_at IS NULL) = (private_jwk IS NOT NULL))
    );
    CREATE UNIQUE INDEX evidence_keys_one_current ON evidence_keys ((retired_at IS NULL)) WHERE retired_at IS NULL;`,
  },
];

/** How long an instance trusts the current kid it read. */
export const evidenceKeyRecheckMs = 1000;

/** How long the JWKS waits for that look-up before answering with the keys held (a stuck database must not hang it). */
export const evidenceKeyJwksWaitMs = 1000;

/** Key of the advisory lock rotations take ("evidence" in ASCII, as an int8). */
const ROTATION_LOCK = 0x65766964656e6365n;

interface KeyRow {
  readonly kid: string;
  readonly public_jwk: string;
  readonly private_jwk: string | null;
  readonly created_at: string;
}

interface KeyState {
  readonly current: StoredKey;
  readonly keys: PublicJwk[];
}

const waitAtMost = (ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms) as { unref?: () => void };
    timer.unref?.();
  });

export function createPgEvidenceKeySet(sql: Sql, now: () => Date = () => new Date()): EvidenceKeySet {
  const readState = async (): Promise<KeyState | undefined> => {
    const rows = await sql<KeyRow[]>`
      SELECT kid, public_jwk, private_jwk, created_at FROM evidence_keys
      ORDER BY (retired_at IS NULL) DESC, created_at DESC, kid`;
    const current = rows[0];
    if (!current?.private_jwk) return undefined;
    return {
      current: { kid: current.kid, created_at: current.created_at, public: JSON.parse(current.public_jwk) as PublicJwk, private: JSON.parse(current.private_jwk) },
      keys: rows.map((r) => JSON.parse(r.public_jwk) as PublicJwk),
    };
  };

  const makeFirst = async (): Promise<KeyState> => {
    const fresh = await newEvidenceKey(now());
    await sql`
      INSERT INTO evidence_keys (kid, public_jwk, private_jwk, created_at)
      VALUES (${fresh.kid}, ${JSON.stringify(fresh.public)}, ${JSON.stringify(fresh.private)}, ${fresh.created_at})
      ON CONFLICT DO NOTHING`;
    const state = await readState();
    if (!state) throw new EvidenceKeyError("the database has no current evidence key right after one was inserted");
    return state;
  };

  return {
    async open(): Promise<EvidenceKeys> {
      const first = (await readState()) ?? (await makeFirst());
      let signing: SigningKey = await signingKeyFrom(first.current);
      let published = { keys: first.keys };
      let checkedAt = performance.now();
      let checking: Promise<void> | undefined;
      const check = () =>
        (checking ??= (async () => {
          checkedAt = performance.now();
          const [row] = await sql<{ kid: string }[]>`SELECT kid FROM evidence_keys WHERE retired_at IS NULL`;
          if (!row || row.kid === signing.kid) return;
          const next = await readState();
          if (!next) return;
          signing = await signingKeyFrom(next.current);
          published = { keys: next.keys };
        })()
          // A failed look-up keeps the keys held; the next call after a second tries again.
          .catch(() => undefined)
          .finally(() => {
            checking = undefined;
          }));
      const stale = () => performance.now() - checkedAt >= evidenceKeyRecheckMs;
      return {
        async current() {
          if (stale()) void check();
          return signing;
        },
        async jwks() {
          if (stale()) await Promise.race([check(), waitAtMost(evidenceKeyJwksWaitMs)]);
          return published;
        },
      };
    },

    async list(): Promise<KeyListing | undefined> {
      const state = await readState();
      return state && { current: state.current.kid, keys: state.keys };
    },

    async rotate(at = now()) {
      // Made before the transaction: key generation never runs under the lock.
      const fresh = await newEvidenceKey(at);
      return sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${String(ROTATION_LOCK)}::int8)`;
        const [old] = await tx<{ kid: string }[]>`
          UPDATE evidence_keys SET retired_at = ${at.toISOString()}, private_jwk = NULL WHERE retired_at IS NULL RETURNING kid`;
        if (!old) throw new EvidenceKeyError("no evidence key in the database yet: the server makes one on first start");
        await tx`
          INSERT INTO evidence_keys (kid, public_jwk, private_jwk, created_at)
          VALUES (${fresh.kid}, ${JSON.stringify(fresh.public)}, ${JSON.stringify(fresh.private)}, ${fresh.created_at})`;
        return { retired: old.kid, current: fresh.kid };
      }) as Promise<{ retired: string; current: string }>;
    },
  };
}

/**
 * `tollbooth keys import`: the data folder's keys (key-file.ts) into a database that has none yet, so
 * a service moved from SQLite to PostgreSQL keeps signing with its key and publishing the retired
 * ones. Refused once the database has a key (a server started on it, or an earlier import).
 */
export async function importEvidenceKeys(sql: Sql, file: { readonly current: string; readonly keys: readonly StoredKey[] }): Promise<number> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${String(ROTATION_LOCK)}::int8)`;
    const [row] = await tx<{ count: number }[]>`SELECT count(*) AS count FROM evidence_keys`;
    const count = row?.count ?? 0;
    if (count > 0) throw new EvidenceKeyError(`the database already has ${count} evidence key(s): import only into a database no server has made a key in`);
    for (const key of file.keys) {
      const current = key.kid === file.current;
      await tx`
        INSERT INTO evidence_keys (kid, public_jwk, private_jwk, created_at, retired_at)
        VALUES (${key.kid}, ${JSON.stringify(key.public)}, ${current ? JSON.stringify(key.private) : null}, ${key.created_at}, ${current ? null : (key.retired_at ?? key.created_at)})`;
    }
    return file.keys.length;
  }) as Promise<number>;
}
