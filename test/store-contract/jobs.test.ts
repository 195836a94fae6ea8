/**
 * One contract for the job queue on both engines (issue 28): SQLite (the default) and a real
 * PostgreSQL started for this file (test/support/postgres.ts). Each case opens several handles on one
 * fresh database, as several instances would: claims never hand one job to two instances, a lapsed
 * lease is requeued and its holder can no longer write, the cluster-wide cap holds, a job's
 * settlement row keeps a re-run from settling again, and workers (one killed mid-run) complete 50
 * jobs exactly once. Skipped on PostgreSQL only where it cannot be installed, with the reason printed.
 */
import { describe, expect, it } from "bun:test";
import { jobMigrations, type JobLease, type JobStore, leaseOf, type NewJob } from "../../src/jobs/job-store.ts";
import { createJobStore } from "../../src/jobs/job-store-sqlite.ts";
import { settlementOfText, settlementText } from "../../src/jobs/job-settlement.ts";
import { encodePaymentResponse } from "../../src/x402/headers.ts";
import type { SettleResponse } from "../../src/x402/messages.ts";
import { createPgJobStore, jobPgMigrations } from "../../src/jobs/job-store-pg.ts";
import { createJobWorker, type JobWorker } from "../../src/jobs/worker.ts";
import { createMemoryLogger } from "../../src/log.ts";
import type { AcceptedPayment, Payments } from "../../src/paid-call/payments.ts";
import type { PluginContext } from "../../src/plugin/context.ts";
import { defineSkill } from "../../src/plugin/define.ts";
import { buildRegistry, type Registry } from "../../src/plugin/registry.ts";
import { Type as t } from "@sinclair/typebox";
import { storeEngines } from "../support/store-engines.ts";

/** Both engines; PostgreSQL wakes the other instances' workers when a job is queued (SQLite's poll). */
const engines = storeEngines<JobStore>("jobs", {
  sqliteMigrations: jobMigrations,
  sqlite: (db) => createJobStore(db),
  pgMigrations: jobPgMigrations,
  pg: (sql) => createPgJobStore(sql),
}).map((engine) => ({ ...engine, wakesOtherInstances: engine.name === "PostgreSQL" }));

const base = Date.UTC(2026, 10, 27, 12, 0, 0);
const at = (ms: number) => new Date(base + ms);

function newJob(n: number, fields: Partial<NewJob> = {}): NewJob {
  return {
    id: `job_${n.toString(16).padStart(32, "0")}`,
    skill: "test.work",
    sync: false,
    input: { n },
    caller: "addr:127.0.0.1",
    payer: null,
    network: null,
    priceMicros: 1000,
    payment: null,
    settleMode: "free",
    requestId: `req_${n}`,
    createdAt: at(n),
    ...fields,
  };
}

const claimOptions = (worker: string, now = at(1000), cap = 100, leaseMs = 10_000) => ({ worker, leaseMs, cap, now });

async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000, explain?: () => Promise<string>): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`condition not reached in time${explain ? `: ${await explain()}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What the test skill saw: runs started and finished per job, and the most running at once. */
interface Work {
  started: Map<number, number>;
  finished: Map<number, number>;
  running: number;
  maxRunning: number;
  ms: number;
  /** Runs wait for this before their timer starts, so a test can catch jobs mid-run on any machine. */
  hold?: Promise<void>;
}

function testRegistry(work: Work): Registry {
  const skill = defineSkill({
    skill: "test.work",
    summary: "Waits a while, then answers with its number.",
    input: t.Object({ n: t.Number() }, { additionalProperties: false }),
    price: "0.001",
    async: true,
    timeoutMs: 10_000,
    examples: [{ input: { n: 1 } }],
    async run({ n }, ctx) {
      work.started.set(n, (work.started.get(n) ?? 0) + 1);
      work.running++;
      work.maxRunning = Math.max(work.maxRunning, work.running);
      try {
        if (work.hold) await work.hold;
        if (ctx.signal.aborted) throw new Error("aborted");
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, work.ms);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(new Error("aborted"));
          });
        });
      } finally {
        work.running--;
      }
      work.finished.set(n, (work.finished.get(n) ?? 0) + 1);
      return { n };
    },
  });
  return buildRegistry([{ file: "/skills/test-work.ts", source: "external", exports: { default: skill } }]);
}

