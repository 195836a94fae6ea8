/**
 * @module a2a/task-store — A2A tasks in the service's database (the `a2a_tasks` table), as the
 * official SDK's `TaskStore`: a task is saved whole (JSON) under its owner, the caller that
 * created it, and loads only for that owner (another caller's task id is simply not found).
 * Tasks outlive a restart like jobs do; finished ones (completed, failed, canceled, rejected) are
 * purged a week after their last change by the job service's sweep.
 *
 * The table family (issue 28) is `A2aTaskRows`, one asynchronous interface with two engines:
 * SQLite here (the default) and PostgreSQL (task-pg.ts).
 */
import type { ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import type { Database, Migration } from "../store/db.ts";

type Task = Parameters<TaskStore["save"]>[0];
type ListTasksResponse = Awaited<ReturnType<TaskStore["list"]>>;

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
  /** Inserts the task, or replaces it when `owner` owns it; a task id owned by another caller is left alone. */
  save(id: string, owner: string, task: string, finished: boolean, at: Date): Promise<void>;
  load(id: string): Promise<{ owner: string; task: string } | undefined>;
  /** The owner's tasks (JSON), most recently changed first. */
  list(owner: string, limit: number): Promise<string[]>;
  /** Deletes finished tasks last changed before `before`; returns how many. */
  purgeFinished(before: Date): Promise<number>;
}

/** Who a call is, for task ownership: the user name the endpoint gave the call context. */
export const ownerOf = (context: ServerCallContext): string => context.user?.userName || "unknown";

export function createSqliteA2aTaskRows(db: Database): A2aTaskRows {
  const get = db.prepare<{ owner: string; task: string }, [string]>("SELECT owner, task FROM a2a_tasks WHERE id = ?");
  // A task id is claimed by its first owner: a save under another owner changes nothing.
  const upsert = db.prepare<unknown, [string, string, string, number, string]>(
    "INSERT INTO a2a_tasks (id, owner, task, finished, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET task = excluded.task, finished = excluded.finished, updated_at = excluded.updated_at WHERE a2a_tasks.owner = excluded.owner",
  );
  const page = db.prepare<{ task: string }, [string, number]>("SELECT task FROM a2a_tasks WHERE owner = ? ORDER BY updated_at DESC LIMIT ?");
  const purge = db.prepare<unknown, [string]>("DELETE FROM a2a_tasks WHERE updated_at < ? AND finished = 1");
  return {
    async save(id, owner, task, finished, at) {
      upsert.run(id, owner, task, finished ? 1 : 0, at.toISOString());
    },
    load: async (id) => get.get(id) ?? undefined,
    list: async (owner, limit) => page.all(owner, limit).map((r) => r.task),
    purgeFinished: async (before) => purge.run(before.toISOString()).changes,
  };
}

export function createA2aTaskStore(rows: A2aTaskRows, now: () => Date = () => new Date()): TaskStore {
  return {
    async save(task: Task, context: ServerCallContext) {
      await rows.save(task.id, ownerOf(context), JSON.stringify(task), isFinished(task.status?.state), now());
    },
    async load(taskId: string, context: ServerCallContext) {
      const row = await rows.load(taskId);
      return row && row.owner === ownerOf(context) ? (JSON.parse(row.task) as Task) : undefined;
    },
    async list(params, context): Promise<ListTasksResponse> {
      const limit = Math.min(Math.max(params.pageSize || 50, 1), 100);
      const tasks = (await rows.list(ownerOf(context), limit)).map((t) => JSON.parse(t) as Task);
      return { tasks, nextPageToken: "", pageSize: tasks.length, totalSize: tasks.length };
    },
  };
}
