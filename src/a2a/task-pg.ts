/**
 * @module a2a/task-pg — A2A tasks on PostgreSQL, shared by every instance. A task id belongs to the
 * caller that first saved it: the save is one `INSERT … ON CONFLICT DO UPDATE … WHERE owner = …`,
 * so of two instances saving one id under different owners, the first owner keeps it. `updated_at`
 * is `timestamptz`.
 */
import type { Migration } from "../store/db.ts";
import type { Sql } from "../store/postgres.ts";
import type { A2aTaskRows } from "./task-store.ts";

/** Same ids as the SQLite migrations (task-store.ts). */
export const a2aTaskPgMigrations: readonly Migration[] = [
  {
    id: "a2a_0001_tasks",
    sql: `CREATE TABLE a2a_tasks (
      id TEXT PRIMARY KEY,
      owner TEXT NOT NULL,
      task TEXT NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX a2a_tasks_owner ON a2a_tasks (owner, updated_at);`,
  },
  {
    id: "a2a_0002_task_finished",
    sql: `ALTER TABLE a2a_tasks ADD COLUMN finished INTEGER NOT NULL DEFAULT 0;
    UPDATE a2a_tasks SET finished = 1 WHERE (task::jsonb) #>> '{status,state}' IN ('3', '4', '5', '7', 'completed', 'failed', 'canceled', 'rejected');
    CREATE INDEX a2a_tasks_finished ON a2a_tasks (updated_at) WHERE finished = 1;`,
  },
];

export function createPgA2aTaskRows(sql: Sql): A2aTaskRows {
  return {
    async save(id, owner, task, finished, at) {
      await sql`
        INSERT INTO a2a_tasks (id, owner, task, finished, updated_at) VALUES (${id}, ${owner}, ${task}, ${finished ? 1 : 0}, ${at})
        ON CONFLICT (id) DO UPDATE SET task = excluded.task, finished = excluded.finished, updated_at = excluded.updated_at
        WHERE a2a_tasks.owner = excluded.owner`;
    },
    async load(id) {
      const [row] = await sql<{ owner: string; task: string }[]>`SELECT owner, task FROM a2a_tasks WHERE id = ${id}`;
      return row;
    },
    async list(owner, limit) {
      return (await sql<{ task: string }[]>`SELECT task FROM a2a_tasks WHERE owner = ${owner} ORDER BY updated_at DESC LIMIT ${limit}`).map((r) => r.task);
    },
    async purgeFinished(before) {
      return (await sql`DELETE FROM a2a_tasks WHERE updated_at < ${before} AND finished = 1`).count;
    },
  };
}
