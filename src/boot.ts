/**
 * @module boot — turns a Config into a running service: store, registry, web engine,
 * payments, app, server. The CLI and the tests start Tollbooth through here.
 */
import packageJson from "../package.json" with { type: "json" };
import type { Metrics } from "./admin/metrics.ts";
import { createApp } from "./app.ts";
import { type Config, ConfigError, isLoopbackHost, localTryNotice, servingProblems, storeProblems } from "./config.ts";
import type { PaymentInfo } from "./x402/payment-info.ts";
import type { Payments } from "./paid-call/payments.ts";
import { type ClientResolver, createClientResolver, parseTrustedProxies } from "./http/client-address.ts";
import { type RequestHandler, type RunningServer, startServer } from "./http/serve.ts";
import { createRequestHandler } from "./serve.ts";
import { createFreeTally } from "./http/free-tally.ts";
import { createLogger, type Logger } from "./log.ts";
import { holdMemoryValve } from "./memory-valve.ts";
import { logOutputFor } from "./log-output.ts";
import { loadRegistry } from "./loader/registry.ts";
import { pricingFor } from "./plugin/price.ts";
import type { Registry } from "./plugin/registry.ts";
import { searchEngineFor } from "./search/search-config.ts";
import { writeServerMark } from "./store/server-lock.ts";
import { familiesNotOnPostgres, openPgStore, openStore, type Store } from "./database.ts";
import { startHeartbeat } from "./store/heartbeat.ts";
import type { EvidenceKeys } from "./evidence/key-file.ts";
import { createRequestSigner, type RequestSigner } from "./fetch-identity/request-signer.ts";
import { type ArchiveSpec, createWebEngine, type NavigationCheck, type ScreenshotSpec, type WebEngine, type WebEngineOptions } from "./web/engine.ts";
import { signWaczHash } from "./evidence/wacz-signing.ts";
import { createExtractPool, defaultExtractThreads, type ExtractPool, warmExtractPool } from "./web/threads/extract-pool.ts";
import { createPdfThread, type PdfThread } from "./web/threads/pdf-thread.ts";
import { rendererOptionsFromConfig } from "./web/render/render-config.ts";
import { type BrowserRenderer, createRenderer } from "./web/render/renderer.ts";
import { configuredNetworks, setUpPayments } from "./configured-payments.ts";
import { createModelAccess } from "./llm/configured-model.ts";
import { resolveLlm } from "./llm/config.ts";
import type { PaymentGate } from "./x402/gate.ts";
import { type PaymentUpstreams, upstreamsLine, watchPaymentUpstreams } from "./doctor/payment-upstreams.ts";

export const productVersion: string = packageJson.version;

export function userAgentFor(config: Pick<Config, "contactUrl">): string {
  return `Tollbooth/${productVersion} (+${config.contactUrl})`;
}

export interface Service {
  readonly config: Config;
  readonly registry: Registry;
  readonly store: Store;
  readonly web: WebEngine;
  readonly log: Logger;
  /** The x402 gate when payments are on. */
  readonly gate: PaymentGate | undefined;
  readonly paymentInfo: PaymentInfo;
  /** One line on JavaScript rendering for the banner. */
  renderStatus(): string;
  /**
   * Starts the browser now rather than at the first render and warms the extraction threads (nothing when rendering
   * is off); settles when a render would find both ready (the same promise on every call); never throws.
   */
  warmRenderer(): Promise<void>;
  /** The app's fetch wrapped with request ids, body cap and logging (usable without a socket). */
  readonly handle: (request: Request, client: Parameters<RequestHandler>[1]) => Promise<Response>;
  /** The same handler as the server runs it: a free document's answer comes back without a promise. */
  readonly serve: RequestHandler;
  /** Who the clients are (behind --trust-proxy) and which peers were seen. */
  readonly clients: ClientResolver;
  /** Prometheus metrics, built when the admin listener is on (--admin-port). */
  readonly metrics: Metrics | undefined;
  /** The port the server listens on, once started. */
  readonly listening: { port: number };
  /** With payments on: whether the facilitator and RPC/algod endpoints answer (checked from the start; /health shows it). */
  readonly paymentUpstreams: PaymentUpstreams | undefined;
  close(): Promise<void>;
}

