/**
 * The evidence key set on both engines, two handles standing for two instances: the key file in one
 * data folder (today's keys) and a real PostgreSQL reached through two pools. Both instances sign
 * with one key, a rotation through one is picked up by the other, their JWKS list the same keys, and
 * what one signed verifies against the other's JWKS. On PostgreSQL, instances starting together
 * agree on one key and rotations at once leave one current key.
 */
import { describe, expect, it } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPgFacets } from "../../src/database.ts";
import { EvidenceKeyError, type EvidenceKeys } from "../../src/evidence/key-file.ts";
import { openEvidenceKeys, rotateEvidenceKeys } from "../../src/evidence/key-file.ts";
import { type EvidenceKeySet, fileEvidenceKeySet } from "../../src/evidence/key-set.ts";
import { verifyEvidence } from "../../src/evidence/verify.ts";
import { sealedWebRead } from "../support/sealed-read.ts";
import { filePostgres } from "../support/store-engines.ts";

const postgres = filePostgres("evidence_keys", "the PostgreSQL side of the evidence key contract");

interface Pair {
  readonly one: EvidenceKeySet;
  readonly two: EvidenceKeySet;
  /** Runs raw SQL on the shared database (PostgreSQL only). */
  readonly sql?: Awaited<ReturnType<typeof openPgFacets>>["sql"];
  close(): Promise<void>;
}

const engines: { name: string; skip: boolean; open(): Promise<Pair> }[] = [
  {
    name: "key file",
    skip: false,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), "tb-keyset-"));
      return { one: fileEvidenceKeySet(dir), two: fileEvidenceKeySet(dir), close: async () => {} };
    },
  },
  {
    name: "PostgreSQL",
    skip: postgres.skip,
    async open() {
      const url = await postgres.freshDatabase();
      const [a, b] = await Promise.all([openPgFacets(url, { max: 2 }), openPgFacets(url, { max: 2 })]);
      return { one: a.evidenceKeys!, two: b.evidenceKeys!, sql: a.sql, close: async () => void (await Promise.all([a.close(), b.close()])) };
    },
  },
];

const withPair = (engine: (typeof engines)[number], test: (pair: Pair) => Promise<void>) => async () => {
  const pair = await engine.open();
  try {
    await test(pair);
  } finally {
    await pair.close();
  }
};

const signed = (keys: EvidenceKeys) => sealedWebRead(keys);
const kids = async (keys: EvidenceKeys) => (await keys.jwks()).keys.map((k) => k.kid);

/** Asks until `probe` gives `want` (a running instance picks a rotation up within seconds, not at once). */
async function eventually<T>(probe: () => Promise<T>, want: T, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let got = await probe();
  while (!Bun.deepEquals(got, want) && Date.now() < until) {
    await Bun.sleep(100);
    got = await probe();
  }
  return got;
}

for (const engine of engines) {
  describe.skipIf(engine.skip)(`evidence key set on ${engine.name}`, () => {
    it(
      "lists nothing and refuses to rotate before the first start, then both instances sign with the key the first made",
      withPair(engine, async ({ one, two }) => {
        expect(await one.list()).toBeUndefined();
        await expect(one.rotate()).rejects.toThrow(EvidenceKeyError);
        const first = await one.open();
        const second = await two.open();
        const kid = (await first.current()).kid;
        expect((await second.current()).kid).toBe(kid);
        expect(await two.list()).toEqual({ current: kid, keys: (await first.jwks()).keys });
        expect(await kids(second)).toEqual([kid]);
      }),
      30_000,
    );

    it(
      "rotates through one instance; the other signs with the new key within seconds, both JWKS list the same keys, and each verifies what the other signed",
      withPair(engine, async ({ one, two }) => {
        const a = await one.open();
        const b = await two.open();
        const oldKid = (await a.current()).kid;
        const before = await signed(b);
        // The key file is re-read when its mtime moves; the kernel's file clock ticks every few ms.
        await Bun.sleep(50);
        const { retired, current } = await one.rotate();
        expect(retired).toBe(oldKid);
        expect(current).not.toBe(oldKid);
        expect(await eventually(async () => (await b.current()).kid, current)).toBe(current);
        expect(await eventually(() => kids(a), [current, oldKid])).toEqual([current, oldKid]);
        expect(await kids(b)).toEqual([current, oldKid]);
        expect(await two.list()).toEqual({ current, keys: (await a.jwks()).keys });

        const after = await signed(b);
        expect(after.attestation.kid).toBe(current);
        expect(await verifyEvidence(after, await a.jwks())).toMatchObject({ valid: true });
        expect(await verifyEvidence(before, await a.jwks())).toMatchObject({ valid: true });
        expect(await verifyEvidence(await signed(a), await b.jwks())).toMatchObject({ valid: true });
        // The retired key is published but can sign no more: an instance that starts now signs with the new one.
        expect((await (await two.open()).current()).kid).toBe(current);
      }),
      30_000,
    );
  });
}

