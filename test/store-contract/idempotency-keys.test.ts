/**
 * One contract for the idempotency-key store on both engines (issue 28): SQLite (the default) and a
 * real PostgreSQL started for this file (test/support/postgres.ts). Each test opens two handles on one
 * fresh database, as two instances would, and claims from both. Skipped on PostgreSQL only where
 * it cannot be installed, with the reason printed.
 */
import { describe, expect, it } from "bun:test";
import { createIdempotencyStore, idempotencyMigrations } from "../../src/jobs/idempotency.ts";
import { type IdempotencyKeys, sqliteIdempotencyKeys } from "../../src/jobs/idempotency-keys.ts";
import { createPgIdempotencyKeys, idempotencyPgMigrations } from "../../src/jobs/idempotency-pg.ts";
import { openPostgres } from "../../src/store/postgres.ts";
import { type Instances, storeEngines, withInstances as openedOn } from "../support/store-engines.ts";

const TTL = 60_000;

const engines = storeEngines<IdempotencyKeys>("idempotency", {
  sqliteMigrations: idempotencyMigrations,
  sqlite: (db) => sqliteIdempotencyKeys(createIdempotencyStore(db, TTL)),
  pgMigrations: idempotencyPgMigrations,
  pg: (sql) => createPgIdempotencyKeys(sql, TTL),
});

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, seconds));
const answer = { status: 202, headers: { "content-type": "application/json", location: "/v1/jobs/j1" }, body: '{"job_id":"j1"}' };

for (const engine of engines) {
  describe.skipIf(engine.skip)(`idempotency keys on ${engine.name}`, () => {
    const withInstances = (test: (i: Instances<IdempotencyKeys>) => Promise<void>) => openedOn(engine, test);

    it(
      "claims a key once: the other instance sees it in flight, or a mismatch for another body",
      withInstances(async ({ one, two }) => {
        expect(await one.claim("caller-a", "k1", "body-1", at(0))).toEqual({ kind: "claimed" });
        expect(await two.claim("caller-a", "k1", "body-1", at(1))).toEqual({ kind: "in_flight" });
        expect(await two.claim("caller-a", "k1", "body-2", at(1))).toEqual({ kind: "mismatch" });
        expect(await two.claim("caller-b", "k1", "body-1", at(1))).toEqual({ kind: "claimed" });
      }),
      30_000,
    );

    it(
      "replays the remembered answer from either instance; a released key is free again",
      withInstances(async ({ one, two }) => {
        await one.claim("s", "k", "b", at(0));
        await one.remember("s", "k", answer, "j1");
        expect(await two.claim("s", "k", "b", at(5))).toEqual({ kind: "replay", response: answer });
        await two.claim("s", "free", "b", at(0));
        await two.release("s", "free");
        expect(await one.claim("s", "free", "b", at(1))).toEqual({ kind: "claimed" });
        await one.release("s", "k");
        expect(await one.claim("s", "k", "b", at(6))).toEqual({ kind: "replay", response: answer });
      }),
      30_000,
    );

    it(
      "frees a key older than its time to live",
      withInstances(async ({ one, two }) => {
        await one.claim("s", "k", "b", at(0));
        await one.remember("s", "k", answer, null);
        expect(await two.claim("s", "k", "other", new Date(at(0).getTime() + TTL + 1000))).toEqual({ kind: "claimed" });
        // Taken over as new: the old answer is gone, the key is in flight for its new body.
        expect(await one.claim("s", "k", "other", new Date(at(0).getTime() + TTL + 2000))).toEqual({ kind: "in_flight" });
        expect(await one.claim("s", "k", "b", new Date(at(0).getTime() + TTL + 2000))).toEqual({ kind: "mismatch" });
      }),
      30_000,
    );

    it(
      "finds the key claimed with the same payment payload and body in any scope",
      withInstances(async ({ one, two }) => {
        await one.claim("payer-scope", "k", "b", at(0), "digest-1");
        expect(await two.findIdentical("k", "b", "digest-1", at(1))).toEqual({ kind: "in_flight" });
        await one.remember("payer-scope", "k", answer, "j1");
        expect(await two.findIdentical("k", "b", "digest-1", at(2))).toEqual({ kind: "replay", response: answer });
        expect(await two.findIdentical("k", "other body", "digest-1", at(2))).toBeUndefined();
        expect(await two.findIdentical("k", "b", "digest-2", at(2))).toBeUndefined();
        expect(await two.findIdentical("k", "b", "digest-1", new Date(at(0).getTime() + TTL + 1000))).toBeUndefined();
      }),
      30_000,
    );

    it(
      "releases every pending key and purges old ones, counting them",
      withInstances(async ({ one, two }) => {
        await one.claim("s", "p1", "b", at(0));
        await two.claim("s", "p2", "b", at(0));
        await one.claim("s", "done", "b", at(0));
        await one.remember("s", "done", answer, null);
        expect(await two.releaseAllPending()).toBe(2);
        expect(await one.claim("s", "p1", "b", at(1))).toEqual({ kind: "claimed" });
        expect(await one.purge(at(1))).toBe(1);
        expect(await two.purge(at(2))).toBe(1);
      }),
      30_000,
    );

    it(
      "gives one key to exactly one of 24 concurrent claims split across the instances",
      withInstances(async ({ one, two }) => {
        const claims = await Promise.all(Array.from({ length: 24 }, (_, n) => (n % 2 === 0 ? one : two).claim("s", "race", "b", at(0))));
        expect(claims.filter((c) => c.kind === "claimed")).toHaveLength(1);
        expect(claims.filter((c) => c.kind === "in_flight")).toHaveLength(23);
      }),
      30_000,
    );
  });
}

const postgres = engines.find((engine) => engine.name === "PostgreSQL")!;

describe.skipIf(postgres.skip)("the PostgreSQL seam", () => {
  it("hands int8 back as numbers, and refuses one a number cannot hold", async () => {
    const sql = await openPostgres({ url: await postgres.freshDatabase!(), migrations: [], max: 1 });
    try {
      const [row] = await sql<{ n: number; big: number }[]>`SELECT count(*) AS n, 9007199254740991::int8 AS big`;
      expect(row).toEqual({ n: 1, big: Number.MAX_SAFE_INTEGER });
      await expect(sql`SELECT 9007199254740993::int8 AS beyond`.then((rows) => rows)).rejects.toThrow(/does not fit/);
    } finally {
      await sql.end();
    }
  }, 30_000);

  it("applies each migration once, also when three instances start at the same time", async () => {
    const url = await postgres.freshDatabase!();
    const pools = await Promise.all([1, 2, 3].map(() => openPostgres({ url, migrations: idempotencyPgMigrations, max: 1 })));
    try {
      const ids = await pools[0]!<{ id: string }[]>`SELECT id FROM schema_migrations ORDER BY id`;
      expect(ids.map((r) => r.id)).toEqual(idempotencyPgMigrations.map((m) => m.id).sort());
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  }, 30_000);
});
