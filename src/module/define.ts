/**
 * @module module/define — the feature-module contract (issue 39). A feature is one folder whose
 * `module.ts` calls `defineModule({ id, … })`; `npm run gen` lists it in src/modules.generated.ts and
 * the front files (database.ts, app.ts, main.ts, errors.ts, the free documents) iterate that list and
 * name no feature. Every field is data the front reads; none is a hook the module must remember to chain.
 *
 * A low room: it imports only types, from store/ and the leaves (errors.ts, log.ts); what a module's
 * service needs beyond the store it names in the type of its `serve` parameter (the front's deps must
 * satisfy it). What a module adds to the store, to a plugin's context and to the
 * free documents' context it declares by merging into `ModuleStores`, `ModuleFacets` and `ModuleDocs`
 * (as Hono's ContextVariableMap), next to its `defineModule` call.
 */
import type { CommandSpec } from "./command-spec.ts";
import type { Logger } from "../log.ts";
import type { Database, Migration } from "../store/db.ts";
import type { Sql } from "../store/postgres.ts";
import type { CoreStore } from "../store/store.ts";
import type { ErrorSpec } from "../errors.ts";

/** The store facets modules' tables add (`store.tickets`, …): each module merges its own in. */
export interface ModuleStores {}

/** What plugins receive from modules (`ctx.capital`, …): each module merges its own in. */
export interface ModuleFacets {}

/** What modules' free documents read (`docs.capital`, …): each module merges its own in. */
export interface ModuleDocs {}

/** What a module's service offers the other modules and the front (`services.jobs`, …): each module merges its own in. */
export interface ModuleServices {}

/**
 * What the paid-call core takes from the modules once they serve (the job queue, the evidence seal):
 * paid-call/ merges in each port's type, a module hands its part as its runtime's `salePorts`, and
 * the front passes them on without naming who gave which.
 */
export interface SalePorts {}

/** The core tables and every module's: what a module's service and commands see. */
export type ModuleStore = CoreStore & ModuleStores;

export interface PgFamilyContext {
  /** Runs `stop` before the pool ends (a family's background writes). */
  onClose(stop: () => void | Promise<void>): void;
  /** Reports a background write that failed (the service logs it). */
  warn(message: string, error: Error): void;
}

/**
 * A module's tables on both engines. The migration ids are the applied names recorded in
 * `schema_migrations`: never renamed once shipped; the two engines list the same ids.
 */
export interface ModuleTables {
  /** How messages name the family ("capital tickets"). */
  readonly family: string;
  readonly sqlite: readonly Migration[];
  readonly postgres: readonly Migration[];
  /**
   * Why one instance on SQLite keeps this family outside its database file, in memory or in a file
   * beside it (its `sqlite` list is then empty and `openSqlite` builds that facet): a table only the
   * cluster needs.
   */
  readonly outsideSqlite?: string;
  /** The store facets over the SQLite file (`dataDir` ":memory:" in tests). */
  openSqlite(db: Database, dataDir: string): Partial<ModuleStores>;
  /** The same facets over a PostgreSQL pool. */
  openPostgres(sql: Sql, context: PgFamilyContext): Partial<ModuleStores> | Promise<Partial<ModuleStores>>;
}

/**
 * What a running server hands every module's service. A module that needs more of the server (its
 * configuration, the web engine, the payment gate, …) declares it in its `serve` parameter's type,
 * `ModuleDeps & { web: WebEngine }`; app.ts passes one object that must satisfy every module's.
 */
export interface ModuleDeps {
  readonly store: ModuleStore;
  readonly log: Logger;
  readonly now: () => Date;
  /**
   * The other modules' services (`ModuleRuntime.service`), each built the first time it is asked for:
   * a module may ask while it serves; one that asks, through others, for itself fails the start.
   */
  readonly services: ModuleServices;
}

/** Who one plugin call is for: the facet a module hands the call may depend on it. */
export interface ModuleCall {
  readonly payer?: string | undefined;
  readonly origin?: string | undefined;
  readonly requestId: string;
  readonly now: () => Date;
}

/** A module inside a running server: built once at boot, stopped when the store closes. */
export interface ModuleRuntime<F = unknown, D = unknown> {
  /** What a plugin call receives as `ctx[id]`. */
  facet?(call: ModuleCall): F;
  /** What the module's free documents read as `docs[id]`. */
  readonly docs?: D;
  /**
   * What the free documents read as `docs[id]` that changes while the server serves, loaded before
   * each rendering (synchronously when it can): `reads` is what the document declared it reads of
   * this module (its `reads[id]`; absent: nothing live).
   */
  liveDocs?(reads: unknown): unknown;
  /** What the other modules and the front reach as `services[id]` (merged into ModuleServices). */
  readonly service?: unknown;
  /** Its part of what the paid-call core sells through (`SalePorts`): read once every module serves. */
  readonly salePorts?: Partial<SalePorts>;
  /** Checks every paid call's input passes beyond its schema, before any offer or payment (throws the 400 ApiError). */
  checkInput?(input: unknown): void;
  /** Routes built from the service's deps (keys, configuration): mounted by app.ts like `routes`, a clash fails the start. */
  readonly routes?: readonly ModuleRoute[];
  stop?(): void;
}

