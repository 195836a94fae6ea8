/**
 * The per-caller rate limit on both engines (issue 28): in memory for one instance (SQLite serving)
 * and the shared counter table on a real PostgreSQL, where two handles stand for two instances and
 * the limit must hold for both together, also when they count the same caller at the same moment.
 */
import { describe, expect, it } from "bun:test";
import { openPgFacets, type PgFacets } from "../../src/database.ts";
import { createRateLimiter, type RateLimiter } from "../../src/paid-call/rate-limit.ts";
import { filePostgres } from "../support/store-engines.ts";

const postgres = filePostgres("rate", "the PostgreSQL side of the rate-limit contract");

const start = Date.UTC(2026, 10, 27, 12, 0, 0);

interface Limiters {
  /** Limiters on one clock for `perMinute`; on PostgreSQL each is its own instance (pool). */
  make(perMinute: number, count: number): Promise<RateLimiter[]>;
  clock: { at: number };
  close(): Promise<void>;
}

const engines: { name: string; skip: boolean; shared: boolean; open(): Promise<Limiters> }[] = [
  {
    name: "memory (one instance)",
    skip: false,
    shared: false,
    async open() {
      const clock = { at: start };
      return { clock, make: async (perMinute, count) => Array.from({ length: count }, () => createRateLimiter({ perMinute, now: () => clock.at })), close: async () => {} };
    },
  },
  {
    name: "PostgreSQL",
    skip: postgres.skip,
    shared: true,
    async open() {
      const url = await postgres.freshDatabase();
      const clock = { at: start };
      const pools: PgFacets[] = [];
      return {
        clock,
        async make(perMinute, count) {
          const opened = await Promise.all(Array.from({ length: count }, () => openPgFacets(url, { max: 4 })));
          pools.push(...opened);
          return opened.map((p) => p.rateLimiter!({ perMinute, now: () => clock.at }));
        },
        close: async () => void (await Promise.all(pools.map((p) => p.close()))),
      };
    },
  },
];

for (const engine of engines) {
  describe.skipIf(engine.skip)(`rate limits on ${engine.name}`, () => {
    const withLimiters = (test: (l: Limiters) => Promise<void>) => async () => {
      const limiters = await engine.open();
      try {
        await test(limiters);
      } finally {
        await limiters.close();
      }
    };

    it(
      "counts a caller's calls in a 60-second window, refuses past the limit without counting, and opens a new window after",
      withLimiters(async ({ make, clock }) => {
        const [limiter] = await make(3, 1);
        expect(await limiter!.take("payer:a")).toEqual({ allowed: true, limit: 3, remaining: 2, resetSec: 60 });
        clock.at += 10_000;
        expect(await limiter!.take("payer:a")).toMatchObject({ allowed: true, remaining: 1, resetSec: 50 });
        expect(await limiter!.take("payer:a")).toMatchObject({ allowed: true, remaining: 0 });
        expect(await limiter!.take("payer:a")).toEqual({ allowed: false, limit: 3, remaining: 0, resetSec: 50 });
        expect(await limiter!.take("payer:b")).toMatchObject({ allowed: true, remaining: 2 });
        clock.at = start + 60_000;
        expect(await limiter!.take("payer:a")).toEqual({ allowed: true, limit: 3, remaining: 2, resetSec: 60 });
      }),
      30_000,
    );

    // One instance in memory has no cluster to share with: this case is PostgreSQL's alone.
    if (engine.shared) {
      it(
        "holds one limit for the cluster: two instances share a caller's count, also when they count at the same moment",
        withLimiters(async ({ make }) => {
          const [one, two] = await make(5, 2);
          expect(await one!.take("addr:10.0.0.1")).toMatchObject({ allowed: true, remaining: 4 });
          expect(await two!.take("addr:10.0.0.1")).toMatchObject({ allowed: true, remaining: 3 });
          const race = await Promise.all(Array.from({ length: 20 }, (_, n) => (n % 2 === 0 ? one : two)!.take("payer:race")));
          expect(race.filter((d) => d.allowed)).toHaveLength(5);
          expect(race.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.resetSec === 60)).toBe(true);
        }),
        30_000,
      );
    }
  });
}
