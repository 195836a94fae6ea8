/**
 * @module x402/proof-nonces — the nonces of payer proofs (payer-proof.ts) already taken, in the
 * store, so a proof is good for one request across every instance sharing the database: a nonce
 * is taken once until its proof's window has passed, then forgotten. SQLite here, PostgreSQL below
 * (the same statement: an insert that takes the nonce, or finds it taken and not yet expired).
 */
import type { Database, Migration } from "../store/db.ts";
import type { Sql } from "../store/postgres.ts";

export interface ProofNonces {
  /** Takes `key` until `untilMs`; false when it was taken already and has not expired. Expired rows are dropped on the way. */
  take(key: string, untilMs: number, nowMs: number): Promise<boolean>;
}

const migrationId = "payer_proof_nonces_0001_table";
const table = (int: string) => `CREATE TABLE payer_proof_nonces (nonce_key TEXT PRIMARY KEY, until_ms ${int} NOT NULL);
    CREATE INDEX payer_proof_nonces_until ON payer_proof_nonces (until_ms);`;

export const proofNonceMigrations: readonly Migration[] = [{ id: migrationId, sql: table("INTEGER") }];
export const proofNoncePgMigrations: readonly Migration[] = [{ id: migrationId, sql: table("BIGINT") }];

/** An expired row is taken over in the same statement; a live one is left alone (no row changes). */
const takeSql = `INSERT INTO payer_proof_nonces (nonce_key, until_ms) VALUES ($1, $2)
  ON CONFLICT (nonce_key) DO UPDATE SET until_ms = excluded.until_ms WHERE payer_proof_nonces.until_ms <= $3`;
/** Rows whose proofs expired a while ago, dropped now and then (one in 64 takes). */
const purgeSql = "DELETE FROM payer_proof_nonces WHERE until_ms <= $1";
const purgeEvery = 64;

export function createProofNonces(db: Database): ProofNonces {
  const take = db.prepare<unknown, [string, number, number]>(takeSql.replace(/\$\d/g, "?"));
  const purge = db.prepare<unknown, [number]>(purgeSql.replace("$1", "?"));
  let takes = 0;
  return {
    async take(key, untilMs, nowMs) {
      if (++takes % purgeEvery === 0) purge.run(nowMs);
      return take.run(key, untilMs, nowMs).changes === 1;
    },
  };
}

export function createPgProofNonces(sql: Sql): ProofNonces {
  let takes = 0;
  return {
    async take(key, untilMs, nowMs) {
      if (++takes % purgeEvery === 0) await sql.unsafe(purgeSql, [nowMs]);
      return (await sql.unsafe(takeSql, [key, untilMs, nowMs])).count === 1;
    },
  };
}
