/**
 * @module web/render/renderer — the engine's `Renderer`: one headless Chromium behind the guard proxy,
 * a bounded pool of pages (incognito contexts kept warm between callers, a fresh tab and a cleared
 * context for each: render-context.ts), a total deadline per render, and a browser restarted after a
 * crash or after N renders. Nothing outlives `close()`.
 */
import { ApiError } from "../../errors.ts";
import { outcomeWithin } from "./outcome-within.ts";
import type { ArchiveSpec, CapturedArchive, CapturedScreenshot, NavigationCheck, ScreenshotSpec } from "./contract.ts";
import { archiveInContext } from "./archive-page.ts";
import { findBrowser, type BrowserDiscovery } from "./browser-discovery.ts";
import { launchBrowser, type LaunchedBrowser } from "./browser-launch.ts";
import { type ProxyDecision, type GuardProxy, type SocketConnector, startGuardProxy } from "./proxy-guard.ts";
import { type PageRenderOptions, type RenderedDom, renderInContext, type RenderProgress } from "./render-page.ts";
import { openRenderContext, type RenderContext, type RenderTab } from "./render-context.ts";
import { captureInContext, type ScreenshotLimits } from "./screenshot-page.ts";
import { createRenderSlots } from "./render-slots.ts";
import type { TargetPolicy } from "../fetch/target-guard.ts";

export interface RendererOptions {
  /** Configured browser executable; the usual paths are tried without it. */
  browserPath?: string;
  userAgent: string;
  /** Same policy as the plain fetcher (resolver, test-only loopback switch). */
  policy: TargetPolicy;
  /** Web Bot Auth headers for each request a page sends (the fetch identity); none when absent. */
  signRequest?: (url: URL) => Promise<Record<string, string>>;
  /** Pages rendering at once (default 4). */
  pages?: number;
  /** Renders waiting for a page at most; more are refused AT_CAPACITY (default 32). */
  maxQueue?: number;
  navigationTimeoutMs?: number;
  /** Deadline of one render from getting a page to returning the DOM (504 RENDER_TIMEOUT). */
  totalTimeoutMs?: number;
  settleTimeoutMs?: number;
  quietMs?: number;
  /** The browser is replaced after this many renders (default 200). */
  restartAfterRenders?: number;
  /** Contexts kept ready (a tab open) ahead of demand (default 1; 0 opens each on the caller's clock). */
  spareContexts?: number;
  /** Callers one context serves (each in a fresh tab, the context cleared between them) before it is closed (default 50). */
  contextUses?: number;
  maxHtmlChars?: number;
  /** Screenshots: image height cap (px), image byte cap, longest wait_for selector wait. */
  screenshotLimits?: Partial<ScreenshotLimits>;
  /** Chromium's sandbox (default: on unless running as root, where Chromium cannot use it). */
  sandbox?: boolean;
  /** Tests: the proxy's socket opener, its decision log, and each render context's lane as it opens. */
  proxyConnect?: SocketConnector;
  onProxyDecision?: (decision: ProxyDecision) => void;
  onProxyLane?: (lane: { id: number; port: number }) => void;
  /** Tests: Chromium switches added after the renderer's own. */
  extraBrowserArgs?: readonly string[];
}

export interface RendererStatus {
  available: boolean;
  /** One line for `/v1/capabilities` and `tollbooth doctor`. */
  detail: string;
  browserPath?: string;
}

export interface RendererStats {
  browserPid: number | undefined;
  /** Incognito contexts open in the current browser, the ready ones included. */
  openContexts: number;
  /** Contexts ready (or being opened) for the next renders, a tab open in each. */
  spareContexts: number;
  /** Contexts opened since start (a context serves several callers in turn). */
  contextsOpened: number;
  active: number;
  queued: number;
  launches: number;
  renders: number;
}

export interface BrowserRenderer {
  /**
   * The engine's `Renderer`. `checkNavigation` is asked before each later main-frame navigation
   * (the engine passes robots.txt). Throws ApiError (RENDER_UNAVAILABLE, RENDER_TIMEOUT,
   * RENDER_FAILED, AT_CAPACITY, guard and robots refusals).
   */
  render(url: string, signal: AbortSignal, checkNavigation?: NavigationCheck): Promise<RenderedDom>;
  /** A screenshot under the same pool, deadline and guards as a render (plus SELECTOR_NOT_FOUND, SELECTOR_INVALID, SCREENSHOT_TOO_LARGE). */
  screenshot(url: string, spec: ScreenshotSpec, signal: AbortSignal, checkNavigation?: NavigationCheck): Promise<CapturedScreenshot>;
  /** Every request and response of the page as it loads, under the same pool, deadline and guards (plus ARCHIVE_TOO_LARGE). */
  archive(url: string, spec: ArchiveSpec, signal: AbortSignal, checkNavigation?: NavigationCheck): Promise<CapturedArchive>;
  status(): RendererStatus;
  stats(): RendererStats;
  /**
   * Starts the browser now instead of at the first render, and settles once a context is ready for the first
   * render (the same promise on every call); never throws (status() reports a failure).
   */
  warm(): Promise<void>;
  close(): Promise<void>;
}

