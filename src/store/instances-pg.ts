/**
 * @module store/instances-pg — instance heartbeats on PostgreSQL, where several instances share the
 * database and `tollbooth doctor` reads which of them are live and which settlement signers they use.
 */
import type { Migration } from "./db.ts";
import { beatOf, type InstanceRegistry, type InstanceRow } from "./instances.ts";
import type { Sql } from "./postgres.ts";

/** Same id as the SQLite migration. */
export const instancePgMigrations: readonly Migration[] = [
  {
    id: "0140_instances",
    sql: `CREATE TABLE instances (
      instance_id TEXT PRIMARY KEY,
      host TEXT NOT NULL,
      pid INTEGER NOT NULL,
      settlers TEXT NOT NULL,
      started_at TEXT NOT NULL,
      seen_at TEXT NOT NULL
    );
    CREATE INDEX instances_seen ON instances (seen_at);`,
  },
];

export function createPgInstanceRegistry(sql: Sql): InstanceRegistry {
  return {
    async beat(b) {
      await sql`
        INSERT INTO instances (instance_id, host, pid, settlers, started_at, seen_at)
        VALUES (${b.instanceId}, ${b.host}, ${b.pid}, ${JSON.stringify(b.settlers)}, ${b.startedAt}, ${b.seenAt})
        ON CONFLICT (instance_id) DO UPDATE SET settlers = excluded.settlers, seen_at = excluded.seen_at`;
    },
    live: async (since) => (await sql<InstanceRow[]>`SELECT * FROM instances WHERE seen_at >= ${since.toISOString()} ORDER BY started_at, instance_id`).map(beatOf),
    async leave(instanceId) {
      await sql`DELETE FROM instances WHERE instance_id = ${instanceId}`;
    },
  };
}
