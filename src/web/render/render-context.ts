/**
 * @module web/render/render-context — a render context kept warm between callers. One incognito context
 * (downloads denied, its own proxy lane) holds one renderer process, kept alive by a blank keeper tab;
 * (which loads a small document of our own first when the context is opened ahead of demand);
 * each caller gets a new tab in it (Chromium started with --renderer-process-limit=1 places the tab in
 * that process: ~100 ms instead of the ~700 ms a context and its first tab cost under load). A new tab
 * is a new window, history, window.name and sessionStorage; what the context keeps between tabs
 * (cookies, local storage, IndexedDB, Cache Storage, the HTTP cache, the lane's connections) is cleared
 * after each caller's tab is closed, and the cookie jar is checked empty. A context is reused only when
 * that reset is known to be complete: a tab that loaded a document from an origin its main frame never
 * showed (storage partitioned under a foreign top-level site, which the browser cannot clear per key),
 * a reset that fails or does not finish in time, or a context that served its share of callers is closed
 * instead. test/web/render/context-reuse.test.ts shows a second caller sees none of the first's traces.
 */
import type { Browser, BrowserContext, CDPSession, Page } from "puppeteer-core";
import { outcomeWithin } from "./outcome-within.ts";
import { type ContextLane, prepareRenderPage, type RenderTab } from "./render-page.ts";

export type { RenderTab };

export interface RenderContext {
  context: BrowserContext;
  lane: ContextLane;
  /** The tab the next caller will use (opened after the previous caller's tab closed). */
  tab: RenderTab;
  /** Callers served so far. */
  uses: number;
  /**
   * After a caller: closes its tab, clears what the context keeps, and opens the next caller's tab.
   * False when the context must not serve another caller (the reset failed, was late, or could not be complete).
   */
  reset(): Promise<boolean>;
  /** Ends the lane's admissions, closes the context, then its proxy lane (the lane's connections die with it). */
  close(): Promise<void>;
}

/** Time for one reset (close the tab, clear, open the next tab); past it the context is closed instead. */
const RESET_TIMEOUT_MS = 5_000;

export interface RenderContextOptions {
  /** Callers the context serves before it is closed. */
  maxUses: number;
  /** The keeper loads a small document of our own first, so the first caller's page is not the renderer's first (contexts opened ahead of demand). */
  warm: boolean;
}

/** Opens a context whose traffic goes through its own proxy lane, its keeper tab, and the first caller's tab. */
export async function openRenderContext(browser: Browser, openLane: () => Promise<ContextLane>, options: RenderContextOptions): Promise<RenderContext> {
  const { maxUses } = options;
  const lane = await openLane();
  let context: BrowserContext;
  try {
    // "<-loopback>" as at launch: even 127.0.0.1 goes through the lane.
    context = await browser.createBrowserContext({ proxyServer: lane.url, proxyBypassList: ["<-loopback>"], downloadBehavior: { policy: "deny" } });
  } catch (error) {
    await lane.close();
    throw error;
  }
  const close = async () => {
    lane.end();
    await context.close().catch(() => undefined);
    await lane.close();
  };
  /** Tabs are opened one at a time, and only when no caller's tab is open. */
  let opening = false;
  const newTab = async () => {
    opening = true;
    try {
      return await context.newPage();
    } finally {
      opening = false;
    }
  };
  // Popups are refused (--block-new-web-contents, window.open replaced); anything that still opens is closed.
  context.on("targetcreated", (target) => {
    if (target.type() !== "page" || opening) return;
    void target
      .page()
      .then((other) => other?.close())
      .catch(() => undefined);
  });
  const openTab = async (): Promise<RenderTab> => {
    const page = await newTab();
    return { page, lane, guard: await prepareRenderPage(page, lane) };
  };
  let keeper: Page;
  let cdp: CDPSession;
  let tab: RenderTab;
  try {
    // The keeper holds the context's renderer process while callers' tabs come and go; it loads nothing.
    keeper = await newTab();
    cdp = await keeper.createCDPSession();
    tab = await openTab();
    if (options.warm) await outcomeWithin(keeper.goto(WARM_PAGE_URL, { waitUntil: "load", timeout: WARM_TIMEOUT_MS }), WARM_TIMEOUT_MS);
  } catch (error) {
    await close();
    throw error;
  }

  async function clearAndReopen(used: RenderTab): Promise<boolean> {
    const origins = used.guard.documentOrigins();
    await used.page.close();
    // The lane's connections (tunnels Chromium would reuse) go with the caller.
    lane.drop();
    // The next caller's tab opens while the context is cleared (it stays blank until its caller navigates it,
    // which comes only after the reset is complete): the reset takes the longer of the two, not their sum.
    const next = openTab();
    next.catch(() => undefined);
    const clear = async () => {
      await Promise.all([
        cdp.send("Network.clearBrowserCookies"),
        cdp.send("Network.clearBrowserCache"),
        ...origins.map((origin) => cdp.send("Storage.clearDataForOrigin", { origin, storageTypes: "all" })),
      ]);
      const { cookies } = await cdp.send("Network.getAllCookies");
      return cookies.length === 0;
    };
    const [tab, cleared] = await Promise.all([next, clear()]);
    // A context whose cookie jar is not empty is closed with the tab.
    if (!cleared) return false;
    context_.tab = tab;
    return true;
  }

  const context_: RenderContext = {
    context,
    lane,
    tab,
    uses: 0,
    async reset() {
      const used = context_.tab;
      lane.end();
      if (context_.uses >= maxUses || used.guard.foreignFrames() || !used.guard.documentOrigins().every(isClearableOrigin)) return false;
      const reset = clearAndReopen(used);
      let ok = false;
      const outcome = await outcomeWithin(reset.then((done) => (ok = done)), RESET_TIMEOUT_MS);
      return outcome === "fulfilled" && ok;
    },
    close,
  };
  return context_;
}

/**
 * What the keeper loads once when a context is opened ahead of demand: a document built by a script, so the
 * context's new renderer process has parsed, styled, laid out and run a page before its first caller's (the
 * first navigation in a fresh renderer took ~150-300 ms against ~50 ms after one). A data: URL of our own:
 * no request leaves the browser (the context's lane admits nothing anyway), its origin is opaque and keeps
 * nothing, and no caller's tab can reach the keeper's window.
 */
const WARM_PAGE_URL = `data:text/html,${encodeURIComponent(
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Warm</title><style>main{font:16px sans-serif}</style></head><body><main id="app"><h1>Warm</h1><p>A paragraph.</p></main><script>const p = document.createElement("p"); p.textContent = JSON.stringify({ items: [1, 2, 3] }); document.getElementById("app").append(p);</script></body></html>`,
)}`;
const WARM_TIMEOUT_MS = 5_000;

/** Storage the browser can clear by origin: http(s) origins (opaque ones keep nothing past their document). */
function isClearableOrigin(origin: string): boolean {
  return /^https?:\/\/[^/]+$/.test(origin);
}
