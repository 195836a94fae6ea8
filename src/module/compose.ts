/**
 * @module module/compose — checks a list of feature modules before a front file uses it: throws,
 * naming both sides, on a duplicate id, migration id, free document, route, command or error code,
 * and on tables whose SQLite and PostgreSQL migrations do not list the same ids (or, for a family
 * kept outside the SQLite database, that lists SQLite migrations).
 */
import type { TollboothModule } from "./define.ts";

export class ModuleClashError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModuleClashError";
  }
}

/** `taken` holds what core code already owns (e.g. the core error codes, command names, free paths). */
export interface TakenNames {
  readonly migrations?: Iterable<string>;
  readonly documents?: Iterable<string>;
  readonly commands?: Iterable<string>;
  readonly errors?: Iterable<string>;
}

export function composeModules<const M extends readonly TollboothModule[]>(modules: M, taken: TakenNames = {}): M {
  const owners = new Map<string, string>();
  const claim = (kind: string, name: string, owner: string) => {
    const key = `${kind} ${name}`;
    const before = owners.get(key);
    if (before !== undefined) throw new ModuleClashError(`${kind} ${JSON.stringify(name)} is declared by ${before} and by ${owner}`);
    owners.set(key, owner);
  };
  for (const name of taken.migrations ?? []) claim("migration", name, "the core");
  for (const name of taken.documents ?? []) claim("free document", name, "the core");
  for (const name of taken.commands ?? []) claim("command", name, "the core");
  for (const name of taken.errors ?? []) claim("error code", name, "the core");
  for (const m of modules) {
    const owner = `module ${m.id}`;
    claim("module id", m.id, owner);
    if (m.tables) {
      const sqlite = m.tables.sqlite.map((s) => s.id);
      const postgres = m.tables.postgres.map((s) => s.id);
      if (m.tables.outsideSqlite !== undefined) {
        if (sqlite.length > 0) throw new ModuleClashError(`${owner}: its tables are kept outside the SQLite database, so it lists no SQLite migration (it lists ${sqlite.join(", ")})`);
      } else if (sqlite.join("\n") !== postgres.join("\n")) {
        throw new ModuleClashError(`${owner}: its SQLite migrations (${sqlite.join(", ")}) and PostgreSQL migrations (${postgres.join(", ")}) must list the same ids in the same order`);
      }
      for (const id of postgres) claim("migration", id, owner);
    }
    for (const d of m.freeDocuments ?? []) claim("free document", d.path, owner);
    for (const r of m.routes ?? []) claim("route", `${r.method} ${r.path}`, owner);
    for (const c of m.commands ?? []) claim("command", c.spec.name, owner);
    for (const code of Object.keys(m.errors ?? {})) claim("error code", code, owner);
    if (m.sweep && !(m.sweep.everyMs > 0)) throw new ModuleClashError(`${owner}: its sweep needs everyMs > 0`);
  }
  return modules;
}