interface Generation {
  launched: Promise<LaunchedBrowser>;
  browser?: LaunchedBrowser;
  active: number;
  renders: number;
  retired: boolean;
  dead: boolean;
  /** Settles (rejects) when the browser disconnects. */
  lost: Promise<never>;
  /** Contexts ready for the next renders: opened ahead, or reset after a caller. */
  spares: Promise<RenderContext>[];
  /** Contexts open or opening in this browser (ready, in use or resetting); at most `pages`. */
  contexts: number;
}

const DEFAULTS = {
  // Most of a render is waiting (for the network to go quiet, for the reset): on 2 cores four pages render
  // concurrent callers ~1.3-2.5x faster than two did (scripts/bench/render.ts, loaded machine); a context
  // is opened only when that many renders run at once.
  pages: 4,
  maxQueue: 32,
  navigationTimeoutMs: 10_000,
  totalTimeoutMs: 20_000,
  settleTimeoutMs: 3_000,
  quietMs: 150,
  restartAfterRenders: 200,
  spareContexts: 1,
  contextUses: 50,
  maxHtmlChars: 5 * 1024 * 1024,
};
const CONTEXT_CLOSE_TIMEOUT_MS = 3_000;
/** Stated in docs/screenshot.md. */
export const SCREENSHOT_LIMITS: ScreenshotLimits = { maxImageHeight: 16_384, maxImageBytes: 5 * 1024 * 1024, maxWaitMs: 10_000 };

/** What one render or screenshot does with its fresh tab, under the renderer's deadline. */
type ContextWork<T> = (context: RenderTab, deadline: AbortSignal, progress: RenderProgress) => Promise<T>;

