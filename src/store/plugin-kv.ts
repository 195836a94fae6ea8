/**
 * @module store/plugin-kv — a small key-value facet each plugin or skill gets as `ctx.store`,
 * scoped to its own id so one file cannot read another's data. Every method answers a Promise: on
 * SQLite the work is done at once, on PostgreSQL (plugin-kv-pg.ts) it is a round trip to the
 * database every instance shares.
 */
import type { Database, Migration } from "./db.ts";

export const pluginKvMigrations: Migration[] = [
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

/** JSON-serialisable values only. */
export type KvValue = null | boolean | number | string | KvValue[] | { [key: string]: KvValue };

export interface PluginStore {
  get(key: string): Promise<KvValue | undefined>;
  set(key: string, value: KvValue): Promise<void>;
  /** True when the key existed. */
  delete(key: string): Promise<boolean>;
  /** The plugin's keys in order. */
  keys(): Promise<string[]>;
}

export function createPluginStore(db: Database, pluginId: string): PluginStore {
  const get = db.prepare<{ value: string }, [string, string]>("SELECT value FROM plugin_kv WHERE plugin_id = ? AND key = ?");
  const set = db.prepare<unknown, [string, string, string, string]>(
    `INSERT INTO plugin_kv (plugin_id, key, value, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (plugin_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );
  const del = db.prepare<unknown, [string, string]>("DELETE FROM plugin_kv WHERE plugin_id = ? AND key = ?");
  const keys = db.prepare<{ key: string }, [string]>("SELECT key FROM plugin_kv WHERE plugin_id = ? ORDER BY key");
  return {
    async get(key) {
      const row = get.get(pluginId, key);
      return row ? (JSON.parse(row.value) as KvValue) : undefined;
    },
    async set(key, value) {
      set.run(pluginId, key, JSON.stringify(value), new Date().toISOString());
    },
    async delete(key) {
      return del.run(pluginId, key).changes > 0;
    },
    async keys() {
      return keys.all(pluginId).map((r) => r.key);
    },
  };
}
