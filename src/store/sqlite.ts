/**
 * @module store/sqlite — the one SQLite driver import. `node:sqlite` runs under Bun (also inside the
 * compiled binary) and under Deno, so one driver serves both runtimes; this module gives it the
 * small part of `bun:sqlite`'s surface the stores were written against, with its semantics:
 * `get` answers null for no row, booleans bind as 1 and 0, named parameters bind without their
 * `$` and extra ones are ignored, `query` caches its statement, and `transaction(fn)` wraps a
 * function (nested calls become savepoints; `.immediate` takes the write lock at BEGIN).
 *
 * Differences that stay: rows have a null prototype (spread or JSON them as usual, but
 * `row.hasOwnProperty` is absent), a missing named parameter binds NULL rather than throwing,
 * and an integer beyond 2^53 throws on read (no column we keep holds one).
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { existsSync } from "node:fs";

export type Binding = string | number | bigint | boolean | null | Uint8Array;
type Params = readonly unknown[] | Record<string, unknown>;

export interface OpenOptions {
  readonly readonly?: boolean;
  /** Default true; false refuses a path that does not exist (as SQLite's open without CREATE does). */
  readonly create?: boolean;
  /** Accepted for `bun:sqlite` compatibility: names bind without their prefix either way. */
  readonly strict?: boolean;
  readonly readwrite?: boolean;
}

export interface RunResult {
  readonly changes: number;
  readonly lastInsertRowid: number | bigint;
}

function bindable(value: unknown): SQLInputValue {
  if (typeof value === "boolean") return value ? 1 : 0;
  return value as SQLInputValue;
}

/** bun:sqlite binds `true` as 1; node:sqlite refuses booleans. Copies only when one is present. */
function bindArgs(args: readonly unknown[]): SQLInputValue[] | [Record<string, SQLInputValue>] {
  if (args.length === 1 && args[0] !== null && typeof args[0] === "object" && !(args[0] instanceof Uint8Array)) {
    const named = args[0] as Record<string, unknown>;
    for (const key in named) {
      if (typeof named[key] === "boolean") {
        const copy: Record<string, SQLInputValue> = {};
        for (const k in named) copy[k] = bindable(named[k]);
        return [copy];
      }
    }
    return [named as Record<string, SQLInputValue>];
  }
  for (let i = 0; i < args.length; i++) if (typeof args[i] === "boolean") return args.map(bindable);
  return args as SQLInputValue[];
}

export class Statement<Row = unknown, P extends Params = unknown[]> {
  readonly #statement: StatementSync;
  #arrays: StatementSync | undefined;
  readonly #open: () => StatementSync;

  constructor(open: () => StatementSync) {
    this.#open = open;
    this.#statement = open();
    this.#statement.setAllowUnknownNamedParameters(true);
  }

  get(...params: P extends unknown[] ? P : [P]): Row | null {
    return (this.#statement.get(...(bindArgs(params) as SQLInputValue[])) as Row | undefined) ?? null;
  }

  all(...params: P extends unknown[] ? P : [P]): Row[] {
    return this.#statement.all(...(bindArgs(params) as SQLInputValue[])) as Row[];
  }

  run(...params: P extends unknown[] ? P : [P]): RunResult {
    // Counts are numbers while readBigInts is off (it is never turned on).
    return this.#statement.run(...(bindArgs(params) as SQLInputValue[])) as RunResult;
  }

  /** Rows as arrays of column values. */
  values(...params: P extends unknown[] ? P : [P]): unknown[][] {
    if (!this.#arrays) {
      this.#arrays = this.#open();
      this.#arrays.setAllowUnknownNamedParameters(true);
      this.#arrays.setReturnArrays(true);
    }
    return this.#arrays.all(...(bindArgs(params) as SQLInputValue[])) as unknown as unknown[][];
  }

  /** Kept for `bun:sqlite` compatibility: node:sqlite finalizes statements when they are collected. */
  finalize(): void {}
}

type Mode = "DEFERRED" | "IMMEDIATE" | "EXCLUSIVE";

export interface Transaction<A extends unknown[], R> {
  (...args: A): R;
  deferred(...args: A): R;
  immediate(...args: A): R;
  exclusive(...args: A): R;
}

export class Database {
  readonly #db: DatabaseSync;
  readonly #cache = new Map<string, Statement<unknown, never>>();
  readonly #controls = new Map<string, StatementSync>();
  #savepoints = 0;

  constructor(path: string, options: OpenOptions = {}) {
    const memory = path === ":memory:" || path === "";
    if (!memory && options.create === false && !existsSync(path)) throw new Error(`unable to open database file ${path}`);
    this.#db = new DatabaseSync(memory ? ":memory:" : path, { readOnly: options.readonly === true });
  }

  exec(sql: string): void {
    this.#db.exec(sql);
  }

  /** Runs one statement (prepared each time: for SQL run once). */
  run(sql: string, ...params: unknown[]): RunResult {
    const flat = params.length === 1 && Array.isArray(params[0]) ? (params[0] as unknown[]) : params;
    const statement = this.#db.prepare(sql);
    statement.setAllowUnknownNamedParameters(true);
    return statement.run(...(bindArgs(flat) as SQLInputValue[])) as RunResult;
  }

  prepare<Row = unknown, P extends Params = unknown[]>(sql: string): Statement<Row, P> {
    return new Statement<Row, P>(() => this.#db.prepare(sql));
  }

  /** A prepared statement kept for the database's life (one per SQL text). */
  query<Row = unknown, P extends Params = unknown[]>(sql: string): Statement<Row, P> {
    let statement = this.#cache.get(sql);
    if (!statement) {
      statement = this.prepare<Row, P>(sql) as unknown as Statement<unknown, never>;
      this.#cache.set(sql, statement);
    }
    return statement as unknown as Statement<Row, P>;
  }

  get inTransaction(): boolean {
    return this.#db.isTransaction;
  }

  transaction<A extends unknown[], R>(fn: (...args: A) => R): Transaction<A, R> {
    const run = (mode: Mode, args: A): R => {
      if (this.#db.isTransaction) return this.#nested(fn, args);
      this.#control(`BEGIN ${mode}`).run();
      let result: R;
      try {
        result = fn(...args);
      } catch (error) {
        if (this.#db.isTransaction) this.#control("ROLLBACK").run();
        throw error;
      }
      this.#control("COMMIT").run();
      return result;
    };
    return Object.assign((...args: A) => run("DEFERRED", args), {
      deferred: (...args: A) => run("DEFERRED", args),
      immediate: (...args: A) => run("IMMEDIATE", args),
      exclusive: (...args: A) => run("EXCLUSIVE", args),
    });
  }

  /** BEGIN, COMMIT and ROLLBACK, prepared once. */
  #control(sql: string): StatementSync {
    let statement = this.#controls.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#controls.set(sql, statement);
    }
    return statement;
  }

  #nested<A extends unknown[], R>(fn: (...args: A) => R, args: A): R {
    const name = `tollbooth_sp${++this.#savepoints}`;
    this.#db.exec(`SAVEPOINT ${name}`);
    try {
      const result = fn(...args);
      this.#db.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      this.#db.exec(`ROLLBACK TO ${name}`);
      this.#db.exec(`RELEASE ${name}`);
      throw error;
    } finally {
      this.#savepoints--;
    }
  }

  close(): void {
    this.#cache.clear();
    this.#controls.clear();
    if (this.#db.isOpen) this.#db.close();
  }
}
