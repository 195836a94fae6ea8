/**
 * @module web/render/render-page — one render in a fresh tab of a render context (render-context.ts): configure the page
 * (requests blocked by type, navigations vetted, dialogs dismissed, service workers refused),
 * navigate, wait for the page to settle or a cap, and return the rendered DOM.
 */
import type { CDPSession, HTTPResponse, Page, Protocol } from "puppeteer-core";
import { ApiError } from "../../errors.ts";
import type { NavigationCheck, RenderedPage } from "./contract.ts";
import { outcomeWithin } from "./outcome-within.ts";
import { type TargetPolicy, vetTarget } from "../fetch/target-guard.ts";

/**
 * Request types text extraction never needs, failed before they are sent (CDP resource types).
 * Stylesheets and scripts stay: pages' scripts may wait on them to build content.
 */
/** One caller's tab in a render context (render-context.ts): used by exactly one render or screenshot, then closed. */
export interface RenderTab {
  page: Page;
  lane: ContextLane;
  guard: RequestGuard;
}

export const BLOCKED_RESOURCE_TYPES: readonly Protocol.Network.ResourceType[] = [
  "Image",
  "Media",
  "Font",
  "TextTrack",
  "Manifest",
  "Ping",
  "CSPViolationReport",
  "Prefetch",
  "FedCM",
];

/**
 * What a screenshot still fails before it is sent: it needs the page's images and fonts to show it,
 * but never audio or video (large, and a frame of them is not worth the bytes), prefetches or pings.
 */
export const SCREENSHOT_BLOCKED_RESOURCE_TYPES: readonly Protocol.Network.ResourceType[] = BLOCKED_RESOURCE_TYPES.filter(
  (type) => type !== "Image" && type !== "Font",
);

/** How long after a failed navigation a crash of the page's renderer is still taken as its cause. */
const CRASH_REPORT_MS = 250;

export const UNSETTLED_WARNING = "The page had not settled when the render cap was reached; the render may be incomplete.";

export interface PageRenderOptions {
  navigationTimeoutMs: number;
  /** Cap on waiting for the load event and network quiet after DOMContentLoaded. */
  settleTimeoutMs: number;
  /** How long the network must stay idle to count as quiet. */
  quietMs: number;
  /** The rendered DOM larger than this (UTF-16 units) is refused as SOURCE_TOO_LARGE. */
  maxHtmlChars: number;
  policy: TargetPolicy;
  /** Asked for every later main-frame navigation (redirect hop, script navigation), e.g. robots.txt. */
  checkNavigation?: NavigationCheck;
  /** Request types failed before they are sent (default BLOCKED_RESOURCE_TYPES; a screenshot loads images and fonts). */
  blockedResourceTypes?: readonly Protocol.Network.ResourceType[];
  /** Web Bot Auth headers for each http(s) request the page lets through (fetch-identity/request-signer.ts). */
  signRequest?: (url: URL) => Promise<Record<string, string>>;
}

export interface RenderedDom extends RenderedPage {
  warnings: string[];
}

/** The context's own way out through the guard proxy (see proxy-guard.ts). */
export interface ContextLane {
  url: string;
  /** A render starts: nothing admitted yet, requests admitted from now on. */
  begin(): void;
  /** Lets the page's request to `url` through the lane (host and port; the proxy still vets it). */
  admit(url: string): void;
  /** The render is over: the lane admits nothing more. */
  end(): void;
  /** Drops the lane's open connections (the lane stays, for the context's next render). */
  drop(): void;
  close(): Promise<void>;
}

/** What a render tells its caller while it runs. */
export interface RenderProgress {
  /**
   * The page has loaded and its network has been idle for a third of the quiet window: it is most
   * likely done, and the render only waits out the window. The moment for browser work off this
   * render's critical path. Not called when the page never goes quiet.
   */
  onQuieting?(): void;
}

/** A page navigated to its URL and settled (or past the settle cap), ready to be read or captured. */
export interface LoadedPage {
  page: Page;
  /** Status of the main document (200 when unknown). */
  status: number;
  /** The network went quiet before the settle cap. */
  settled: boolean;
  /** Rejects when the page's renderer crashes: race every later step against it. */
  crashed: Promise<never>;
  /** Throws the refusal of a main-frame navigation that happened after the load (a script navigation). */
  assertNoLateRefusal(): void;
}