export function createRenderer(options: RendererOptions): BrowserRenderer {
  const settings = { ...DEFAULTS, ...definedOnly(options) };
  const screenshotLimits: ScreenshotLimits = { ...SCREENSHOT_LIMITS, ...definedOnly(options.screenshotLimits ?? {}) };
  const discovery: BrowserDiscovery = findBrowser(options.browserPath);
  const sandbox = options.sandbox ?? process.getuid?.() !== 0;
  const slots = createRenderSlots(settings.pages, settings.maxQueue);
  const pageOptions: PageRenderOptions = {
    navigationTimeoutMs: settings.navigationTimeoutMs,
    settleTimeoutMs: settings.settleTimeoutMs,
    quietMs: settings.quietMs,
    maxHtmlChars: settings.maxHtmlChars,
    policy: options.policy,
    ...(options.signRequest ? { signRequest: options.signRequest } : {}),
  };
  let proxy: Promise<GuardProxy> | undefined;
  let current: Generation | undefined;
  const generations = new Set<Generation>();
  let launchError: string | undefined;
  let launches = 0;
  let renders = 0;
  let contextsOpened = 0;
  let closed = false;
  let warming: Promise<void> | undefined;

  function startProxy(): Promise<GuardProxy> {
    proxy ??= startGuardProxy({ policy: options.policy, connect: options.proxyConnect, onDecision: options.onProxyDecision });
    return proxy;
  }

  /**
   * Each context's traffic goes through its own lane, which admits only what the context's page asks for
   * during its render; the browser's own traffic hits the base port, which refuses it.
   */
  const openLane = async () => {
    const lane = await (await startProxy()).openLane();
    options.onProxyLane?.({ id: lane.id, port: lane.port });
    return lane;
  };
  /** `ahead`: opened before a caller needs it (its renderer is warmed first); else on a waiting caller's clock. */
  function openContext(generation: Generation, browser: LaunchedBrowser, ahead: boolean): Promise<RenderContext> {
    generation.contexts++;
    contextsOpened++;
    const opening = openRenderContext(browser.browser, openLane, { maxUses: settings.contextUses, warm: ahead });
    opening.catch(() => generation.contexts--);
    return opening;
  }

  function launchGeneration(): Generation {
    launches++;
    let markLost: (error: ApiError) => void = () => undefined;
    const lost = new Promise<never>((_, reject) => {
      markLost = reject;
    });
    lost.catch(() => undefined);
    const path = discovery.found ? discovery.path : "";
    const generation: Generation = { active: 0, renders: 0, retired: false, dead: false, lost, spares: [], contexts: 0, launched: Promise.resolve() as never };
    generation.launched = (async () => {
      const guard = await startProxy();
      const launched = await launchBrowser({ executablePath: path, proxyUrl: guard.url, userAgent: options.userAgent, sandbox, extraArgs: options.extraBrowserArgs });
      generation.browser = launched;
      launchError = undefined;
      refillSpares(generation);
      launched.browser.once("disconnected", () => {
        generation.dead = true;
        markLost(new ApiError("RENDER_FAILED", { message: "The browser stopped during the render; it is being replaced." }));
        retire(generation);
      });
      return launched;
    })();
    generation.launched.catch((error: unknown) => {
      generation.dead = true;
      launchError = error instanceof Error ? error.message.split("\n")[0] : String(error);
      retire(generation);
    });
    generations.add(generation);
    return generation;
  }

  function acquireGeneration(): Generation {
    if (!current || current.dead || current.retired || current.renders >= settings.restartAfterRenders) {
      if (current) retire(current);
      current = launchGeneration();
    }
    current.renders++;
    current.active++;
    return current;
  }

  function retire(generation: Generation): void {
    generation.retired = true;
    if (generation.active === 0 || generation.dead) void closeGeneration(generation);
  }

  function release(generation: Generation): void {
    generation.active--;
    if (generation.retired && generation.active === 0) void closeGeneration(generation);
  }

  async function closeGeneration(generation: Generation): Promise<void> {
    if (current === generation) current = undefined;
    const launched = await generation.launched.catch(() => undefined);
    const spares = generation.spares.splice(0);
    await launched?.close();
    // Spare contexts died with the browser; their lanes are closed here (or by the proxy's close, whichever comes first).
    for (const spare of spares) void spare.then((context) => context.lane.close(), () => undefined);
    generations.delete(generation);
  }

  /** A context for this render (its tab unused): a ready one, else a new one. */
  function takeContext(generation: Generation, browser: LaunchedBrowser): Promise<RenderContext> {
    const spare = generation.spares.shift();
    const context = spare ? spare.catch(() => openContext(generation, browser, false)) : openContext(generation, browser, false);
    return context.then((taken) => {
      taken.uses++;
      return taken;
    });
  }

  /** Opens contexts ahead of time, off the callers' clock. Called at launch, when a render's page goes quiet and when a render's context is back. */
  function refillSpares(generation: Generation): void {
    // A context holds one renderer process: never more contexts than the pool has pages.
    while (
      !closed &&
      !generation.dead &&
      !generation.retired &&
      generation.browser &&
      generation.spares.length < settings.spareContexts &&
      generation.contexts < settings.pages
    ) {
      const spare = openContext(generation, generation.browser, true);
      generation.spares.push(spare);
      spare.catch(() => {
        const index = generation.spares.indexOf(spare);
        if (index >= 0) generation.spares.splice(index, 1);
      });
    }
  }

  async function runInContext<T>(work: ContextWork<T>, signal: AbortSignal, done: () => void): Promise<T> {
    const generation = acquireGeneration();
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(settings.totalTimeoutMs)]);
    const timedOut = new Promise<never>((_, reject) => {
      const fail = () => reject(new ApiError("RENDER_TIMEOUT", { message: "The page did not finish rendering in time." }));
      if (deadline.aborted) fail();
      else deadline.addEventListener("abort", fail, { once: true });
    });
    timedOut.catch(() => undefined);
    let opened: Promise<RenderContext> | undefined;
    let answered = false;
    try {
      let launched: LaunchedBrowser;
      try {
        launched = await Promise.race([generation.launched, timedOut]);
      } catch (error) {
        if (error instanceof ApiError) throw error;
        throw new ApiError("RENDER_UNAVAILABLE", { message: `The browser could not be started: ${launchError ?? "unknown error"}.`, cause: error });
      }
      opened = takeContext(generation, launched);
      // The next caller's context opens while this one waits out the network-quiet window, when the pool
      // has a page free for it. Opening one costs the browser ~160 ms of CPU: opened as the render
      // started, it slowed this render's navigation and its last requests.
      const progress = { onQuieting: () => refillSpares(generation) };
      const working = opened.then((context) => work(context.tab, deadline, progress));
      working.catch(() => undefined);
      try {
        const result = await Promise.race([working, timedOut, generation.lost]);
        answered = true;
        return result;
      } catch (error) {
        if (error instanceof ApiError) throw error;
        if (generation.dead) throw new ApiError("RENDER_FAILED", { message: "The browser stopped during the render; it is being replaced.", cause: error });
        throw new ApiError("RENDER_FAILED", { cause: error });
      }
    } finally {
      // The reset happens after the answer; the page stays counted in the pool until it is ready again or gone.
      // A context whose render failed or timed out (a crashed or stuck page) is closed, never reused.
      void recycleRenderContext(generation, opened, answered).finally(() => {
        release(generation);
        // The slot is given back first: a refill that still counted this finished render as busy opened no
        // spare, and back-to-back renders each waited ~150 ms for a context of their own.
        done();
        refillSpares(generation);
      });
    }
  }

  /** The context back among the ready ones when its reset is complete, else closed. */
  async function recycleRenderContext(generation: Generation, opened: Promise<RenderContext> | undefined, answered: boolean): Promise<void> {
    const context = await opened?.catch(() => undefined);
    if (!context) return;
    const usable = () => !closed && !generation.dead && !generation.retired;
    if (answered && usable() && (await context.reset()) && usable()) {
      generation.spares.push(Promise.resolve(context));
      return;
    }
    generation.contexts--;
    if (generation.dead) {
      await context.lane.close();
      return;
    }
    const closedInTime = (await outcomeWithin(context.close(), CONTEXT_CLOSE_TIMEOUT_MS)) !== "late";
    if (!closedInTime) {
      // A context that will not close (a renderer stuck in a loop) takes its browser with it; its lane closes now.
      await context.lane.close();
      retire(generation);
    }
  }

  /** Waits for a page of the pool, then runs `work` in a fresh tab of a ready context. */
  async function inPool<T>(signal: AbortSignal, work: ContextWork<T>): Promise<T> {
    if (!discovery.found) throw new ApiError("RENDER_UNAVAILABLE", { message: `JavaScript rendering is not available: ${discovery.detail}.` });
    if (closed) throw new ApiError("RENDER_UNAVAILABLE", { message: "The renderer is shutting down." });
    await slots.acquire(signal);
    renders++;
    return runInContext(work, signal, () => slots.release());
  }

  return {
    render(url, signal, checkNavigation) {
      return inPool(signal, (context, deadline, progress) => renderInContext(context, url, { ...pageOptions, checkNavigation }, deadline, progress));
    },

    screenshot(url, spec, signal, checkNavigation) {
      return inPool(signal, (context, deadline, progress) =>
        captureInContext(context, url, spec, { ...pageOptions, checkNavigation }, screenshotLimits, deadline, progress),
      );
    },

    archive(url, spec, signal, checkNavigation) {
      return inPool(signal, (context, deadline, progress) => archiveInContext(context, url, spec, { ...pageOptions, checkNavigation }, deadline, progress));
    },

    status() {
      if (!discovery.found) return { available: false, detail: discovery.detail };
      if (closed) return { available: false, detail: "the renderer is shut down", browserPath: discovery.path };
      if (launchError !== undefined) return { available: false, detail: `${discovery.path} did not start: ${launchError}`, browserPath: discovery.path };
      return { available: true, detail: `${discovery.path} (${discovery.source}), ${settings.pages} pages`, browserPath: discovery.path };
    },

    stats() {
      const browser = current?.browser;
      return {
        browserPid: browser?.pid,
        openContexts: browser && browser.browser.connected ? Math.max(0, browser.browser.browserContexts().length - 1) : 0,
        spareContexts: current?.spares.length ?? 0,
        contextsOpened,
        active: slots.active(),
        queued: slots.queued(),
        launches,
        renders,
      };
    },

    warm() {
      warming ??= (async () => {
        if (!discovery.found || closed) return;
        current ??= launchGeneration();
        const generation = current;
        await generation.launched.catch(() => undefined);
        // The spare context opened at launch, its renderer warmed: what the first render takes.
        await generation.spares[0]?.catch(() => undefined);
      })();
      return warming;
    },

    async close() {
      closed = true;
      slots.close();
      await Promise.all([...generations].map((generation) => closeGeneration(generation)));
      current = undefined;
      const guard = await proxy?.catch(() => undefined);
      await guard?.close();
    },
  };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
