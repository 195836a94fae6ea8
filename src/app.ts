/**
 * @module app — builds the Elysia app from the registry and the feature modules (modules.generated.ts):
 * the free documents (the core's and the modules'), one POST route per plugin file, and each module's
 * service, facets, routes, live figures, input checks and sweep, iterated by list and named by none.
 * Handlers stay thin; the work is in http/operation.ts, the plugin files and the modules.
 */
import { Elysia } from "elysia";
import type { Config } from "./config.ts";
import { buildCatalogue } from "./plugin/catalogue.ts";
import { mountApiReference } from "./docs/api-reference.ts";
import { createDocumentRenderer, documentBody, type RenderedDocument } from "./docs/rendered-documents.ts";
import type { DocsContext } from "./docs/docs-context.ts";
import { type FreeRoute, freeRoutesWith } from "./docs/free-routes.ts";
import { ApiError } from "./errors.ts";
import { baseUrlOf, contextOf, type RequestContext } from "./http/request-context.ts";
import { createDoorGuard, doorHostsOf } from "./http/door-guard.ts";
import type { Payments } from "./paid-call/payments.ts";
import { type OperationDeps, readJsonObject, routeCallOf, runPaidOperation } from "./http/operation.ts";
import { errorResponse, jsonResponse, readyAnswer, readyHeaders } from "./http/respond.ts";
import type { FreeAnswer } from "./http/serve.ts";
import { type ModelAccess, noModel } from "./plugin/model-access.ts";
import type { Logger } from "./log.ts";
import type { ModuleRoute, ModuleRuntime, ModuleServices, SalePorts, TollboothModule } from "./module/define.ts";
import type { JobQueue } from "./paid-call/job-queue.ts";
import { modules, type ServeDeps } from "./modules.generated.ts";
import { callContexts, type FacetMaker, systemNow } from "./plugin/call-context.ts";
import { paidCallDeps } from "./paid-call/call-deps.ts";
import type { PluginEntry, Registry } from "./plugin/registry.ts";
import type { Store } from "./database.ts";
import type { WebEngine } from "./web/engine.ts";
import type { SearchEngine } from "./search/engine.ts";
import type { PaymentGate } from "./x402/gate.ts";
import type { PaymentInfo } from "./x402/payment-info.ts";

/**
 * What the modules' services ask of the server that app.ts hands them as it gets it (refund senders,
 * signing keys, …): `ServeDeps` less what app.ts builds for them.
 */
export type ModuleServerDeps = Omit<ServeDeps, "services" | "store" | "config" | "log" | "now" | "catalogue" | "operation" | "baseUrl">;

export interface AppDeps extends ModuleServerDeps {
  readonly config: Pick<Config, "publicUrl" | "host" | "port"> & Partial<Pick<Config, "allowedHosts" | "fetchIdentity">> & ServeDeps["config"];
  readonly registry: Registry;
  readonly store: Store;
  readonly web: WebEngine;
  /** The search engine web/search asks (absent: none configured, and web/search is not in the registry). */
  readonly search?: SearchEngine | undefined;
  readonly payments: Payments;
  readonly paymentInfo: PaymentInfo;
  /** The x402 gate when payments are on (free payment lookups). */
  readonly gate?: PaymentGate | undefined;
  readonly log: Logger;
  readonly productVersion: string;
  /** Optional features and whether they work right now (read per request). */
  readonly features?: () => DocsContext["features"];
  readonly now?: () => Date;
  /** The language model for model skills (absent: none configured). */
  readonly llm?: ModelAccess;
}