describe.skipIf(postgres.skip)("evidence key set on PostgreSQL, instances at once", () => {
  const pg = engines[1]!;

  it(
    "agrees on one key when instances start together (two pools, five starts each)",
    withPair(pg, async ({ one, two, sql }) => {
      const opened = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? two : one).open()));
      const signing = new Set(await Promise.all(opened.map(async (keys) => (await keys.current()).kid)));
      expect(signing.size).toBe(1);
      expect(await sql!`SELECT kid FROM evidence_keys`).toHaveLength(1);
      const [signedByOne, signedByTwo] = [await signed(opened[0]!), await signed(opened[1]!)];
      expect(await verifyEvidence(signedByOne, await opened[1]!.jwks())).toMatchObject({ valid: true });
      expect(await verifyEvidence(signedByTwo, await opened[0]!.jwks())).toMatchObject({ valid: true });
    }),
    30_000,
  );

  it(
    "keeps one current key, with the only private half, when two rotations run at once",
    withPair(pg, async ({ one, two, sql }) => {
      const first = (await (await one.open()).current()).kid;
      const [r1, r2] = await Promise.all([one.rotate(), two.rotate()]);
      // One retired the first key, the other the key the first rotation made.
      const retired = [r1.retired, r2.retired];
      const made = [r1.current, r2.current];
      expect(retired).toContain(first);
      const between = retired.find((kid) => kid !== first)!;
      expect(made).toContain(between);
      const last = made.find((kid) => kid !== between)!;
      const rows = await sql!<{ kid: string; private_jwk: string | null; retired_at: string | null }[]>`SELECT kid, private_jwk, retired_at FROM evidence_keys`;
      expect(rows).toHaveLength(3);
      const current = rows.filter((r) => r.retired_at === null);
      expect(current.map((r) => r.kid)).toEqual([last]);
      expect(rows.filter((r) => r.private_jwk !== null).map((r) => r.kid)).toEqual([last]);
      expect((await two.list())?.current).toBe(last);
    }),
    30_000,
  );

  it(
    "lets tollbooth keys list and rotate work on the shared database when --database-url is given, not on the data folder",
    async () => {
      const url = await postgres.freshDatabase();
      const root = join(import.meta.dir, "../..");
      const data = join(mkdtempSync(join(tmpdir(), "tb-keys-cli-")), "unused");
      const run = (...args: string[]) => {
        const done = Bun.spawnSync([process.execPath, "src/main.ts", "keys", ...args, "--data", data, "--database-url", url], { cwd: root });
        return { code: done.exitCode, out: done.stdout.toString(), err: done.stderr.toString() };
      };
      expect(run("list")).toMatchObject({ code: 0, out: expect.stringContaining("no evidence key in database postgres://") });
      expect(run("rotate")).toMatchObject({ code: 1, err: expect.stringContaining("the server makes one on first start") });
      const facets = await openPgFacets(url, { max: 2 });
      try {
        const running = await facets.evidenceKeys!.open();
        const oldKid = (await running.current()).kid;
        const rotated = run("rotate");
        expect(rotated.code).toBe(0);
        const newKid = /new signing key (\S+) in database/.exec(rotated.out)?.[1];
        expect(newKid).toBeDefined();
        expect(await eventually(async () => (await running.current()).kid, newKid)).toBe(newKid!);
        expect(run("list")).toMatchObject({ code: 0, out: `${newKid}  signing\n${oldKid}  retired (published)\nkeys in database ${url}\n` });
        expect(existsSync(data)).toBe(false);
      } finally {
        await facets.close();
      }
    },
    60_000,
  );

  it(
    "imports the key file of --data into an empty database with tollbooth keys import (signing key, retired keys), and refuses a second import",
    async () => {
      const url = await postgres.freshDatabase();
      const data = mkdtempSync(join(tmpdir(), "tb-keys-import-"));
      const fileKeys = await openEvidenceKeys(data);
      const before = await signed(fileKeys);
      await rotateEvidenceKeys(data);
      const fromFile = await fileEvidenceKeySet(data).list();
      const root = join(import.meta.dir, "../..");
      const run = () => {
        const done = Bun.spawnSync([process.execPath, "src/main.ts", "keys", "import", "--data", data, "--database-url", url], { cwd: root });
        return { code: done.exitCode, out: done.stdout.toString(), err: done.stderr.toString() };
      };
      expect(run()).toMatchObject({ code: 0, out: expect.stringContaining("imported 2 evidence key(s)") });
      expect(run()).toMatchObject({ code: 1, err: expect.stringContaining("the database already has 2 evidence key(s)") });
      const facets = await openPgFacets(url, { max: 2 });
      try {
        expect(await facets.evidenceKeys!.list()).toEqual(fromFile);
        const shared = await facets.evidenceKeys!.open();
        expect((await shared.current()).kid).toBe(fromFile!.current);
        expect(await verifyEvidence(before, await shared.jwks())).toMatchObject({ valid: true });
        expect(await verifyEvidence(await signed(shared), await (await openEvidenceKeys(data)).jwks())).toMatchObject({ valid: true });
        const rows = await facets.sql<{ kid: string; private_jwk: string | null }[]>`SELECT kid, private_jwk FROM evidence_keys WHERE private_jwk IS NOT NULL`;
        expect(rows.map((r) => r.kid)).toEqual([fromFile!.current]);
      } finally {
        await facets.close();
      }
    },
    60_000,
  );

  it(
    "answers the JWKS with the keys it holds while the look-up is stuck behind a table lock, and picks the rotation up after",
    withPair(pg, async ({ one, two, sql }) => {
      const keys = await one.open();
      const oldKid = (await keys.current()).kid;
      const { current } = await two.rotate();
      let release!: () => void;
      let locked!: () => void;
      const taken = new Promise<void>((resolve) => (locked = resolve));
      const held = new Promise<void>((resolve) => (release = resolve));
      const lock = sql!.begin(async (tx) => {
        await tx`LOCK TABLE evidence_keys IN ACCESS EXCLUSIVE MODE`;
        locked();
        await held;
      });
      await taken;
      await Bun.sleep(1100);
      // The look-up waits for the lock, which is released only after this answer: an unbounded wait never answers.
      expect(await kids(keys)).toEqual([oldKid]);
      release();
      await lock;
      expect(await eventually(() => kids(keys), [current, oldKid])).toEqual([current, oldKid]);
    }),
    30_000,
  );

  it(
    "refuses a second current key or a retired key that keeps its private half (the table's own guards)",
    withPair(pg, async ({ one, sql }) => {
      await one.open();
      const jwk = JSON.stringify({ kty: "OKP" });
      await expect(sql!`INSERT INTO evidence_keys (kid, public_jwk, private_jwk, created_at) VALUES ('x', ${jwk}, ${jwk}, '2026-11-27T00:00:00.000Z')`).rejects.toThrow(/evidence_keys_one_current/);
      await expect(sql!`UPDATE evidence_keys SET retired_at = '2026-11-27T00:00:00.000Z'`).rejects.toThrow(/check/i);
    }),
    30_000,
  );
});
