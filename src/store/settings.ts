/**
 * @module store/settings — the manager's settings (open_for_work, pause_reason, ...), kept in
 * SQLite so `tollbooth pause` from a shell reaches a running server.
 */
import type { Database, Migration } from "./db.ts";

export const settingsMigrations: Migration[] = [
  {
    id: "0100_settings",
    sql: `CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL)`,
  },
];

export interface ManagerState {
  openForWork: boolean;
  pauseReason: string;
  updatedAt: string | null;
}

export interface SettingsStore {
  manager(): ManagerState;
  pause(reason: string): void;
  resume(): void;
}

export function createSettingsStore(db: Database): SettingsStore {
  const read = db.prepare<{ value: string; updated_at: string }, [string]>("SELECT value, updated_at FROM settings WHERE key = ?");
  const write = db.prepare<unknown, [string, string, string]>(
    `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );
  const setManager = (state: { openForWork: boolean; pauseReason: string }) =>
    write.run("manager", JSON.stringify(state), new Date().toISOString());
  return {
    manager() {
      const row = read.get("manager");
      if (!row) return { openForWork: true, pauseReason: "", updatedAt: null };
      const value = JSON.parse(row.value) as { openForWork: boolean; pauseReason: string };
      return { ...value, updatedAt: row.updated_at };
    },
    pause(reason) {
      setManager({ openForWork: false, pauseReason: reason });
    },
    resume() {
      setManager({ openForWork: true, pauseReason: "" });
    },
  };
}
