/**
 * @module jobs/job-signal — "a job may be claimable now" within one process: the SQLite engine's
 * stand-in for PostgreSQL's LISTEN/NOTIFY (one SQLite database has one instance).
 */

export interface JobSignal {
  notify(): void;
  subscribe(listener: () => void): () => Promise<void>;
}

export function createJobSignal(): JobSignal {
  const listeners = new Set<() => void>();
  return {
    notify() {
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return async () => {
        listeners.delete(listener);
      };
    },
  };
}
