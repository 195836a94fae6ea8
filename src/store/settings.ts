/**
 * @module store/settings — the manager's settings (open_for_work, pause_reason, ...), kept in the
 * database so `tollbooth pause` from a shell reaches a running server (on PostgreSQL, every
 * instance: settings-pg.ts).
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
  manager(): Promise<ManagerState>;
  /**
   * The state read at most a second ago: for the free documents, which every request would
   * otherwise pay a query for. A pause or resume from this process is seen at once, one from
   * `tollbooth pause` in another process within a second; paid calls read `manager()`.
   */
  recentManager(): ManagerState;
  pause(reason: string): Promise<void>;
  resume(): Promise<void>;
}

export const recentForMs = 1000;
export const unpaused: ManagerState = { openForWork: true, pauseReason: "", updatedAt: null };

/** The stored JSON of the manager row, as read back. */
export function managerOf(row: { value: string; updated_at: string } | undefined | null): ManagerState {
  if (!row) return unpaused;
  const value = JSON.parse(row.value) as { openForWork: boolean; pauseReason: string };
  return { ...value, updatedAt: row.updated_at };
}

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
  const manager = (): ManagerState => managerOf(read.get("manager"));
  return {
    manager: async () => manager(),
    recentManager() {
      const now = performance.now();
      if (!recent || now - recent.at > recentForMs) recent = { state: manager(), at: now };
      return recent.state;
    },
    async pause(reason) {
      setManager({ openForWork: false, pauseReason: reason });
    },
    async resume() {
      setManager({ openForWork: true, pauseReason: "" });
    },
  };
}