export interface BuildServiceOptions {
  readonly log?: Logger;
  /** Tests inject a resolver or other web engine options. */
  readonly web?: WebEngine;
  readonly payments?: { payments: Payments; info: PaymentInfo };
  /** fetch used for remote facilitators (tests point it at a loopback facilitator). */
  readonly facilitatorFetch?: typeof fetch;
  /** Receipt polling for local EVM settlement (tests use less than the 1 s default). */
  readonly pollingIntervalMs?: number;
  /** Benchmarks only: results go out unsigned (scripts/bench/evidence-signing.ts measures what signing costs). */
  readonly unsignedEvidence?: boolean;
  /** How soon an unreachable facilitator or RPC/algod is asked again (tests use less than the 15 s default). */
  readonly upstreamRetryMs?: number;
}

/** The model skills' access: none without --llm-base-url (throws naming the setting when one is unusable). */
export function createModelAccessFor(config: Config, web: WebEngine, log: Logger) {
  const settings = resolveLlm(config);
  return settings ? createModelAccess(settings, { web, log }) : undefined;
}

/** The headless-browser renderer for render:true, or undefined when rendering is switched off. */
export function createRendererFor(config: Config, signRequest?: RequestSigner): BrowserRenderer | undefined {
  const options = rendererOptionsFromConfig(config, { userAgent: userAgentFor(config) });
  return options ? createRenderer({ ...options, ...(signRequest ? { signRequest } : {}) }) : undefined;
}

/** The server's extraction threads, or undefined when extraction stays on the server's thread (--extract-workers 0). */
export function createExtractPoolFor(config: Pick<Config, "extractWorkers">): ExtractPool | undefined {
  const size = config.extractWorkers ?? defaultExtractThreads();
  return size > 0 ? createExtractPool({ size }) : undefined;
}

/** The web engine with the renderer (and, in the server, the extraction threads, the fetch identity and the archive signer) wired in; `tollbooth read` extracts in-thread and signs nothing. */
export function createWebEngineFor(config: Config, renderer: BrowserRenderer | undefined, extractPool?: ExtractPool, pdfThread?: PdfThread, signRequest?: RequestSigner, signArchive?: WebEngineOptions["signArchive"]): WebEngine {
  return createWebEngine({
    ...(signArchive ? { signArchive } : {}),
    userAgent: userAgentFor(config),
    allowLoopbackTargets: config.unsafeAllowLoopbackTargets,
    ...(signRequest ? { signRequest } : {}),
    ...(renderer
      ? {
          renderer: (url: string, signal: AbortSignal, checkNavigation?: NavigationCheck) => renderer.render(url, signal, checkNavigation),
          screenshotter: (url: string, spec: ScreenshotSpec, signal: AbortSignal, checkNavigation?: NavigationCheck) => renderer.screenshot(url, spec, signal, checkNavigation),
          archiver: (url: string, spec: ArchiveSpec, signal: AbortSignal, checkNavigation?: NavigationCheck) => renderer.archive(url, spec, signal, checkNavigation),
        }
      : {}),
    ...(extractPool ? { extractHtml: extractPool.extract } : {}),
    ...(pdfThread ? { readPdf: pdfThread.read } : {}),
  });
}

/** How often pending settlements and abandoned reservations are reconciled. */
const reconcileEveryMs = 60_000;

