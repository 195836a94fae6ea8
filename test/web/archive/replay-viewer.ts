/**
 * @module test/web/archive/replay-viewer — ReplayWeb.page (the `replaywebpage` package: index.html,
 * ui.js, sw.js) served on 127.0.0.1 beside one WACZ file, opened in the test Chromium: what the
 * replayed page shows, and what the viewer's own verification reports for the archive.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Frame, Page } from "puppeteer-core";

const VIEWER = join(import.meta.dir, "..", "..", "..", "node_modules", "replaywebpage");
const VIEWER_FILES: Record<string, string> = { "/": "index.html", "/index.html": "index.html", "/ui.js": "ui.js", "/sw.js": "sw.js" };
const TYPES: Record<string, string> = { html: "text/html; charset=utf-8", js: "text/javascript; charset=utf-8" };

export interface ReplayViewer {
  origin: string;
  /** Requests the viewer's origin received (paths), to show nothing was asked elsewhere. */
  readonly requests: string[];
  stop(): Promise<void>;
}

/** Serves the viewer and `/archive.wacz` (with byte ranges, as the viewer reads a WACZ). */
export async function startReplayViewer(wacz: Uint8Array): Promise<ReplayViewer> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://viewer").pathname;
    requests.push(path);
    const file = VIEWER_FILES[path];
    if (file) {
      res.writeHead(200, { "content-type": TYPES[file.split(".").pop()!] ?? "application/octet-stream", "cache-control": "no-store" });
      return res.end(readFileSync(join(VIEWER, file)));
    }
    if (path === "/archive.wacz") {
      const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
      const headers = { "content-type": "application/wacz", "accept-ranges": "bytes", "cache-control": "no-store" };
      if (range) {
        const start = Number(range[1]);
        const end = range[2] ? Math.min(Number(range[2]), wacz.length - 1) : wacz.length - 1;
        res.writeHead(206, { ...headers, "content-range": `bytes ${start}-${end}/${wacz.length}`, "content-length": String(end - start + 1) });
        return res.end(req.method === "HEAD" ? undefined : Buffer.from(wacz.subarray(start, end + 1)));
      }
      res.writeHead(200, { ...headers, "content-length": String(wacz.length) });
      return res.end(req.method === "HEAD" ? undefined : Buffer.from(wacz));
    }
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("not found");
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface ReplayOutcome {
  /** The replayed page's visible text. */
  text: string;
  /** Natural width of the replayed <img id="red"> (0 when it did not load). */
  imageWidth: number;
  /** The viewer's verification summary of the archive (wabac's getVerifyInfo: what its "Validation" panel shows). */
  verify: { numValid?: number; numInvalid?: number; publicKey?: string; datapackageHash?: string; software?: string };
  /**
   * The viewer's own check of the package signature (its "signature" verification record: WebCrypto ECDSA
   * over signedData.hash with signedData.publicKey). Read from its IndexedDB because its summary counts
   * that record as valid whatever it holds (wabac.js getVerifyInfo: `"signature" === id || matched === true`).
   */
  signatureValid: boolean | undefined;
}

async function waitForFrame(page: Page, match: (frame: Frame) => boolean, timeoutMs: number): Promise<Frame> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const frame = page.frames().find(match);
    if (frame) return frame;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no matching frame within ${timeoutMs} ms; frames: ${page.frames().map((f) => f.url()).join(", ")}`);
}

/** Opens the archive in the viewer at `pageUrl` and reads the replayed page and the viewer's verification. */
export async function replayInViewer(browser: Browser, viewer: ReplayViewer, pageUrl: string, timeoutMs = 60_000): Promise<ReplayOutcome> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    const source = `${viewer.origin}/archive.wacz`;
    await page.goto(`${viewer.origin}/?source=${encodeURIComponent(source)}#view=pages&url=${encodeURIComponent(pageUrl)}`, { waitUntil: "domcontentloaded" });
    const replayed = await waitForFrame(page, (frame) => frame.url().includes("mp_/") && frame.url().endsWith(pageUrl), timeoutMs);
    await replayed.waitForFunction(() => document.readyState === "complete" && (document.getElementById("red") as HTMLImageElement | null)?.complete === true, { timeout: timeoutMs });
    const { text, imageWidth } = await replayed.evaluate(() => ({ text: document.body.innerText, imageWidth: (document.getElementById("red") as HTMLImageElement | null)?.naturalWidth ?? 0 }));
    // The collection id is the path segment after /w/ in the replayed frame's URL; its API answers what the viewer shows under "Validation".
    const collection = new URL(replayed.url()).pathname.split("/")[2]!;
    const verify = await page.evaluate(async (url: string) => ((await (await fetch(url)).json()) as { verify?: Record<string, unknown> }).verify ?? {}, `${viewer.origin}/w/api/c/${collection}?all=1`);
    const signatureValid = await page.evaluate(async () => {
      for (const { name } of await indexedDB.databases()) {
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const open = indexedDB.open(name!);
          open.onsuccess = () => resolve(open.result);
          open.onerror = () => reject(open.error);
        });
        if (![...db.objectStoreNames].includes("verification")) continue;
        const record = await new Promise<{ matched?: unknown } | undefined>((resolve) => {
          const get = db.transaction("verification").objectStore("verification").get("signature");
          get.onsuccess = () => resolve(get.result as { matched?: unknown } | undefined);
          get.onerror = () => resolve(undefined);
        });
        if (record) return record.matched === true;
      }
      return undefined;
    });
    return { text, imageWidth, verify: verify as ReplayOutcome["verify"], signatureValid };
  } finally {
    await context.close();
  }
}