/** Payments whose every settlement is counted (the facilitator's side of a settle). */
function countingPayments(settles: string[]): Payments {
  const payment = (snapshot: { job: string }): AcceptedPayment => ({
    payer: "0x1111111111111111111111111111111111111111",
    network: "eip155:8453",
    validBefore: Math.floor(base / 1000) + 10 * 86_400 + 10 ** 9,
    snapshot: () => snapshot,
    settle: async () => {
      settles.push(snapshot.job);
      return { kind: "settled" };
    },
    release: async () => {},
  });
  return {
    enabled: true,
    authorize: async () => {
      throw new Error("not used");
    },
    offer: async () => {
      throw new Error("not used");
    },
    restore: (snapshot) => payment(snapshot as { job: string }),
  };
}

function worker(
  store: JobStore,
  registry: Registry,
  options: { cap?: number; leaseMs?: number; reapEveryMs?: number; pollEveryMs?: number; payments?: Payments; settleGraceMs?: number } = {},
): JobWorker {
  return createJobWorker({
    jobs: store,
    registry,
    payments: options.payments ?? countingPayments([]),
    log: createMemoryLogger(),
    limits: { maxConcurrentJobs: options.cap ?? 4, maxQueuedJobs: 1000, jobResultTtlHours: 1, jobTimeoutSec: 60, slaCapMs: 60_000 },
    contextFor: (_entry, signal) => ({ signal }) as unknown as PluginContext,
    queue: { leaseMs: options.leaseMs ?? 10_000, reapEveryMs: options.reapEveryMs ?? 0, pollEveryMs: options.pollEveryMs ?? 50, maxAttempts: 5, settleGraceMs: options.settleGraceMs ?? 5_000 },
  });
}

const newWork = (ms = 30): Work => ({ started: new Map(), finished: new Map(), running: 0, maxRunning: 0, ms });