export async function buildService(config: Config, options: BuildServiceOptions = {}): Promise<Service> {
  const logOutput = options.log ? undefined : logOutputFor(config);
  const log = options.log ?? createLogger({ level: config.logLevel, sink: logOutput!.sink });
  const networks = await configuredNetworks(config);
  const registry = await loadRegistry(config, pricingFor(networks));
  const store = config.databaseUrl
    ? await openPgStore(config.databaseUrl, { warn: (message, error) => log.warn(message, { error: error.message }) })
    : openStore(config.data);
  // The fetch identity signs with the evidence keys, opened below: its signer waits for them.
  const identityKeys = Promise.withResolvers<EvidenceKeys>();
  identityKeys.promise.catch(() => undefined);
  const signRequest =
    config.fetchIdentity === "on" && config.publicUrl ? createRequestSigner({ publicUrl: config.publicUrl, currentKey: async () => (await identityKeys.promise).current() }) : undefined;
  const renderer = options.web ? undefined : createRendererFor(config, signRequest);
  const valve = options.web || config.memorySoftLimitMb === 0 ? undefined : holdMemoryValve(config.memorySoftLimitMb * 1024 * 1024);
  const extractPool = options.web ? undefined : createExtractPoolFor(config);
  // PDFs are read on their own thread (started on the first one) so mupdf never holds the event loop.
  const pdfThread = options.web ? undefined : createPdfThread();
  // prom-client loads only with the admin listener (a chunk of its own in the binary).
  const metrics = config.adminPort !== undefined ? (await import("./admin/metrics.ts")).createMetrics({ store, renderer, extractThreads: extractPool }) : undefined;
  const web =
    options.web ??
    createWebEngineFor(
      config,
      renderer && metrics ? { ...renderer, render: metrics.timeRender(renderer.render) } : renderer,
      extractPool && metrics ? { ...extractPool, extract: metrics.timeExtraction(extractPool.extract) } : extractPool,
      pdfThread,
      signRequest,
      // Archives are signed with the evidence key opened just below (before any request can arrive).
      async (hash) => {
        if (!evidenceKeys) throw new Error("the evidence keys are not open yet");
        return signWaczHash(hash, await evidenceKeys.current(), `Tollbooth ${productVersion}`);
      },
    );
  let setup;
  let llm;
  let evidenceKeys: EvidenceKeys | undefined;
  try {
    evidenceKeys = await store.evidenceKeys.open();
    identityKeys.resolve(evidenceKeys);
    llm = createModelAccessFor(config, web, log);
    setup = options.payments
      ? { ...options.payments, gate: undefined, refundSenders: undefined }
      : await setUpPayments(config, networks, store.receipts, { fetch: options.facilitatorFetch, pollingIntervalMs: options.pollingIntervalMs, receiptKeys: evidenceKeys, deliveryRefunds: { ledger: store.deliveryRefunds, log } });
  } catch (error) {
    identityKeys.reject(error);
    valve?.stop();
    await store.close();
    await extractPool?.close();
    await pdfThread?.close();
    throw error;
  }
  const { info, gate, refundSenders } = setup;
  const payDeliveryRefunds = "payDeliveryRefunds" in setup ? setup.payDeliveryRefunds : undefined;
  const deliveryRefunds = "deliveryRefunds" in setup ? setup.deliveryRefunds : undefined;
  const settlers = gate ? await (await import("./x402/settler-addresses.ts")).settlerAddresses(gate.state.networks) : [];
  const heartbeat = await startHeartbeat(store.instances, { settlers, warn: (message, error) => log.warn(message, { error: error.message }) });
  const payments = metrics ? metrics.instrumentPayments(setup.payments) : setup.payments;
  const paymentUpstreams = gate ? watchPaymentUpstreams(config, { ...(options.upstreamRetryMs ? { retryMs: options.upstreamRetryMs } : {}) }) : undefined;
  paymentUpstreams?.onChange((status) => (status.available ? log.info(upstreamsLine(status)) : log.warn(upstreamsLine(status))));
  let reconciler: ReturnType<typeof setInterval> | undefined;
  if (gate) {
    const reconcile = () => {
      void payDeliveryRefunds?.();
      return gate.reconcile().then(
        (r) => (r.settled || r.failed || r.released ? log.info("payments reconciled", r) : undefined),
        (error: Error) => log.warn("payment reconciliation failed", { error: error.message }),
      );
    };
    void reconcile();
    reconciler = setInterval(reconcile, reconcileEveryMs);
    reconciler.unref?.();
  }
  // Read by every free document: the same object for a second at a time (the documents reuse their text by it).
  type Feature = { readonly available: boolean; readonly detail: string };
  type Features = { readonly render: Feature; readonly local_try?: Feature; readonly settlement?: Feature };
  const localTry = config.localTry ? { local_try: { available: true, detail: localTryNotice } } : {};
  let featuresHeld: { readonly value: Features; readonly until: number } | undefined;
  const features = (): Features => {
    const now = performance.now();
    if (!featuresHeld || now >= featuresHeld.until) {
      const render = renderer ? renderer.status() : { available: false, detail: options.web ? "engine supplied by the caller" : "render is off (--render off)" };
      featuresHeld = { value: { render, ...localTry, ...(paymentUpstreams ? { settlement: paymentUpstreams.status() } : {}) }, until: now + 1000 };
    }
    return featuresHeld.value;
  };
  // The port signed evidence names without --public-url: --port until the server listens (--port 0 picks one).
  const listening = { port: config.port };
  const search = searchEngineFor(config);
  const { app, freeAnswers, doorPaths } = createApp({ config, registry, store, web, search, payments, paymentInfo: info, gate, log, productVersion, features, evidenceKeys, listeningPort: () => listening.port, ...(options.unsignedEvidence ? { unsignedEvidence: true } : {}), ...(refundSenders ? { refundSenders } : {}), ...(deliveryRefunds ? { deliveryRefunds } : {}), ...(llm ? { llm } : {}) });
  const trusted = config.trustProxy ? parseTrustedProxies(config.trustProxy) : undefined;
  const clients = createClientResolver(trusted && !("problems" in trusted) ? trusted : undefined);
  const freeTally = config.logRequests === "all" ? undefined : createFreeTally(log);
  // Elysia's own handler, handed in as it is (no closure of ours between the seam and app.ts's routes).
  const serve = createRequestHandler(app.fetch, {
    log,
    freeAnswers,
    outcomes: store.requestOutcomes,
    clients,
    requestTimeoutMs: config.requestTimeoutMs,
    logRequests: config.logRequests,
    freeTally,
    ownPreflights: doorPaths,
    ...(metrics ? { observe: (r: Parameters<Metrics["observeRequest"]>[0]) => metrics.observeRequest(r) } : {}),
  });
  let rendererWarm: Promise<void> | undefined;
  return {
    config,
    registry,
    store,
    web,
    log,
    gate,
    paymentInfo: info,
    renderStatus: () => {
      const f = features().render;
      return f.available ? `on (${f.detail})` : `unavailable: ${f.detail}`;
    },
    listening,
    // The browser and a ready context, then the extraction its pages go through: the first render after start pays for neither.
    warmRenderer: () =>
      (rendererWarm ??= (async () => {
        await renderer?.warm();
        if (renderer?.status().available && extractPool) await warmExtractPool(extractPool);
      })()),
    handle: async (request, clientIp) => serve(request, clientIp),
    serve,
    clients,
    metrics,
    paymentUpstreams,
    async close() {
      if (reconciler) clearInterval(reconciler);
      paymentUpstreams?.stop();
      freeTally?.stop();
      await heartbeat.stop();
      valve?.stop();
      if (valve && valve.stats().collections > 0) log.info("memory valve", { soft_limit_mb: config.memorySoftLimitMb, ...valve.stats() });
      metrics?.close();
      await renderer?.close();
      await extractPool?.close();
      await pdfThread?.close();
      await store.close();
      logOutput?.flush();
    },
  };
}

