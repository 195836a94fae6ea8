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
  /**
   * The state read at most a second ago: for the free documents, which every request would
   * otherwise pay a query for. A pause or resume from this process is seen at once, one from
   * `tollbooth pause` in another process within a second; paid calls read `manager()`.
   */
  recentManager(): ManagerState;
  pause(reason: string): void;
  resume(): void;
}

const recentForMs = 1000;

export function createSettingsStore(db: Database): SettingsStore {
  const read = db.prepare<{ value: string; updated_at: string }, [string]>("SELECT value, updated_at FROM settings WHERE key = ?");
  const write = db.prepare<unknown, [string, string, string]>(
    `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );
  let recent: { state: ManagerState; at: number } | undefined;
  const setManager = (state: { openForWork: boolean; pauseReason: string }) => {
    recent = undefined;
    write.run("manager", JSON.stringify(state), new Date().toISOString());
  };
  const manager = (): ManagerState => {
    const row = read.get("manager");
    if (!row) return { openForWork: true, pauseReason: "", updatedAt: null };
    const value = JSON.parse(row.value) as { openForWork: boolean; pauseReason: string };
    return { ...value, updatedAt: row.updated_at };
  };
  return {
    manager,
    recentManager() {
      const now = performance.now();
      if (!recent || now - recent.at > recentForMs) recent = { state: manager(), at: now };
      return recent.state;
    },
    pause(reason) {
      setManager({ openForWork: false, pauseReason: reason });
    },
    resume() {
      setManager({ openForWork: true, pauseReason: "" });
    },
  };
}