/** Navigates the context's page to `url` and waits for it to settle (or the cap). The caller owns the deadline and closes the context. */
export async function loadInContext(
  { page, guard }: RenderTab,
  url: string,
  options: PageRenderOptions,
  signal: AbortSignal,
  progress: RenderProgress = {},
): Promise<LoadedPage> {
  const crashed = new Promise<never>((_, reject) => {
    page.once("error", (error) => reject(new ApiError("RENDER_FAILED", { message: "The page's renderer crashed.", cause: error })));
  });
  crashed.catch(() => undefined);
  guard.arm(url, options, signal);
  const loaded = new Promise<void>((resolve) => page.once("load", () => resolve()));

  let response: HTTPResponse | null;
  try {
    response = await Promise.race([page.goto(url, { waitUntil: "domcontentloaded", timeout: options.navigationTimeoutMs }), crashed]);
  } catch (error) {
    const refusal = guard.refusal();
    if (refusal) throw refusal;
    // A renderer that dies mid-navigation fails the navigation (net::ERR_…) just before it reports the crash:
    // that is the browser failing, not the source.
    if ((await outcomeWithin(crashed, CRASH_REPORT_MS)) === "rejected") throw new ApiError("RENDER_FAILED", { message: "The page's renderer crashed.", cause: error });
    throw describeNavigationFailure(error);
  }
  const mainRefusal = guard.refusal();
  if (mainRefusal) throw mainRefusal;
  if (response?.headers()["x-tollbooth-proxy"] === "refused") {
    throw new ApiError("TARGET_NOT_PUBLIC", { message: "The page's address was refused by the render guard." });
  }
  const contentType = response?.headers()["content-type"] ?? "";
  if (/\bapplication\/pdf\b/i.test(contentType)) {
    throw new ApiError("PDF_NOT_SUPPORTED_HERE", { message: "The source is a PDF: read it with POST /v1/pdf/read." });
  }

  const quietFor = (idleTime: number) =>
    Promise.all([loaded, page.waitForNetworkIdle({ idleTime, timeout: options.settleTimeoutMs, concurrency: 0 })]);
  const quiet = quietFor(options.quietMs);
  const { onQuieting } = progress;
  if (onQuieting) quietFor(Math.round(options.quietMs / 3)).then(() => onQuieting(), () => undefined);
  const settled = (await Promise.race([outcomeWithin(quiet, options.settleTimeoutMs), crashed])) === "fulfilled";
  return {
    page,
    status: response?.status() ?? 200,
    settled,
    crashed,
    assertNoLateRefusal() {
      // A script navigation to a refused address fails the render like a refused redirect would.
      const lateRefusal = guard.refusal();
      if (lateRefusal) throw lateRefusal;
    },
  };
}

/** Renders `url` in the context's page and returns its DOM. The caller owns the deadline and closes the context. */
export async function renderInContext(
  context: RenderTab,
  url: string,
  options: PageRenderOptions,
  signal: AbortSignal,
  progress: RenderProgress = {},
): Promise<RenderedDom> {
  const loaded = await loadInContext(context, url, options, signal, progress);
  const html = await Promise.race([loaded.page.content(), loaded.crashed]);
  loaded.assertNoLateRefusal();
  if (html.length > options.maxHtmlChars) throw new ApiError("SOURCE_TOO_LARGE", { message: "The rendered page is larger than the size limit." });
  return {
    html,
    finalUrl: loaded.page.url(),
    status: loaded.status,
    warnings: loaded.settled ? [] : [UNSETTLED_WARNING],
  };
}

/** The page's request guard; requests before `arm` (there should be none) are failed. */
export interface RequestGuard {
  arm(initialUrl: string, options: PageRenderOptions, signal: AbortSignal): void;
  /** The reason a main-frame navigation was refused, if one was. */
  refusal(): ApiError | undefined;
  /** Origins of every document the page asked for, in any frame (what the context may keep storage for). */
  documentOrigins(): string[];
  /** A frame asked for a document from an origin the main frame never showed (storage partitioned under it). */
  foreignFrames(): boolean;
}

/**
 * Sets the page up for a render before the render needs it: dialogs dismissed, service workers
 * bypassed and refused, and every request paused so blocked resource types fail before they are
 * sent and document requests are vetted. A refused main-frame navigation is remembered so the
 * render fails with its reason. Each request let through is admitted on the context's lane first:
 * the lane lets through only what the page asked for.
 */