export interface RunningService extends Service {
  readonly server: RunningServer;
  /** The admin listener (--admin-port), when on. */
  readonly admin: RunningServer | undefined;
}

export async function startService(config: Config, options: BuildServiceOptions = {}): Promise<RunningService> {
  const problems = [...servingProblems(config), ...storeProblems(config, familiesNotOnPostgres())];
  if (problems.length > 0) throw new ConfigError(problems);
  const service = await buildService(config, options);
  let server: RunningServer;
  try {
    server = startServer(service.serve, { host: config.host, port: config.port, log: service.log });
    service.listening.port = server.port;
  } catch (error) {
    // A port already taken leaves nothing running behind it (the store, its workers, the timers).
    await service.close();
    throw error;
  }
  let admin: RunningServer | undefined;
  if (service.metrics && config.adminPort !== undefined) {
    const { createAdminHandler } = await import("./admin/listener.ts");
    const handleAdmin = createAdminHandler({
      store: service.store,
      metrics: service.metrics,
      clients: service.clients,
      log: service.log.child({ listener: "admin" }),
      token: config.adminToken,
      trustProxy: config.trustProxy,
    });
    try {
      admin = startServer((request) => handleAdmin(request), { host: config.adminHost, port: config.adminPort, log: service.log });
    } catch (error) {
      await server.stop();
      await service.close();
      throw new Error(`the admin listener cannot bind ${config.adminHost}:${config.adminPort}: ${(error as Error).message}`);
    }
  }
  // Off the start's clock: the server answers while Chromium launches (~1 s); a render arriving meanwhile waits for the same launch.
  if (config.renderWarm === "on") void service.warmRenderer();
  // Marks the data folder as held (tollbooth restore refuses while it is; doctor finds the admin port).
  const clearMark = config.data === ":memory:" ? () => {} : writeServerMark(config.data, { port: server.port, ...(admin ? { adminPort: admin.port } : {}) });
  return {
    ...service,
    server,
    admin,
    async close() {
      clearMark();
      await admin?.stop();
      await server.stop();
      await service.close();
    },
  };
}

