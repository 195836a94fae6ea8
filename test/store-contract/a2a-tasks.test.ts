/**
 * One contract for the A2A task rows on SQLite and on a real PostgreSQL (issue 28), through the SDK
 * TaskStore the endpoint uses: a task loads only for its owner, a task id saved at once from two
 * instances under two owners stays with exactly one of them, and the purge removes finished tasks
 * older than the cutoff only.
 */
import { describe, expect, it } from "bun:test";
import type { ServerCallContext } from "@a2a-js/sdk/server";
import { a2aTaskPgMigrations, createPgA2aTaskRows } from "../../src/a2a/task-pg.ts";
import { type A2aTaskRows, a2aTaskMigrations, createA2aTaskStore, createSqliteA2aTaskRows, isFinished } from "../../src/a2a/task-store.ts";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../src/database.ts";
import { testService } from "../support/service.ts";
import { storeEngines, withInstances } from "../support/store-engines.ts";

const engines = storeEngines<A2aTaskRows>("a2a", { sqliteMigrations: a2aTaskMigrations, sqlite: createSqliteA2aTaskRows, pgMigrations: a2aTaskPgMigrations, pg: createPgA2aTaskRows });

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, seconds));
const caller = (userName: string) => ({ user: { userName, isAuthenticated: true } }) as unknown as ServerCallContext;
const task = (id: string, state: number, note = "") => ({ id, contextId: `ctx_${id}`, kind: "task", status: { state, timestamp: at(0).toISOString() }, history: [], artifacts: [], metadata: { note } }) as never;
const WORKING = 2;
const COMPLETED = 3;
const FAILED = 4;

for (const engine of engines) {
  describe.skipIf(engine.skip)(`A2A tasks on ${engine.name}`, () => {
    it(
      "saves a task under its owner and loads it from the other instance for that owner only; lists newest first",
      withInstances(engine, async ({ one, two }) => {
        let clock = at(0);
        const a = createA2aTaskStore(one, () => clock);
        const b = createA2aTaskStore(two, () => clock);
        await a.save(task("t1", WORKING), caller("alice"));
        expect(await b.load("t1", caller("alice"))).toEqual(task("t1", WORKING));
        expect(await b.load("t1", caller("bob"))).toBeUndefined();
        expect(await b.load("t_none", caller("alice"))).toBeUndefined();
        clock = at(5);
        await b.save(task("t2", COMPLETED), caller("alice"));
        clock = at(6);
        await b.save(task("t1", COMPLETED, "done"), caller("alice"));
        await b.save(task("t1", FAILED, "stolen"), caller("bob"));
        expect(await a.load("t1", caller("alice"))).toEqual(task("t1", COMPLETED, "done"));
        const listed = await a.list({ pageSize: 10 } as never, caller("alice"));
        expect(listed.tasks.map((t) => t.id)).toEqual(["t1", "t2"]);
        expect((await a.list({ pageSize: 10 } as never, caller("bob"))).tasks).toEqual([]);
      }),
      30_000,
    );

    it(
      "gives a task id saved at once from both instances under two owners to exactly one owner",
      withInstances(engine, async ({ one, two }) => {
        for (let n = 0; n < 10; n++) {
          const id = `race_${n}`;
          await Promise.all([one.save(id, "alice", JSON.stringify({ by: "alice" }), false, at(1)), two.save(id, "bob", JSON.stringify({ by: "bob" }), false, at(1))]);
          const row = await one.load(id);
          expect(row && JSON.parse(row.task).by).toBe(row?.owner);
          expect(await two.load(id)).toEqual(row);
        }
      }),
      30_000,
    );

    it(
      "purges finished tasks last changed before the cutoff, and keeps working ones and recent ones",
      withInstances(engine, async ({ one, two }) => {
        await one.save("old_done", "alice", "{}", true, at(0));
        await one.save("old_working", "alice", "{}", false, at(0));
        await two.save("new_done", "alice", "{}", true, at(20));
        await two.save("revived", "alice", "{}", true, at(0));
        await two.save("revived", "alice", "{}", false, at(1));
        expect(await two.purgeFinished(at(10))).toBe(1);
        expect(await one.load("old_done")).toBeUndefined();
        for (const id of ["old_working", "new_done", "revived"]) expect(await one.load(id)).toBeDefined();
        expect(await one.purgeFinished(at(10))).toBe(0);
        expect(await one.purgeFinished(at(30))).toBe(1);
      }),
      30_000,
    );
  });
}

describe("which A2A task states are final", () => {
  it("completed, failed, canceled and rejected, as SDK numbers or names; not submitted, working or input-required", () => {
    for (const state of [3, 4, 5, 7, "completed", "TASK_STATE_FAILED", "canceled", "rejected"]) expect(isFinished(state)).toBe(true);
    for (const state of [0, 1, 2, 6, 8, "working", "submitted", "input-required", undefined, null]) expect(isFinished(state)).toBe(false);
  });
});

describe("the job service's sweep", () => {
  it("purges finished A2A tasks a week after their last change, keeping newer and unfinished ones", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-a2a-purge-"));
    const store = openStore(dir);
    const day = 86_400_000;
    await store.a2aTasks.save("old_done", "alice", "{}", true, new Date(Date.now() - 8 * day));
    await store.a2aTasks.save("old_working", "alice", "{}", false, new Date(Date.now() - 8 * day));
    await store.a2aTasks.save("recent_done", "alice", "{}", true, new Date(Date.now() - 6 * day));
    store.close();
    // The job service sweeps when it starts (and every minute).
    const s = await testService(["--data", dir]);
    try {
      expect(await s.store.a2aTasks.load("old_done")).toBeUndefined();
      expect(await s.store.a2aTasks.load("old_working")).toBeDefined();
      expect(await s.store.a2aTasks.load("recent_done")).toBeDefined();
    } finally {
      await s.close();
    }
  }, 60_000);
});
