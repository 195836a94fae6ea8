/**
 * @module a2a/task-store — A2A tasks in the service's database (the `a2a_tasks` table), as the
 * official SDK's `TaskStore`: a task is saved whole (JSON) under its owner, the caller that
 * created it, and loads only for that owner (another caller's task id is simply not found).
 * Tasks outlive a restart like jobs do.
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
];

/** Who a call is, for task ownership: the user name the endpoint gave the call context. */
export const ownerOf = (context: ServerCallContext): string => context.user?.userName || "unknown";

export function createA2aTaskStore(db: Database, now: () => Date = () => new Date()): TaskStore {
  const get = db.prepare<{ owner: string; task: string }, [string]>("SELECT owner, task FROM a2a_tasks WHERE id = ?");
  // A task id is claimed by its first owner: a save under another owner changes nothing.
  const upsert = db.prepare<unknown, [string, string, string, string]>(
    "INSERT INTO a2a_tasks (id, owner, task, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET task = excluded.task, updated_at = excluded.updated_at WHERE a2a_tasks.owner = excluded.owner",
  );
  const page = db.prepare<{ task: string }, [string, number]>("SELECT task FROM a2a_tasks WHERE owner = ? ORDER BY updated_at DESC LIMIT ?");
  return {
    async save(task: Task, context: ServerCallContext) {
      upsert.run(task.id, ownerOf(context), JSON.stringify(task), now().toISOString());
    },
    async load(taskId: string, context: ServerCallContext) {
      const row = get.get(taskId);
      return row && row.owner === ownerOf(context) ? (JSON.parse(row.task) as Task) : undefined;
    },
    async list(params, context): Promise<ListTasksResponse> {
      const limit = Math.min(Math.max(params.pageSize || 50, 1), 100);
      const tasks = page.all(ownerOf(context), limit).map((r) => JSON.parse(r.task) as Task);
      return { tasks, nextPageToken: "", pageSize: tasks.length, totalSize: tasks.length };
    },
  };
}