/** One banner line on the language model (never the key). */
function llmStatus(config: Config): string {
  const settings = resolveLlm(config);
  if (!settings) return "none (--llm-base-url): grok.prompt refuses with 503; web.brief and code.fix_from_log use their offline engines";
  const others = [...new Set(Object.values(settings.models))].filter((m) => m !== settings.defaultModel);
  return `${settings.defaultModel}${others.length ? ` (+ ${others.join(", ")})` : ""} at ${settings.baseUrl}`;
}

/** The lines an operator reads at start: where it listens, and what is on and off. */
export function banner(service: RunningService): string[] {
  const { config, registry } = service;
  const lines = [
    `Tollbooth ${productVersion} listening on ${service.server.url.toString().replace(/\/$/, "")}`,
    `  data:      ${service.store.path}`,
    `  payments:  ${config.payments === "on" ? `ON (x402 v2): ${service.paymentInfo.networks.map((n) => `${n.network} → ${n.payTo}`).join(", ")}` : "OFF: every call is free; bound to " + config.host}`,
    `  plugins:   ${registry.plugins.length} endpoints, ${registry.skills.length} skills${config.plugins ? ` (external folder ${config.plugins})` : ""}`,
    `  render:    ${service.renderStatus()}`,
    `  model:     ${llmStatus(config)}`,
    `  docs:      /docs (interactive) /openapi.json /v1/capabilities /llms.txt /skill.md`,
    `  admin:     ${service.admin ? `${service.admin.url.toString().replace(/\/$/, "")} (dashboard, /metrics${config.adminToken ? "; token required" : ""})` : "off (--admin-port N for /metrics and the dashboard)"}`,
  ];
  if (config.payments === "off" && config.host !== "127.0.0.1" && config.host !== "localhost") {
    lines.push(`  WARNING: payments are off and the server is reachable on ${config.host}: anyone who can reach it uses it for free.`);
  }
  if (config.localTry) {
    const rule = `  ${"!".repeat(78)}`;
    lines.push(rule, `  LOCAL-TRY MODE (--local-try): ${localTryNotice}`, "  Never start a server others can reach with --local-try.", rule);
  } else if (config.unsafeAllowLoopbackTargets) {
    lines.push("  WARNING: --unsafe-allow-loopback-targets is ON: the fetcher may reach 127.0.0.0/8 on any port. For tests and benchmarks only.");
    if (!isLoopbackHost(config.host)) lines.push(`  WARNING: and the server is reachable on ${config.host}: callers can make it read this machine's own services.`);
  }
  return lines;
}
