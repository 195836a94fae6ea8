/**
 * @module store/plugin-kv-pg — plugin key-value storage (`ctx.store`) on PostgreSQL, shared by every
 * instance: the same table and scoping as on SQLite (plugin-kv.ts), each method one statement.
 */
import type { Migration } from "./db.ts";
import type { KvValue, PluginStore } from "./plugin-kv.ts";
import type { Sql } from "./postgres.ts";

/** Same id as the SQLite migration. */
export const pluginKvPgMigrations: readonly Migration[] = [
  {
    id: "0110_plugin_kv",
    sql: `CREATE TABLE plugin_kv (
      plugin_id TEXT NOT NULL,
      key TEXT NOT NULL,
      value TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (plugin_id, key)
    )`,
  },
];

export function createPgPluginStore(sql: Sql, pluginId: string): PluginStore {
  return {
    async get(key) {
      const [row] = await sql<{ value: string }[]>`SELECT value FROM plugin_kv WHERE plugin_id = ${pluginId} AND key = ${key}`;
      return row ? (JSON.parse(row.value) as KvValue) : undefined;
    },
    async set(key, value) {
      await sql`
        INSERT INTO plugin_kv (plugin_id, key, value, updated_at) VALUES (${pluginId}, ${key}, ${JSON.stringify(value)}, ${new Date().toISOString()})
        ON CONFLICT (plugin_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`;
    },
    async delete(key) {
      return (await sql`DELETE FROM plugin_kv WHERE plugin_id = ${pluginId} AND key = ${key}`).count > 0;
    },
    async keys() {
      // COLLATE "C": byte order, as SQLite's default BINARY collation sorts.
      return (await sql<{ key: string }[]>`SELECT key FROM plugin_kv WHERE plugin_id = ${pluginId} ORDER BY key COLLATE "C"`).map((r) => r.key);
    },
  };
}
