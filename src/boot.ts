/**
 * @module boot — turns a Config into a running service: store, registry, web engine,
 * payments, app, server. The CLI and the tests start Tollbooth through here.
 */
import packageJson from "../package.json" with { type: "json" };
import { createApp } from "./app.ts";
import type { Config } from "./config.ts";
import type { PaymentInfo } from "./docs/catalogue.ts";
import type { Payments } from "./http/payments.ts";
import { createRequestHandler, type RequestHandler, type RunningServer, startServer } from "./http/serve.ts";
import { createLogger, type Logger } from "./log.ts";
import { logOutputFor } from "./log-output.ts";
import { loadBuiltinFiles, loadExternalFiles } from "./plugin/load.ts";
import { buildRegistry, type LoadedFile, type Registry } from "./plugin/registry.ts";
import { openStore, type Store } from "./store/store.ts";
import { createWebEngine, type NavigationCheck, type WebEngine } from "./web/engine.ts";
import { createExtractPool, defaultExtractThreads, type ExtractPool } from "./web/extract-pool.ts";
import { createPdfThread, type PdfThread } from "./web/pdf-thread.ts";
import { rendererOptionsFromConfig } from "./web/render-config.ts";
import { type BrowserRenderer, createRenderer } from "./web/renderer.ts";
import { setUpPayments } from "./payments-setup.ts";
import type { PaymentGate } from "./x402/gate.ts";

export const productVersion: string = packageJson.version;

export function userAgentFor(config: Pick<Config, "contactUrl">): string {
  return `Tollbooth/${productVersion} (+${config.contactUrl})`;
}

/** Built-in files plus the operator's folder, validated together (throws RegistryError naming each bad declaration). */
export async function loadRegistry(config: Pick<Config, "plugins">): Promise<Registry> {
  const files: LoadedFile[] = loadBuiltinFiles();
  if (config.plugins) files.push(...(await loadExternalFiles(config.plugins)));
  return buildRegistry(files);
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
  /** The app's fetch wrapped with request ids, body cap and logging (usable without a socket). */
  readonly handle: RequestHandler;
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
}

/** The headless-browser renderer for render:true, or undefined when rendering is switched off. */
export function createRendererFor(config: Config): BrowserRenderer | undefined {
  const options = rendererOptionsFromConfig(config, { userAgent: userAgentFor(config) });
  return options ? createRenderer(options) : undefined;
}

/** The server's extraction threads, or undefined when extraction stays on the server's thread (--extract-workers 0). */
export function createExtractPoolFor(config: Pick<Config, "extractWorkers">): ExtractPool | undefined {
  const size = config.extractWorkers ?? defaultExtractThreads();
  return size > 0 ? createExtractPool({ size }) : undefined;
}

/** The web engine with the renderer (and, in the server, the extraction threads) wired in; `tollbooth read` extracts in-thread. */
export function createWebEngineFor(config: Config, renderer: BrowserRenderer | undefined, extractPool?: ExtractPool, pdfThread?: PdfThread): WebEngine {
  return createWebEngine({
    userAgent: userAgentFor(config),
    allowLoopbackTargets: config.unsafeAllowLoopbackTargets,
    ...(renderer ? { renderer: (url: string, signal: AbortSignal, checkNavigation?: NavigationCheck) => renderer.render(url, signal, checkNavigation) } : {}),
    ...(extractPool ? { extractHtml: extractPool.extract } : {}),
    ...(pdfThread ? { readPdf: pdfThread.read } : {}),
  });
}

/** How often pending settlements and abandoned reservations are reconciled. */
const reconcileEveryMs = 60_000;

export async function buildService(config: Config, options: BuildServiceOptions = {}): Promise<Service> {
  const logOutput = options.log ? undefined : logOutputFor(config);
  const log = options.log ?? createLogger({ level: config.logLevel, sink: logOutput!.sink });
  const registry = await loadRegistry(config);
  const store = openStore(config.data);
  const renderer = options.web ? undefined : createRendererFor(config);
  const extractPool = options.web ? undefined : createExtractPoolFor(config);
  // PDFs are read on their own thread (started on the first one) so mupdf never holds the event loop.
  const pdfThread = options.web ? undefined : createPdfThread();
  const web = options.web ?? createWebEngineFor(config, renderer, extractPool, pdfThread);
  let setup;
  try {
    setup = options.payments
      ? { ...options.payments, gate: undefined, refundSenders: undefined }
      : await setUpPayments(config, store.db, { fetch: options.facilitatorFetch, pollingIntervalMs: options.pollingIntervalMs });
  } catch (error) {
    store.close();
    await extractPool?.close();
    await pdfThread?.close();
    throw error;
  }
  const { payments, info, gate, refundSenders } = setup;
  let reconciler: ReturnType<typeof setInterval> | undefined;
  if (gate) {
    const reconcile = () =>
      gate.reconcile().then(
        (r) => (r.settled || r.failed || r.released ? log.info("payments reconciled", r) : undefined),
        (error: Error) => log.warn("payment reconciliation failed", { error: error.message }),
      );
    void reconcile();
    reconciler = setInterval(reconcile, reconcileEveryMs);
    reconciler.unref?.();
  }
  const features = () => ({ render: renderer ? renderer.status() : { available: false, detail: options.web ? "engine supplied by the caller" : "render is off (--render off)" } });
  const app = createApp({ config, registry, store, web, payments, paymentInfo: info, gate, log, productVersion, features, ...(refundSenders ? { refundSenders } : {}) });
  const handle = createRequestHandler((request) => app.fetch(request), { log, outcomes: store.requestOutcomes, logRequests: config.logRequests });
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
    handle,
    async close() {
      if (reconciler) clearInterval(reconciler);
      await renderer?.close();
      await extractPool?.close();
      await pdfThread?.close();
      store.close();
      logOutput?.flush();
    },
  };
}

export interface RunningService extends Service {
  readonly server: RunningServer;
}

export async function startService(config: Config, options: BuildServiceOptions = {}): Promise<RunningService> {
  const service = await buildService(config, options);
  const server = startServer(service.handle, { host: config.host, port: config.port });
  return {
    ...service,
    server,
    async close() {
      await server.stop();
      await service.close();
    },
  };
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
    `  docs:      /openapi.json /v1/capabilities /llms.txt /skill.md`,
  ];
  if (config.payments === "off" && config.host !== "127.0.0.1" && config.host !== "localhost") {
    lines.push(`  WARNING: payments are off and the server is reachable on ${config.host}: anyone who can reach it uses it for free.`);
  }
  if (config.unsafeAllowLoopbackTargets) {
    lines.push("  WARNING: --unsafe-allow-loopback-targets is ON: the fetcher may reach 127.0.0.0/8 on any port. For tests and benchmarks only.");
  }
  return lines;
}