export async function prepareRenderPage(page: Page, lane: ContextLane): Promise<RequestGuard> {
  page.on("dialog", (dialog) => void dialog.dismiss().catch(() => undefined));
  const cdp: CDPSession = await page.createCDPSession();
  const tree = await cdp.send("Page.getFrameTree");
  const mainFrameId = tree.frameTree.frame.id;
  let armed: { initialUrl: string; options: PageRenderOptions; signal: AbortSignal; blocked: ReadonlySet<string> } | undefined;
  let mainRefusal: ApiError | undefined;
  /** A main-frame document request has gone out for this render (its first navigation has started). */
  let navigated = false;
  const mainOrigins = new Set<string>();
  const frameOrigins = new Set<string>();
  cdp.on("Fetch.requestPaused", (event: Protocol.Fetch.RequestPausedEvent) => {
    void (async () => {
      // The favicon is fetched as "Other" with an image Accept header.
      if (!armed || armed.blocked.has(event.resourceType) || (event.resourceType === "Other" && /^image\//.test(event.request.headers.Accept ?? ""))) {
        await cdp.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" });
        return;
      }
      if (event.resourceType !== "Document") {
        lane.admit(event.request.url);
        await cdp.send("Fetch.continueRequest", await continuation(event, armed.options));
        return;
      }
      const { initialUrl, options, signal } = armed;
      const isMain = event.frameId === mainFrameId;
      (isMain ? mainOrigins : frameOrigins).add(originOf(event.request.url));
      if (isMain && !navigated && isSchemeUpgrade(event.request.url, initialUrl)) {
        // Chromium tried the https twin of the http URL asked for before it (HTTPS upgrades, switched off at
        // launch; this holds if a release turns them back on). Failed as a refused connection, on which the
        // browser falls back to the URL asked for at once (a blocked request would fail the navigation), and
        // without a refusal: the https origin's robots.txt is neither fetched nor cached for later renders.
        await cdp.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "ConnectionRefused" });
        return;
      }
      try {
        const target = await vetTarget(event.request.url, options.policy);
        if (isMain && options.checkNavigation && target.url.href !== initialUrl) await options.checkNavigation(target.url, signal);
      } catch (error) {
        if (isMain) mainRefusal ??= error instanceof ApiError ? error : new ApiError("URL_NOT_ALLOWED", { cause: error });
        await cdp.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "BlockedByClient" });
        return;
      }
      if (isMain) navigated = true;
      lane.admit(event.request.url);
      await cdp.send("Fetch.continueRequest", await continuation(event, options));
      // A request that could not be signed (or vetted) is failed, never left paused or sent without its identity.
    })().catch(() => cdp.send("Fetch.failRequest", { requestId: event.requestId, errorReason: "Failed" }).catch(() => undefined));
  });
  await Promise.all([
    // Every request pauses here (Chromium's fetch filter does not know every resource type, e.g. TextTrack).
    cdp.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] }),
    cdp.send("Network.setBypassServiceWorker", { bypass: true }),
    page.evaluateOnNewDocument(refuseServiceWorkers),
    page.evaluateOnNewDocument(refusePopups),
  ]);
  return {
    arm(initialUrl, options, signal) {
      lane.begin();
      armed = { initialUrl, options, signal, blocked: new Set(options.blockedResourceTypes ?? BLOCKED_RESOURCE_TYPES) };
    },
    refusal: () => mainRefusal,
    documentOrigins: () => [...new Set([...mainOrigins, ...frameOrigins])],
    foreignFrames: () => [...frameOrigins].some((origin) => !mainOrigins.has(origin)),
  };
}

/**
 * How a paused request goes on: unchanged, or with the fetch identity's headers added to the ones the
 * browser set (CDP replaces the whole header list when one is given). Tunnelled HTTPS cannot be
 * changed at the proxy, so the browser is where its requests are signed.
 */
async function continuation(event: Protocol.Fetch.RequestPausedEvent, options: PageRenderOptions): Promise<Protocol.Fetch.ContinueRequestRequest> {
  if (!options.signRequest || !/^https?:/i.test(event.request.url)) return { requestId: event.requestId };
  const identity = await options.signRequest(new URL(event.request.url));
  const names = new Set(Object.keys(identity));
  const kept = Object.entries(event.request.headers).filter(([name]) => !names.has(name.toLowerCase()));
  return { requestId: event.requestId, headers: [...kept, ...Object.entries(identity)].map(([name, value]) => ({ name, value: String(value) })) };
}

/** The URL's origin ("null" for opaque ones, which no storage clear can name). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "null";
  }
}

/** `url` is `asked` (an http URL) with only its scheme changed to https. */
function isSchemeUpgrade(url: string, asked: string): boolean {
  try {
    const to = new URL(url);
    const from = new URL(asked);
    return from.protocol === "http:" && to.protocol === "https:" && to.host === from.host && to.pathname === from.pathname && to.search === from.search;
  } catch {
    return false;
  }
}

/**
 * Runs in every document before its scripts: window.open opens nothing and returns null, as a blocked
 * popup does. --block-new-web-contents blocks popups too, but under a storm of window.open calls Chromium
 * 156 still let one start loading (seen in test/web/render/screenshot.test.ts) before the context closed
 * it, outside this page's request guard.
 */
function refusePopups(): void {
  Object.defineProperty(window, "open", { value: () => null, writable: false, configurable: false });
}

/** Runs in every document before its scripts: service worker registration is refused. */
function refuseServiceWorkers(): void {
  const container = (navigator as { serviceWorker?: { register?: unknown } }).serviceWorker;
  if (container) {
    Object.defineProperty(container, "register", {
      value: () => Promise.reject(new DOMException("Service workers are disabled.", "SecurityError")),
    });
  }
}

function describeNavigationFailure(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === "TimeoutError") {
    return new ApiError("RENDER_TIMEOUT", { message: "The page did not finish loading in time.", cause: error });
  }
  const net = /net::(ERR_[A-Z_]+)/.exec(message)?.[1];
  if (net?.startsWith("ERR_CERT") || net?.startsWith("ERR_SSL")) {
    return new ApiError("SOURCE_UNREACHABLE", { message: "The source could not be reached: its TLS certificate could not be verified.", cause: error });
  }
  if (net === "ERR_TUNNEL_CONNECTION_FAILED") {
    return new ApiError("SOURCE_UNREACHABLE", { message: "The source could not be reached through the render guard (refused or unreachable).", cause: error });
  }
  if (net) return new ApiError("SOURCE_UNREACHABLE", { message: `The source could not be reached (${net}).`, cause: error });
  return new ApiError("RENDER_FAILED", { cause: error });
}