for (const engine of engines) {
  describe.skipIf(engine.skip)(`job queue on ${engine.name}`, () => {
    const withInstances = (count: number, test: (stores: JobStore[]) => Promise<void>) => async () => {
      const opened = await engine.openMany(count);
      try {
        await test(opened.instances);
      } finally {
        await opened.close();
      }
    };

    it(
      "hands each job to exactly one of two instances claiming at once, oldest first",
      withInstances(2, async ([one, two]) => {
        for (let n = 1; n <= 20; n++) await one!.insert(newJob(n));
        const claimed: string[] = [];
        await Promise.all(
          [one!, two!, one!, two!].map(async (store, i) => {
            for (;;) {
              const row = await store.claimNext(claimOptions(`w${i}`));
              if (!row) return;
              expect(row).toMatchObject({ status: "running", leaseOwner: `w${i}`, attempts: 1 });
              claimed.push(row.id);
            }
          }),
        );
        expect(claimed).toHaveLength(20);
        expect(new Set(claimed).size).toBe(20);
        await one!.insert(newJob(30, { createdAt: at(30) }));
        await one!.insert(newJob(21, { createdAt: at(21) }));
        expect((await two!.claimNext(claimOptions("w9")))?.id).toBe(newJob(21).id);
      }),
      60_000,
    );

    it(
      "fences a lapsed lease: the reaper requeues the job and its old holder can no longer complete or fail it",
      withInstances(2, async ([one, two]) => {
        await one!.insert(newJob(1));
        const first = (await one!.claimNext(claimOptions("w1", at(1000), 100, 500)))!;
        const stale = leaseOf(first)!;
        expect(stale).toEqual({ worker: "w1", attempt: 1 });
        expect(await two!.expiredLeases(at(1400).getTime())).toHaveLength(0);
        const lapsed = await two!.expiredLeases(at(1600).getTime());
        expect(lapsed.map((r) => r.id)).toEqual([first.id]);
        expect(await two!.requeue(first.id, stale)).toBe(true);
        expect(await two!.requeue(first.id, stale)).toBe(false);
        const second = (await two!.claimNext(claimOptions("w2", at(1700))))!;
        expect(second).toMatchObject({ id: first.id, leaseOwner: "w2", attempts: 2 });
        expect(await one!.complete(first.id, { from: "w1" }, at(1800), at(9000), stale)).toBe(false);
        expect(await one!.fail(first.id, { status: "failed", code: "X", message: "x", refundReason: null }, at(1800), at(9000), stale)).toBe(false);
        expect(await one!.beginSettlement(first.id, stale, at(1800))).toEqual({ kind: "lease_lost" });
        expect(await two!.complete(first.id, { from: "w2" }, at(1900), at(9000), leaseOf(second))).toBe(true);
        expect(await one!.get(first.id)).toMatchObject({ status: "completed", result: { from: "w2" }, leaseOwner: null });
      }),
      60_000,
    );

    it(
      "renews a holder's leases, and frees a job held at acceptance only when its hold lapses",
      withInstances(2, async ([one, two]) => {
        await one!.insert(newJob(1, { hold: { worker: "w1", untilMs: at(500).getTime() } }));
        expect(await two!.claimNext(claimOptions("w2", at(100)))).toBeUndefined();
        expect(await one!.renewLeases("w1", at(5000).getTime())).toBe(1);
        expect(await two!.expiredLeases(at(1000).getTime())).toHaveLength(0);
        expect(await two!.releaseHold(newJob(1).id, "w2")).toBe(false);
        expect(await one!.releaseHold(newJob(1).id, "w1")).toBe(true);
        expect((await two!.claimNext(claimOptions("w2", at(1000))))?.id).toBe(newJob(1).id);
      }),
      60_000,
    );

    it(
      "claims nothing more while the cluster runs max_concurrent_jobs, across instances",
      withInstances(2, async ([one, two]) => {
        for (let n = 1; n <= 10; n++) await one!.insert(newJob(n));
        const claims = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? one! : two!).claimNext(claimOptions(`w${i}`, at(1000), 3))));
        const won = claims.filter((c) => c !== undefined);
        expect(won).toHaveLength(3);
        expect(await one!.countByStatus("running")).toBe(3);
        expect(await two!.complete(won[0]!.id, {}, at(2000), at(9000), leaseOf(won[0]!))).toBe(true);
        expect(await one!.claimNext(claimOptions("w20", at(2000), 3))).toBeDefined();
        expect(await two!.claimNext(claimOptions("w21", at(2000), 3))).toBeUndefined();
      }),
      60_000,
    );

    it(
      "reads a settlement typed whether its row holds the settlement's JSON or, as rows written before issue 39 do, the encoded PAYMENT-RESPONSE header",
      withInstances(2, async ([one, two]) => {
        const settlement: SettleResponse = { success: true, transaction: "0xfeed", network: "eip155:8453", payer: "0xabc", amount: "3000" };
        const rows = { typed: newJob(1, { settleMode: "completion", payer: "0xabc", network: "eip155:8453", payment: { job: "1" } }), old: newJob(2, { settleMode: "completion", payer: "0xabc", network: "eip155:8453", payment: { job: "2" } }) };
        for (const job of Object.values(rows)) await one!.insert(job);
        for (let i = 0; i < 2; i++) {
          const claimed = (await one!.claimNext(claimOptions("w1")))!;
          expect(await one!.beginSettlement(claimed.id, leaseOf(claimed)!, at(1100))).toEqual({ kind: "begun" });
          const stored = claimed.id === rows.old.id ? encodePaymentResponse(settlement) : settlementText(settlement);
          await one!.finishSettlement(claimed.id, { state: "settled", paymentResponse: stored }, at(1200));
        }
        for (const job of Object.values(rows)) expect((await two!.get(job.id))?.settlement).toEqual(settlement);
        expect((await two!.get(rows.old.id))?.paymentResponse).toBe(encodePaymentResponse(settlement));
        expect((await two!.get(rows.typed.id))?.paymentResponse).toBe(JSON.stringify(settlement));
        // Neither a settlement nor a header: read as none, never thrown.
        expect(settlementOfText("receipt-1")).toBeNull();
        expect(settlementOfText("{not json")).toBeNull();
      }),
      60_000,
    );

    it(
      "writes one settlement row per job: a re-run finds it (pending, then settled) instead of settling again",
      withInstances(2, async ([one, two]) => {
        await one!.insert(newJob(1, { settleMode: "completion", payer: "0xabc", network: "eip155:8453", payment: { job: "1" } }));
        const first = (await one!.claimNext(claimOptions("w1", at(1000), 100, 500)))!;
        expect(await one!.beginSettlement(first.id, leaseOf(first)!, at(1100))).toEqual({ kind: "begun" });
        expect(await two!.requeue(first.id, leaseOf(first)!)).toBe(true);
        const rerun = (await two!.claimNext(claimOptions("w2", at(2000))))!;
        const again = await two!.beginSettlement(rerun.id, leaseOf(rerun)!, at(2100));
        expect(again).toMatchObject({ kind: "exists", settlement: { state: "pending", worker: "w1", attempt: 1 } });
        await one!.finishSettlement(first.id, { state: "settled", paymentResponse: "receipt-1" }, at(2200));
        expect(await two!.settlementOf(first.id)).toMatchObject({ state: "settled", paymentResponse: "receipt-1" });
        expect(await two!.get(first.id)).toMatchObject({ settledAt: at(2200).toISOString(), paymentResponse: "receipt-1", payment: null });
        expect(await two!.beginSettlement(rerun.id, leaseOf(rerun)!, at(2300))).toMatchObject({ kind: "exists", settlement: { state: "settled" } });
        // A finished row is final: a late answer does not overwrite it.
        await two!.finishSettlement(first.id, { state: "failed", code: "SETTLEMENT_FAILED", message: "late" }, at(2400));
        expect(await one!.settlementOf(first.id)).toMatchObject({ state: "settled" });
        await one!.discard(first.id);
        expect(await two!.settlementOf(first.id)).toBeUndefined();
      }),
      60_000,
    );

    it(
      "keeps the contract's other reads: active counts, listings, stats rows and purge",
      withInstances(2, async ([one, two]) => {
        await one!.insert(newJob(1));
        await one!.insert(newJob(2));
        const claimed = (await two!.claimNext(claimOptions("w")))!;
        expect(await one!.countActive()).toBe(2);
        expect((await one!.listByStatus("queued")).map((r) => r.id)).toEqual([newJob(2).id]);
        await two!.fail(claimed.id, { status: "expired", code: "JOB_TIMEOUT", message: "late", refundReason: "JOB_TIMEOUT: late" }, at(5000), at(6000), leaseOf(claimed));
        expect((await one!.listRefunds("due")).map((r) => r.id)).toEqual([claimed.id]);
        expect(await one!.markRefundPaid(claimed.id, "tx")).toBe(true);
        expect((await two!.listRefunds("unpaid")).length).toBe(0);
        const stats = await one!.statsRows(at(0));
        expect(stats).toHaveLength(2);
        expect(stats.find((s) => s.status === "expired")).toMatchObject({ paid: false, durationMs: 4000 });
        expect(await two!.purge(at(7000), at(10_000))).toEqual({ results: 1, rows: 1 });
        expect(await one!.get(claimed.id)).toBeUndefined();
      }),
      60_000,
    );

    it(
      "keeps the active count the capabilities show: this instance's changes at once, another instance's within a second",
      withInstances(2, async ([one, two]) => {
        expect(await one!.recentActiveCount()).toBe(0);
        await one!.insert(newJob(1));
        expect(await one!.recentActiveCount()).toBe(1);
        await two!.insert(newJob(2));
        await eventually(async () => (await one!.recentActiveCount()) === 2, 5000);
        const claimed = (await one!.claimNext(claimOptions("w")))!;
        expect(await one!.complete(claimed.id, { done: true }, at(2000), at(3000), leaseOf(claimed))).toBe(true);
        expect(await one!.recentActiveCount()).toBe(1);
        expect(await one!.fail(newJob(2).id, { status: "failed", code: "X", message: "x", refundReason: null }, at(2000), at(3000))).toBe(true);
        expect(await one!.recentActiveCount()).toBe(0);
      }),
      60_000,
    );

    it(
      "wakes an idle worker when a job is submitted (PostgreSQL: NOTIFY from another instance; SQLite: its own handle)",
      withInstances(2, async ([one, two]) => {
        const work = newWork(1);
        const idle = worker(two!, testRegistry(work), { pollEveryMs: 0 });
        await idle.start();
        await idle.idle();
        const submitter = engine.wakesOtherInstances ? one! : two!;
        await submitter.insert(newJob(1, { createdAt: new Date() }));
        await eventually(async () => (await submitter.get(newJob(1).id))?.status === "completed", 10_000);
        idle.stop();
      }),
      60_000,
    );

    it(
      "starts, and still runs jobs, when a claim takes longer than the poll interval (a loaded database)",
      withInstances(1, async ([store]) => {
        const work = newWork(1);
        const slow: JobStore = {
          ...store!,
          shared: store!.shared,
          async claimNext(options) {
            await new Promise((resolve) => setTimeout(resolve, 60));
            return store!.claimNext(options);
          },
        };
        const polling = worker(slow, testRegistry(work), { pollEveryMs: 10 });
        try {
          const started = await Promise.race([polling.start().then(() => "started"), new Promise((resolve) => setTimeout(() => resolve("still starting"), 10_000))]);
          expect(started).toBe("started");
          await store!.insert(newJob(1, { createdAt: new Date() }));
          await eventually(async () => (await store!.get(newJob(1).id))?.status === "completed", 10_000);
        } finally {
          polling.stop();
        }
      }),
      60_000,
    );

    it(
      "holds max_concurrent_jobs for the whole cluster with three workers",
      withInstances(3, async (stores) => {
        const work = newWork(40);
        const registry = testRegistry(work);
        const workers = stores.map((s) => worker(s, registry, { cap: 2 }));
        for (const w of workers) await w.start();
        for (let n = 1; n <= 12; n++) await stores[n % 3]!.insert(newJob(n, { createdAt: new Date() }));
        await eventually(async () => (await stores[0]!.countByStatus("completed")) === 12);
        for (const w of workers) w.stop();
        expect(work.maxRunning).toBe(2);
      }),
      60_000,
    );

    it(
      "completes 50 jobs submitted across three workers exactly once, also when one worker is killed mid-run",
      withInstances(3, async (stores) => {
        const work = newWork(200);
        // Every run waits until the first worker is killed, so it is certain to hold running jobs then.
        let releaseRuns = () => {};
        work.hold = new Promise<void>((resolve) => (releaseRuns = resolve));
        const registry = testRegistry(work);
        const completions = new Map<string, number>();
        // The cluster runs 4 jobs at once and every run is held, so the other workers claim only once the first
        // holds a run: on a loaded machine they could otherwise take all 4 places and leave it nothing to be killed with.
        let firstHoldsARun = false;
        const counted = stores.map((store, i): JobStore => ({
          ...store,
          shared: store.shared,
          async claimNext(options) {
            if (i > 0 && !firstHoldsARun) return undefined;
            const row = await store.claimNext(options);
            if (row) firstHoldsARun = true;
            return row;
          },
          async complete(id, result, when, expiresAt, lease) {
            const done = await store.complete(id, result, when, expiresAt, lease);
            if (done) completions.set(id, (completions.get(id) ?? 0) + 1);
            return done;
          },
        }));
        const workers = counted.map((s) => worker(s, registry, { cap: 4, leaseMs: 1500, reapEveryMs: 100 }));
        const orphaned: string[] = [];
        try {
          for (const w of workers) await w.start();
          const accepted = await Promise.all(
            Array.from({ length: 50 }, (_, n) =>
              workers[n % 3]!.accept({
                entry: registry.skill("test.work")!,
                value: { n },
                payment: countingPayments([]).restore({ job: String(n) }),
                caller: "addr:127.0.0.1",
                priceMicros: 1000,
                requestId: `req_${n}`,
              }),
            ),
          );
          expect(accepted.every((a) => a.kind === "accepted")).toBe(true);
          // Kill the first worker while it holds running jobs: it stops without completing them.
          await eventually(async () => (await stores[0]!.listByStatus("running")).some((r) => r.leaseOwner === workers[0]!.id), 10_000);
          workers[0]!.stop();
          // A statement sent just before the stop may still land; after that the killed worker writes nothing.
          await new Promise((resolve) => setTimeout(resolve, 100));
          orphaned.push(...(await stores[0]!.listByStatus("running")).filter((r) => r.leaseOwner === workers[0]!.id).map((r) => r.id));
          expect(orphaned.length).toBeGreaterThan(0);
          releaseRuns();
          await eventually(async () => (await stores[1]!.countByStatus("completed")) === 50, 30_000, async () => {
            const rows = await Promise.all(["queued", "running", "failed", "expired"].map((status) => stores[1]!.listByStatus(status as "queued")));
            return JSON.stringify(rows.flat().map((r) => ({ id: r.id, status: r.status, code: r.errorCode, owner: r.leaseOwner, attempts: r.attempts })));
          });
        } finally {
          releaseRuns();
          for (const w of workers) w.stop();
        }
        const rows = await stores[2]!.listByStatus("completed");
        expect(rows).toHaveLength(50);
        expect([...completions.values()].every((c) => c === 1)).toBe(true);
        expect(completions.size).toBe(50);
        // The killed worker's jobs ran again elsewhere (at-least-once), and were settled once each.
        for (const id of orphaned) expect((await stores[1]!.get(id))?.attempts).toBeGreaterThanOrEqual(2);
        const settled = await Promise.all(rows.map((r) => stores[1]!.settlementOf(r.id)));
        expect(settled.every((s) => s?.state === "settled")).toBe(true);
      }),
      90_000,
    );

    it(
      "never settles a job twice: a re-run whose settlement was recorded completes without settling; one whose outcome is unknown fails with a refund noted and does not run",
      withInstances(2, async ([one, two]) => {
        const settles: string[] = [];
        const work = newWork(1);
        const paid = (n: number) => newJob(n, { settleMode: "completion", payer: "0xabc", network: "eip155:8453", payment: { job: String(n) }, createdAt: new Date(Date.now() + n) });
        await one!.insert(paid(1));
        await one!.insert(paid(2));
        // A first worker began settling both, recorded one answer, then died.
        const lapsed = new Date(Date.now() - 60_000);
        const died: JobLease[] = [];
        for (const n of [1, 2]) {
          const row = (await one!.claimNext(claimOptions("dead", lapsed, 100, 1000)))!;
          expect(row.id).toBe(paid(n).id);
          expect(await one!.beginSettlement(row.id, leaseOf(row)!, lapsed)).toEqual({ kind: "begun" });
          died.push(leaseOf(row)!);
        }
        await one!.finishSettlement(paid(1).id, { state: "settled", paymentResponse: "receipt-1" }, lapsed);
        const survivor = worker(two!, testRegistry(work), { payments: countingPayments(settles), reapEveryMs: 50 });
        await survivor.start();
        await eventually(async () => (await two!.countActive()) === 0, 10_000);
        survivor.stop();
        expect(settles).toEqual([]);
        expect(work.started.get(2)).toBeUndefined();
        if (engine.wakesOtherInstances) {
          // Shared: the lapsed leases are requeued and re-run by the survivor.
          expect(await one!.get(paid(1).id)).toMatchObject({ status: "completed", result: { n: 1 }, paymentResponse: "receipt-1" });
          expect(work.started.get(1)).toBe(1);
          expect(await one!.get(paid(2).id)).toMatchObject({ status: "failed", errorCode: "SETTLEMENT_PENDING", refundState: "due" });
        } else {
          // One instance: jobs a previous process left running are failed at start, as before.
          expect(await one!.get(paid(1).id)).toMatchObject({ status: "failed", errorCode: "JOB_INTERRUPTED", refundState: "due", paymentResponse: "receipt-1" });
          expect(await one!.get(paid(2).id)).toMatchObject({ status: "failed", errorCode: "JOB_INTERRUPTED", refundState: "due" });
        }
        expect((await one!.get(paid(2).id))?.refundReason).toContain("outcome is unknown");
      }),
      60_000,
    );

    it(
      "lets a stalled earlier run record its settlement: the re-run waits for it, then completes without settling",
      withInstances(2, async ([one, two]) => {
        const settles: string[] = [];
        const work = newWork(1);
        const survivor = worker(two!, testRegistry(work), { payments: countingPayments(settles), reapEveryMs: 50, pollEveryMs: 0, settleGraceMs: 10_000 });
        await survivor.start();
        const job = newJob(1, { settleMode: "acceptance", payer: "0xabc", network: "algorand", payment: { job: "1" }, createdAt: new Date(), hold: { worker: "slow", untilMs: Date.now() + 200 } });
        await one!.insert(job);
        // The accepting instance began settling at acceptance, then stalled past its hold.
        expect(await one!.beginSettlement(job.id, { worker: "slow", attempt: 0 }, new Date())).toEqual({ kind: "begun" });
        await eventually(async () => (await one!.get(job.id))?.status === "running", 10_000);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect((await one!.get(job.id))?.status).toBe("running");
        await one!.finishSettlement(job.id, { state: "settled", paymentResponse: "receipt-slow" }, new Date());
        await eventually(async () => (await one!.get(job.id))?.status === "completed", 10_000);
        survivor.stop();
        expect(settles).toEqual([]);
        expect(work.started.get(1)).toBe(1);
        expect(await two!.get(job.id)).toMatchObject({ status: "completed", paymentResponse: "receipt-slow", attempts: 1 });
      }),
      60_000,
    );
  });
}
