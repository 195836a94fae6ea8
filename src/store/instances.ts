/**
 * @module store/instances — the heartbeat every serving instance writes into the shared database
 * (instance id, the settlement signers it uses, when it started and was last seen), so `tollbooth
 * doctor` can tell when two live instances settle with one key: they would race for that signer's
 * nonce and lose about half their concurrent settlements. One SQLite file serves one instance; the
 * table is the same there so the check reads alike on both engines (PostgreSQL: instances-pg.ts).
 */
import type { Database, Migration } from "./db.ts";

export const instanceMigrations: readonly Migration[] = [
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

export interface InstanceBeat {
  readonly instanceId: string;
  readonly host: string;
  readonly pid: number;
  /** `network|address` of each settlement signer this instance uses (local settlement only). */
  readonly settlers: readonly string[];
  readonly startedAt: string;
  readonly seenAt: string;
}

export interface InstanceRegistry {
  /** Writes (or refreshes) this instance's row. */
  beat(beat: InstanceBeat): Promise<void>;
  /** Instances seen at or after `since`, oldest start first. */
  live(since: Date): Promise<InstanceBeat[]>;
  /** Removes an instance's row (it stopped). */
  leave(instanceId: string): Promise<void>;
}

/** How often a serving instance writes its row, and how old a row may be for its instance to count as live. */
export const heartbeatEveryMs = 5_000;
export const liveWithinMs = 20_000;

export interface InstanceRow {
  instance_id: string;
  host: string;
  pid: number;
  settlers: string;
  started_at: string;
  seen_at: string;
}

export function beatOf(r: InstanceRow): InstanceBeat {
  return { instanceId: r.instance_id, host: r.host, pid: r.pid, settlers: JSON.parse(r.settlers) as string[], startedAt: r.started_at, seenAt: r.seen_at };
}

/** Each settlement signer used by more than one of these instances, with the instances that share it. */
export function sharedSettlers(live: readonly InstanceBeat[]): { settler: string; instances: InstanceBeat[] }[] {
  const bySettler = new Map<string, InstanceBeat[]>();
  for (const beat of live) for (const settler of new Set(beat.settlers)) bySettler.set(settler, [...(bySettler.get(settler) ?? []), beat]);
  return [...bySettler].filter(([, instances]) => instances.length > 1).map(([settler, instances]) => ({ settler, instances }));
}

export function createInstanceRegistry(db: Database): InstanceRegistry {
  const upsert = db.prepare(
    `INSERT INTO instances (instance_id, host, pid, settlers, started_at, seen_at) VALUES ($id, $host, $pid, $settlers, $startedAt, $seenAt)
     ON CONFLICT (instance_id) DO UPDATE SET settlers = excluded.settlers, seen_at = excluded.seen_at`,
  );
  const live = db.prepare<InstanceRow, [string]>("SELECT * FROM instances WHERE seen_at >= ? ORDER BY started_at, instance_id");
  const leave = db.prepare<unknown, [string]>("DELETE FROM instances WHERE instance_id = ?");
  return {
    async beat(b) {
      upsert.run({ id: b.instanceId, host: b.host, pid: b.pid, settlers: JSON.stringify(b.settlers), startedAt: b.startedAt, seenAt: b.seenAt });
    },
    live: async (since) => live.all(since.toISOString()).map(beatOf),
    async leave(instanceId) {
      leave.run(instanceId);
    },
  };
}
