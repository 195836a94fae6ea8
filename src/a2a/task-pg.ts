/**
 * @module a2a/task-pg — A2A tasks on PostgreSQL, shared by every instance: a task is saved whole
 * under its id (one `INSERT … ON CONFLICT DO UPDATE`). `updated_at` is `timestamptz`.
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
  {
    id: "a2a_0003_task_id_is_the_key",
    sql: `DROP INDEX a2a_tasks_owner;
    ALTER TABLE a2a_tasks DROP COLUMN owner;`,
  },
];

export function createPgA2aTaskRows(sql: Sql): A2aTaskRows {
  return {
    async save(id, task, finished, at) {
      await sql`
        INSERT INTO a2a_tasks (id, task, finished, updated_at) VALUES (${id}, ${task}, ${finished ? 1 : 0}, ${at})
        ON CONFLICT (id) DO UPDATE SET task = excluded.task, finished = excluded.finished, updated_at = excluded.updated_at`;
    },
    async load(id) {
      const [row] = await sql<{ task: string }[]>`SELECT task FROM a2a_tasks WHERE id = ${id}`;
      return row?.task;
    },
    async purgeFinished(before) {
      return (await sql`DELETE FROM a2a_tasks WHERE updated_at < ${before} AND finished = 1`).count;
    },
  };
}
