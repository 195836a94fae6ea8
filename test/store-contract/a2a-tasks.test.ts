/**
 * One contract for the A2A task rows on SQLite and on a real PostgreSQL (issue 28), through the
 * store the endpoint uses: a task loads by its id alone from either instance and a save replaces
 * it; tasks saved under an owner before issue 40's migration load by their id after it; the purge
 * removes finished tasks older than the cutoff only.
 */
import { describe, expect, it } from "bun:test";
import { a2aTaskPgMigrations, createPgA2aTaskRows } from "../../src/a2a/task-pg.ts";
import { type A2aTaskRows, a2aTaskMigrations, createA2aTaskStore, createSqliteA2aTaskRows, isFinished } from "../../src/a2a/task-store.ts";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../src/database.ts";
import { openDatabase } from "../../src/store/db.ts";
import { testService } from "../support/service.ts";
import { storeEngines, withInstances } from "../support/store-engines.ts";

const engines = storeEngines<A2aTaskRows>("a2a", { sqliteMigrations: a2aTaskMigrations, sqlite: createSqliteA2aTaskRows, pgMigrations: a2aTaskPgMigrations, pg: createPgA2aTaskRows });

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, seconds));
const task = (id: string, state: number, note = "") => ({ id, contextId: `ctx_${id}`, kind: "task", status: { state, timestamp: at(0).toISOString() }, history: [], artifacts: [], metadata: { note } }) as never;
const WORKING = 2;
const COMPLETED = 3;
const FAILED = 4;

for (const engine of engines) {
  describe.skipIf(engine.skip)(`A2A tasks on ${engine.name}`, () => {
    it(
      "saves a task under its id and loads it from the other instance by that id alone; a later save replaces it",
      withInstances(engine, async ({ one, two }) => {
        let clock = at(0);
        const a = createA2aTaskStore(one, () => clock);
        const b = createA2aTaskStore(two, () => clock);
        await a.save(task("t1", WORKING), undefined as never);
        expect(await b.load("t1", undefined as never)).toEqual(task("t1", WORKING));
        expect(await b.load("t_none", undefined as never)).toBeUndefined();
        clock = at(6);
        await b.save(task("t1", COMPLETED, "done"), undefined as never);
        expect(await a.load("t1", undefined as never)).toEqual(task("t1", COMPLETED, "done"));
      }),
      30_000,
    );

    it(
      "purges finished tasks last changed before the cutoff, and keeps working ones and recent ones",
      withInstances(engine, async ({ one, two }) => {
        await one.save("old_done", "{}", true, at(0));
        await one.save("old_working", "{}", false, at(0));
        await two.save("new_done", "{}", true, at(20));
        await two.save("revived", "{}", true, at(0));
        await two.save("revived", "{}", false, at(1));
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

describe("issue 40's migration on SQLite", () => {
  it("drops the owner column and keeps the tasks saved under an owner, loadable by their id", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "tb-a2a-owner-")), "store.db");
    const before = openDatabase({ path, migrations: a2aTaskMigrations.filter((m) => m.id < "a2a_0003") });
    before.prepare("INSERT INTO a2a_tasks (id, owner, task, finished, updated_at) VALUES (?, ?, ?, 0, ?)").run("t_old", "addr:10.0.0.9", JSON.stringify(task("t_old", WORKING)), at(0).toISOString());
    before.close();
    const after = openDatabase({ path, migrations: a2aTaskMigrations });
    try {
      expect(await createA2aTaskStore(createSqliteA2aTaskRows(after)).load("t_old", undefined as never)).toEqual(task("t_old", WORKING));
      expect(after.prepare("SELECT name FROM pragma_table_info('a2a_tasks')").all().map((c) => (c as { name: string }).name)).not.toContain("owner");
    } finally {
      after.close();
    }
  });
});

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
    await store.a2aTasks.save("old_done", "{}", true, new Date(Date.now() - 8 * day));
    await store.a2aTasks.save("old_working", "{}", false, new Date(Date.now() - 8 * day));
    await store.a2aTasks.save("recent_done", "{}", true, new Date(Date.now() - 6 * day));
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