/** A free GET document the module serves (listed in /openapi.json like every free route). */
export interface ModuleDocument {
  readonly path: string;
  readonly contentType: "application/json" | "text/plain" | "text/markdown";
  readonly summary: string;
  readonly render: (docs: ModuleDocumentContext) => unknown | Promise<unknown>;
  /** Cacheable documents get Cache-Control with this max-age and an ETag (304 on If-None-Match). */
  readonly cacheSeconds?: number;
  /** Query parameters the document reads (listed in OpenAPI). */
  readonly query?: readonly { readonly name: string; readonly description: string; readonly schema: Record<string, unknown> }[];
}

/** What a module's free document is rendered from: the base URL, the query and the modules' docs. */
export interface ModuleDocumentContext extends Partial<ModuleDocs> {
  readonly baseUrl: string;
  readonly query?: URLSearchParams;
}

/** What one run of a module's command gets; `C` is the configuration (config.ts's Config, as main.ts passes it), `W` the web engine. */
export interface CommandContext<C = unknown, W = unknown> {
  readonly config: C;
  /** The positional words after the command. */
  readonly words: readonly string[];
  /** The command's own flags that carry a value. */
  readonly flags: Readonly<Record<string, string | undefined>>;
  /** Whether a boolean flag was given. */
  on(name: string): boolean;
  /** Opens the database of `--data` for this command and closes it after `use`. */
  withStore<T>(use: (store: ModuleStore) => T | Promise<T>): Promise<T>;
  /**
   * Opens the PostgreSQL database at `url` as the server does (migrated; the facets of the families
   * there, its pool) for this command, and closes it after `use`; `where` is the URL without its password.
   */
  withPostgres<T>(url: string, use: (db: { readonly sql: Sql; readonly store: Partial<ModuleStore>; readonly where: string }) => T | Promise<T>): Promise<T>;
  /** Loads what makes the configured web engine (for commands that fetch; built only when called). */
  loadWeb(): Promise<() => W>;
}

export interface ModuleCommand {
  readonly spec: CommandSpec;
  /** Its lines in `tollbooth help` (indented as the usage's other lines). */
  readonly usage: string;
  // Method syntax: a command states the configuration it reads (CommandContext<Pick<Config, "data">>).
  run(context: CommandContext<any, any>): Promise<number>;
}

/**
 * What the front hands a module route's handler besides the request. The front names the request's
 * route (logs, metrics) and turns a thrown ApiError into the error answer; the handler returns the
 * success.
 */
export interface RouteCall {
  /** The request's id (answers carry it as `request_id`). */
  readonly requestId: string;
  /** --public-url, else the caller's validated Host (payments off only). */
  readonly baseUrl: string;
  /** The path's parameters (`/v1/things/:id` → `{ id }`). */
  readonly params: Readonly<Record<string, string>>;
  /** The body as one JSON object, checked as every JSON route's (415, 400 INVALID_JSON, JSON_TOO_DEEP). */
  readJson(): Promise<Record<string, unknown>>;
  /** A JSON answer (content type with charset, the given headers). */
  json(body: unknown, status?: number, headers?: Record<string, string>): Response;
}

/** A route the module answers besides its free documents. */
export interface ModuleRoute {
  readonly method: "GET" | "POST" | "DELETE";
  readonly path: string;
  /** An agent door (JSON-RPC a web page could post to): the front checks Host and Origin before the handler and answers its CORS preflight (http/door-guard.ts). */
  readonly door?: boolean;
  handle(request: Request, call: RouteCall): Response | Promise<Response>;
}

/** A periodic pass over the module's tables, run by the server while it serves. */
export interface ModuleSweep {
  readonly everyMs: number;
  run(store: ModuleStore, now: Date): Promise<unknown>;
}

export interface TollboothModule<Id extends string = string> {
  /** The folder's name: the one prefix of its tables, routes, errors and sweep. */
  readonly id: Id;
  readonly tables?: ModuleTables;
  /** Its service inside a running server (method syntax: the parameter may ask for more than ModuleDeps). */
  serve?(deps: ModuleDeps): ModuleRuntime;
  readonly freeDocuments?: readonly ModuleDocument[];
  readonly commands?: readonly ModuleCommand[];
  readonly errors?: Readonly<Record<string, ErrorSpec>>;
  readonly sweep?: ModuleSweep;
  readonly routes?: readonly ModuleRoute[];
}

/** The identity: it keeps `id` a literal and checks the declaration against the contract. */
export function defineModule<const M extends TollboothModule>(module: M): M {
  return module;
}

/** What a module's service asks of the running server (its `serve` parameter's type). */
export type ServeDepsOf<M> = M extends { serve?(deps: infer D): unknown } ? D : unknown;

/** true when a module's `service` is what it merged into ModuleServices under its id, or it merged none (the generated list checks every module). */
export type ServiceMatches<M> = M extends { readonly id: infer Id; serve?(deps: never): infer R }
  ? Id extends keyof ModuleServices
    ? R extends { readonly service?: infer S }
      ? S extends ModuleServices[Id]
        ? true
        : false
      : false
    : true
  : true;

/** An error table whose codes stay literal (`keyof typeof table` is the module's codes). */
export function defineErrors<const T extends Record<string, ErrorSpec>>(table: T): T {
  return table;
}

/** The answer of a module's free document rendered where the module does not run (no server). */
export function notServed(what: string) {
  return { ok: false, error: "NOT_FOUND", status: 404, message: `The ${what} is not served by this document renderer.` };
}
