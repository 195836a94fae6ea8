/**
 * @module a2a/task-store — A2A tasks in the service's database (the `a2a_tasks` table), as the
 * `load` and `save` of the official SDK's `TaskStore`: a task is saved whole (JSON) under its id,
 * and its id is the only key to it, as a job id is to its job: ids are made by the server (122
 * random bits, never chosen by a caller) and tasks are not listed. (Tasks once belonged to the
 * caller's address, which anyone on the same host or behind the same NAT shares: issue 40.)
 * Tasks outlive a restart like jobs do; finished ones (completed, failed, canceled, rejected) are
 * purged a week after their last change by the job service's sweep.
 *
 * The table family (issue 28) is `A2aTaskRows`, one asynchronous interface with two engines:
 * SQLite here (the default) and PostgreSQL (task-pg.ts).
 */
import type { TaskStore } from "@a2a-js/sdk/server";
import type { Database, Migration } from "../store/db.ts";

type Task = Parameters<TaskStore["save"]>[0];

/** What the request handler needs of a task store: a task by its id, and saving it. */
export type A2aTasks = Pick<TaskStore, "load" | "save">;

export const a2aTaskMigrations: Migration[] = [
  {
    id: "a2a_0001_tasks",
    sql: `CREATE TABLE a2a_tasks (
      id TEXT PRIMARY KEY,
      owner TEXT NOT NULL,
      task TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX a2a_tasks_owner ON a2a_tasks (owner, updated_at);`,
  },
  {
    // Whether the task reached a final state, as a column, so finished tasks are purged without reading their JSON.
    id: "a2a_0002_task_finished",
    sql: `ALTER TABLE a2a_tasks ADD COLUMN finished INTEGER NOT NULL DEFAULT 0;
    UPDATE a2a_tasks SET finished = 1 WHERE json_extract(task, '$.status.state') IN (3, 4, 5, 7, 'completed', 'failed', 'canceled', 'rejected');
    CREATE INDEX a2a_tasks_finished ON a2a_tasks (updated_at) WHERE finished = 1;`,
  },
  {
    // The task id is the key (issue 40): the caller's address no longer owns a task.
    id: "a2a_0003_task_id_is_the_key",
    sql: `DROP INDEX a2a_tasks_owner;
    ALTER TABLE a2a_tasks DROP COLUMN owner;`,
  },
];

/** A finished task stays this long after its last change (its owner may still poll it), then is purged. */
export const a2aTaskRetentionMs = 7 * 86_400_000;

/**
 * Whether a task's state is final: completed, failed, canceled or rejected (the SDK's TaskState
 * numbers 3, 4, 5, 7; the names as the v0.3 wire and the protocol spell them, too).
 */
export function isFinished(state: unknown): boolean {
  if (typeof state === "number") return state === 3 || state === 4 || state === 5 || state === 7;
  return typeof state === "string" && /^(TASK_STATE_)?(completed|failed|canceled|cancelled|rejected)$/i.test(state);
}

/** The a2a_tasks table behind either engine. */
export interface A2aTaskRows {
  /** Inserts the task or replaces the one saved under its id. */
  save(id: string, task: string, finished: boolean, at: Date): Promise<void>;
  load(id: string): Promise<string | undefined>;
  /** Deletes finished tasks last changed before `before`; returns how many. */
  purgeFinished(before: Date): Promise<number>;
}

export function createSqliteA2aTaskRows(db: Database): A2aTaskRows {
  const get = db.prepare<{ task: string }, [string]>("SELECT task FROM a2a_tasks WHERE id = ?");
  const upsert = db.prepare<unknown, [string, string, number, string]>(
    "INSERT INTO a2a_tasks (id, task, finished, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET task = excluded.task, finished = excluded.finished, updated_at = excluded.updated_at",
  );
  const purge = db.prepare<unknown, [string]>("DELETE FROM a2a_tasks WHERE updated_at < ? AND finished = 1");
  return {
    async save(id, task, finished, at) {
      upsert.run(id, task, finished ? 1 : 0, at.toISOString());
    },
    load: async (id) => get.get(id)?.task,
    purgeFinished: async (before) => purge.run(before.toISOString()).changes,
  };
}

export function createA2aTaskStore(rows: A2aTaskRows, now: () => Date = () => new Date()): A2aTasks {
  return {
    async save(task: Task) {
      await rows.save(task.id, JSON.stringify(task), isFinished(task.status?.state), now());
    },
    async load(taskId: string) {
      const row = await rows.load(taskId);
      return row === undefined ? undefined : (JSON.parse(row) as Task);
    },
  };
}