export function createApp(deps: AppDeps) {
  const { registry, store, log } = deps;
  const startedAt = new Date();
  const now = deps.now ?? systemNow;
  const catalogue = buildCatalogue(registry, deps.llm ?? noModel);
  // Without --public-url (payments off only: serving refuses otherwise) the caller's validated Host.
  const baseUrl = baseUrlOf(deps.config.publicUrl);
  const doors = createDoorGuard(doorHostsOf(deps.config));
  // Documents built from the caller's Host must not be kept by a shared cache for everyone else.
  const cacheScope = deps.config.publicUrl ? "public" : "private";
  const skillSummaries = catalogue.skills.map((s) => ({ id: s.id, priceUsd: s.listPrice, async: s.async, timeoutSec: s.timeoutSec, available: s.engine?.available ?? true }));
  // The modules' input checks and facets, filled once the modules serve (below): a paid call reads them as it runs.
  const inputChecks: ((input: unknown) => void)[] = [];
  const moduleFacets: FacetMaker[] = [];
  // Built in paid-call/ and plugin/ with what they need, so a paid call and its plugin never call back into app.ts.
  // The job queue and the seal arrive with the modules' sale ports (below), before any call.
  const operationDeps = {
    ...paidCallDeps({
      payments: deps.payments,
      log,
      store,
      perMinute: deps.config.rateLimitPerMin,
      now,
      inputChecks,
      contextFor: callContexts({ log, store, facets: { web: deps.web, search: deps.search }, skills: skillSummaries, llm: deps.llm ?? noModel, now, moduleFacets }),
    }),
    now,
    publicUrl: baseUrl,
  } as Omit<OperationDeps, "queue"> as OperationDeps<SalePorts["queue"] extends JobQueue<infer J> ? J : never>;
  // Each feature module's service, built once: its facet for plugins, its documents' data, its routes, its timers.
  // Built after the paid operation they may sell through; plugin calls read the facets only once the app serves.
  // A module's service is built the first time it is asked for (another module's `services.x`), else in list order.
  const services = {} as ModuleServices;
  const moduleDeps: ServeDeps = {
    ...deps,
    services,
    store,
    config: deps.config,
    log,
    now,
    catalogue,
    operation: operationDeps,
    baseUrl,
  };
  const built = new Map<string, ModuleRuntime>();
  const building = new Set<string>();
  const runtimeOf = (m: TollboothModule): ModuleRuntime => {
    let runtime = built.get(m.id);
    if (runtime) return runtime;
    if (building.has(m.id)) throw new Error(`module ${m.id}: its service asks, through other modules' services, for its own`);
    building.add(m.id);
    runtime = m.serve?.(moduleDeps) ?? {};
    built.set(m.id, runtime);
    return runtime;
  };
  for (const m of modules) Object.defineProperty(services, m.id, { get: () => runtimeOf(m).service, enumerable: true });
  const runtimes = modules.map((m) => ({ id: m.id, module: m, runtime: runtimeOf(m) }));
  for (const { id, runtime } of runtimes) {
    if (runtime.checkInput) inputChecks.push(runtime.checkInput);
    if (runtime.facet) moduleFacets.push({ id, runtime: runtime as FacetMaker["runtime"] });
    // What the modules hand the paid core (the job queue, the evidence seal), as plain values: a paid call reads them without calling back into app.ts.
    Object.assign(operationDeps, runtime.salePorts);
  }
  if (!operationDeps.queue) throw new Error("no module hands the paid core a job queue (salePorts.queue)");
  const moduleDocs = Object.fromEntries(runtimes.filter((r) => r.runtime.docs !== undefined).map((r) => [r.id, r.runtime.docs]));
  // Each module's pass over its tables at start and then periodically while the app serves (a failure is logged; the next pass runs).
  const sweeps = modules.flatMap((m) => {
    const sweep = m.sweep;
    if (!sweep) return [];
    const pass = () => void sweep.run(store, now()).catch((error: Error) => log.error("module sweep failed", { module: m.id, error: error.message }));
    pass();
    const timer = setInterval(pass, sweep.everyMs);
    timer.unref?.();
    return [timer];
  });
  store.onClose(() => {
    for (const timer of sweeps) clearInterval(timer);
    for (const { runtime } of runtimes) runtime.stop?.();
  });

  // Each module's live figures for the documents (docs[id]), loaded before each rendering as the document declares (route.reads[id]).
  const withLiveDocs = runtimes.filter((r) => r.runtime.liveDocs);
  const liveDocsFor = (reads: FreeRoute["reads"]) => {
    const loaders = withLiveDocs.map(({ id, runtime }) => ({ id, reads: reads?.[id], runtime }));
    /** Puts each module's live figures into `docs`; a promise while one still loads from the store. */
    return (docs: Record<string, unknown>): Promise<unknown> | undefined => {
      let pending: Promise<unknown>[] | undefined;
      for (const { id, reads, runtime } of loaders) {
        const value = runtime.liveDocs!(reads);
        if (value instanceof Promise) (pending ??= []).push(value.then((loaded) => (docs[id] = loaded)));
        else docs[id] = value;
      }
      return pending && Promise.all(pending);
    };
  };

  const docsContext = (request: Request, context: RequestContext, route: FreeRoute): DocsContext => ({
    catalogue,
    payments: deps.paymentInfo,
    baseUrl: deps.config.publicUrl ?? context.origin,
    manager: store.settings.recentManager(),
    productVersion: deps.productVersion,
    startedAt,
    features: deps.features?.() ?? {},
    ...moduleDocs,
    // Only documents that read a query get one (parsing the URL is a fixed cost of every request).
    ...(route.query ? { query: new URL(request.url).searchParams } : {}),
  });

  const moduleRouteHandler =
    (route: ModuleRoute) =>
    ({ request, params }: { request: Request; params: Record<string, string> }) => {
      const context = contextOf(request);
      context.route = route.path;
      const fail = (error: unknown) => errorResponse(error, context, log);
      try {
        const answer = route.handle(request, routeCallOf(request, context.id, baseUrl(request), params));
        return answer instanceof Promise ? answer.catch(fail) : answer;
      } catch (error) {
        return fail(error);
      }
    };

  /** An agent door: refused before it runs, its answer granting CORS to the allowed Origin only. */
  const door = async (c: { request: Request; params: Record<string, string> }, answer: ReturnType<typeof moduleRouteHandler>) => {
    const context = contextOf(c.request);
    const admitted = doors.admit(c.request, context);
    return typeof admitted === "string" ? doors.grant(await answer(c), context, admitted) : admitted;
  };

  const renderDocument = createDocumentRenderer();
  const app = new Elysia({ normalize: false });

  app.onError(({ code, error, request }) => {
    const context = contextOf(request);
    if (code === "NOT_FOUND") return errorResponse(new ApiError("NOT_FOUND", { message: `No route ${request.method} ${new URL(request.url).pathname}.` }), context, log);
    if (code === "PARSE") return errorResponse(new ApiError("INVALID_JSON"), context, log);
    if (code === "VALIDATION") return errorResponse(new ApiError("INVALID_REQUEST", { message: String((error as Error).message).slice(0, 500) }), context, log);
    return errorResponse(error, context, log);
  });

  // The free documents: answered by the server before the router (serve.ts), and routed here for in-process callers.
  const freeAnswers = new Map<string, FreeAnswer>();
  for (const route of freeRoutesWith(modules.flatMap((m) => m.freeDocuments ?? []))) {
    const contentType = `${route.contentType}; charset=utf-8`;
    const caching: Record<string, string> = route.cacheSeconds ? { "cache-control": `${cacheScope}, max-age=${route.cacheSeconds}`, ...(deps.config.publicUrl ? {} : { vary: "Host" }) } : {};
    const textHeaders = readyHeaders({ "content-type": contentType });
    // A document with an ETag is reused between changes: its headers are built once per rendering.
    const documentHeaders = new WeakMap<RenderedDocument, { readonly ok: Headers; readonly notModified: Headers }>();
    const respond = (request: Request, context: RequestContext, document: RenderedDocument) => {
      context.route = route.path;
      const { etag } = document;
      if (!etag) return readyAnswer(document.text, 200, textHeaders, context);
      let headers = documentHeaders.get(document);
      if (!headers) documentHeaders.set(document, (headers = { ok: readyHeaders({ "content-type": contentType, etag, ...caching }), notModified: readyHeaders({ etag, ...caching }) }));
      if (request.headers.get("if-none-match")?.split(/\s*,\s*/).includes(etag)) return readyAnswer(null, 304, headers.notModified, context);
      return readyAnswer(documentBody(document), 200, headers.ok, context);
    };
    // A held document (route.heldForMs) is answered again until its time is up, with nothing read.
    let held: { readonly document: RenderedDocument; readonly until: number } | undefined;
    const hold = (document: RenderedDocument) => {
      if (route.heldForMs) held = { document, until: performance.now() + route.heldForMs };
      return document;
    };
    const render = (request: Request, context: RequestContext, docs: DocsContext) => {
      const document = renderDocument(route, docs);
      return document instanceof Promise ? document.then((d) => respond(request, context, hold(d))) : respond(request, context, hold(document));
    };
    const loadLive = liveDocsFor(route.reads);
    // Documents stay synchronous unless they read the store themselves; the live figures answer synchronously when they can.
    const answer: FreeAnswer = (request, context) => {
      if (held && performance.now() < held.until) return respond(request, context, held.document);
      const docs = docsContext(request, context, route);
      const loading = loadLive(docs as unknown as Record<string, unknown>);
      return loading ? loading.then(() => render(request, context, docs)) : render(request, context, docs);
    };
    freeAnswers.set(route.path, answer);
    app.get(route.path, ({ request }) => answer(request, contextOf(request)));
  }

  mountApiReference(app, { title: "Tollbooth", version: deps.productVersion });

  // spec web-evidence §7.3: after a timeout, inspect the original transaction before paying again.
  app.get("/v1/payments/:id", async ({ request, params }) => {
    const context = contextOf(request);
    context.route = "/v1/payments/:id";
    const found = await deps.gate?.lookup(params.id);
    if (!found) {
      return errorResponse(
        new ApiError("PAYMENT_NOT_FOUND", { message: deps.gate ? "No payment is known under that transaction id or nonce." : "Payments are off on this server." }),
        context,
        log,
      );
    }
    return jsonResponse({ ok: true, payment: found, request_id: context.id });
  });

  // Each module's routes, the declared ones and those its service built: the route is named here and a thrown error answered here.
  const mounted = new Set<string>();
  const doorPaths = new Set<string>();
  for (const { id, module, runtime } of runtimes) {
    for (const route of [...(module.routes ?? []), ...(runtime.routes ?? [])]) {
      const key = `${route.method} ${route.path}`;
      if (mounted.has(key)) throw new Error(`module ${id}: the route ${key} is mounted twice`);
      mounted.add(key);
      const answer = moduleRouteHandler(route);
      // An agent door checks Host and Origin before anything is read (http/door-guard.ts).
      const handle = route.door ? (c: { request: Request; params: Record<string, string> }) => door(c, answer) : answer;
      if (route.door && !doorPaths.has(route.path)) {
        doorPaths.add(route.path);
        app.options(route.path, ({ request }) => doors.preflight(request));
      }
      if (route.method === "GET") app.get(route.path, handle);
      else if (route.method === "DELETE") app.delete(route.path, handle);
      else app.post(route.path, handle, { parse: "none" });
    }
  }

  for (const entry of registry.plugins) {
    const route = entry.definition.route;
    const path = route.replace(/^POST /, "");
    app.post(
      path,
      async ({ request }) => {
        const context = contextOf(request);
        context.route = path;
        let input: Record<string, unknown>;
        try {
          input = await readJsonObject(request);
        } catch (error) {
          return errorResponse(error, context, log);
        }
        return runPaidOperation(operationDeps, { request, context, entry, input, route });
      },
      { parse: "none" },
    );
  }

  /** The agent doors (JSON-RPC a web page could post to): their preflights are the app's own (the door guard's). */
  return { app, freeAnswers, doorPaths: doorPaths as ReadonlySet<string> };
}

export type App = ReturnType<typeof createApp>["app"];
export type { PluginEntry };
