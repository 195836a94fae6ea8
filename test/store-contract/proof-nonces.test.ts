/**
 * The nonces of payers' proofs (x402/proof-nonces.ts) on both engines: a nonce taken by one instance
 * is refused to the other until its proof's window has passed, then may be taken again; another
 * nonce is free. This is what refuses a replayed proof on any instance of a cluster.
 * @see issue 42
 */
import { describe, expect, it } from "bun:test";
import { createPgProofNonces, createProofNonces, proofNonceMigrations, proofNoncePgMigrations, type ProofNonces } from "../../src/x402/proof-nonces.ts";
import { storeEngines, withInstances } from "../support/store-engines.ts";

const engines = storeEngines<ProofNonces>("payer proof nonces", {
  sqliteMigrations: proofNonceMigrations,
  sqlite: (db) => createProofNonces(db),
  pgMigrations: proofNoncePgMigrations,
  pg: (sql) => createPgProofNonces(sql),
});

for (const engine of engines) {
  describe.skipIf(engine.skip)(`payer proof nonces on ${engine.name}`, () => {
    it(
      "takes a nonce once across instances until it expires",
      withInstances(engine, async ({ one, two }) => {
        const now = 1_000_000;
        expect(await one.take("0xabc n1", now + 300_000, now)).toBe(true);
        expect(await two.take("0xabc n1", now + 300_000, now + 1_000)).toBe(false);
        expect(await one.take("0xabc n1", now + 600_000, now + 299_999)).toBe(false);
        expect(await two.take("0xabc n2", now + 300_000, now)).toBe(true);
        expect(await two.take("0xdef n1", now + 300_000, now)).toBe(true);
        // Past its window the nonce is forgotten: a proof carrying it is refused by its dates anyway.
        expect(await two.take("0xabc n1", now + 900_000, now + 300_000)).toBe(true);
        expect(await one.take("0xabc n1", now + 900_000, now + 300_001)).toBe(false);
        // Many takes later the expired rows are purged on the way; live ones stay taken.
        for (let i = 0; i < 70; i++) expect(await one.take(`0xabc bulk${i}`, now + 2_000_000, now + 1_000_000)).toBe(true);
        expect(await two.take("0xabc n1", now + 2_000_000, now + 1_000_000)).toBe(true);
        expect(await one.take("0xabc bulk3", now + 2_000_000, now + 1_000_001)).toBe(false);
      }),
      30_000,
    );
  });
}
