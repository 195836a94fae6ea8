/**
 * @module store/settings-pg — the manager's settings on PostgreSQL: a pause from one instance (or
 * `tollbooth pause` against the database) reaches every instance. `recentManager` must answer at
 * once for the free documents, so it hands out the state read at most a second ago and reads again
 * in the background when that is older; the paid path reads `manager()` every call.
 */
import type { Migration } from "./db.ts";
import type { Sql } from "./postgres.ts";
import { type ManagerState, managerOf, recentForMs, type SettingsStore } from "./settings.ts";

/** Same id as the SQLite migration. */
export const settingsPgMigrations: readonly Migration[] = [
  { id: "0100_settings", sql: `CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL)` },
];

/** Reads the state once before answering, so `recentManager` never starts from a guess. */
export async function createPgSettingsStore(sql: Sql): Promise<SettingsStore> {
  const manager = async (): Promise<ManagerState> => {
    const [row] = await sql<{ value: string; updated_at: string }[]>`SELECT value, updated_at FROM settings WHERE key = 'manager'`;
    return managerOf(row);
  };
  let recent = { state: await manager(), at: performance.now() };
  let reading = false;
  const remember = (state: ManagerState) => {
    recent = { state, at: performance.now() };
    return state;
  };
  const setManager = async (state: { openForWork: boolean; pauseReason: string }) => {
    const updatedAt = new Date().toISOString();
    await sql`
      INSERT INTO settings (key, value, updated_at) VALUES ('manager', ${JSON.stringify(state)}, ${updatedAt})
      ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`;
    remember({ ...state, updatedAt });
  };
  return {
    manager: async () => remember(await manager()),
    recentManager() {
      if (!reading && performance.now() - recent.at > recentForMs) {
        reading = true;
        // A failed read keeps the last state; the next call tries again.
        manager()
          .then(remember, () => undefined)
          .finally(() => {
            reading = false;
          });
      }
      return recent.state;
    },
    pause: (reason) => setManager({ openForWork: false, pauseReason: reason }),
    resume: () => setManager({ openForWork: true, pauseReason: "" }),
  };
}
