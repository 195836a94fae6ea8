/**
 * @module test/render/render-site — the render tests' fixture site on 127.0.0.1:<random port>:
 * the pages in test/fixtures/render, robots.txt, asset URLs that must never be requested, a
 * slow page that counts how many are in flight at once, and requests that never answer.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { crc32, deflateSync } from "node:zlib";

export const RENDER_FIXTURES = join(import.meta.dir, "..", "..", "fixtures", "render");

export const DATA_SENTENCE = "A sentence fetched by the page's script from data.json.";

export interface RenderSite {
  origin: string;
  url(path: string): string;
  /** Every request path (with query) in arrival order. */
  readonly requests: string[];
  hits(prefix: string): number;
  /** Highest number of /slow.html requests in flight at once. */
  peakSlow(): number;
  stop(): Promise<void>;
}

let redPng: Buffer | undefined;
let hugePng: Buffer | undefined;

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A PNG of `rows` (each a filter byte and the row's samples) with colour type 0 (grey) or 2 (RGB). */
function png(width: number, height: number, colourType: 0 | 2, rows: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = colourType;
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, pngChunk("IHDR", header), pngChunk("IDAT", deflateSync(rows)), pngChunk("IEND", Buffer.alloc(0))]);
}

function solidPng(width: number, height: number, [r, g, b]: [number, number, number]): Buffer {
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([r, g, b], 1 + x * 3);
  return png(width, height, 2, Buffer.concat(Array.from({ length: height }, () => row)));
}

function grayPng(width: number, height: number): Buffer {
  const row = Buffer.alloc(1 + width, 0x80);
  row[0] = 0; // filter: none
  return png(width, height, 0, Buffer.concat(Array.from({ length: height }, () => row)));
}

export async function startRenderSite(options: { slowMs?: number } = {}): Promise<RenderSite> {
  const slowMs = options.slowMs ?? 300;
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  let slowInFlight = 0;
  let slowPeak = 0;

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fixture");
    requests.push(`${url.pathname}${url.search}`);
    const send = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": type, "cache-control": "no-store", ...headers });
      res.end(body);
    };
    const path = url.pathname;
    if (path === "/robots.txt") return send(200, "text/plain", "User-agent: *\nDisallow: /private\n");
    if (path === "/data.json") return send(200, "application/json", JSON.stringify({ sentence: DATA_SENTENCE }));
    if (path.startsWith("/asset/")) return send(200, "application/octet-stream", Buffer.alloc(64));
    // Screenshot fixtures: a small red image, and one that states 8000×8000 pixels in 60 KiB (a decompression bomb).
    if (path.startsWith("/image/huge")) return send(200, "image/png", (hugePng ??= grayPng(8000, 8000)));
    if (path.startsWith("/image/")) return send(200, "image/png", (redPng ??= solidPng(64, 64, [255, 0, 0])));
    // Archive fixtures: a style sheet, and n KiB of bytes (a resource over the per-resource cap).
    if (path === "/archive.css") return send(200, "text/css", "h1 { color: rgb(0, 0, 255); }\n");
    if (path === "/padded.html") return send(200, "text/html; charset=utf-8", `<!doctype html><title>Padded</title><p>${"padding ".repeat(10_240)}</p>`);
    // A document whose end comes 400 ms after the images it names: their bodies are in before its own.
    if (path === "/late-document.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.write(`<!doctype html><title>Late</title><img src="/image/one.png"><img src="/image/two.png">`);
      setTimeout(() => res.end("<p>The document's own text ends late.</p>"), 400);
      return;
    }
    if (path.startsWith("/blob/")) return send(200, "application/octet-stream", Buffer.alloc(Math.min(Number(path.slice(6)) || 0, 4096) * 1024, 0x61));
    if (path === "/download.bin") return send(200, "application/octet-stream", Buffer.alloc(1024), { "content-disposition": "attachment; filename=payload.bin" });
    if (path === "/sw.js") return send(200, "text/javascript", "self.addEventListener('fetch', () => {});");
    if (path === "/popup-target.html") return send(200, "text/html", "<p>popup</p>");
    if (path === "/hang" || path === "/never") return; // never answers
    // Context reuse: a cookie the page's script cannot touch, the Cookie header echoed, a cacheable script, a cross-origin frame.
    if (path === "/set-cookie.html") return send(200, "text/html", `<pre id="jar">pending</pre><script>fetch("/echo-cookie").then((r) => r.text()).then((t) => { document.getElementById("jar").textContent = "JAR " + t; });</script>`, { "set-cookie": "server=cookie-A; HttpOnly; Max-Age=3600" });
    if (path === "/echo-cookie") return send(200, "text/plain", `[${req.headers.cookie ?? ""}]`);
    // What a tab keeps (checked in context-reuse.test.ts whatever gives the next caller its tab): a page that keeps writing what a tab keeps (session storage, window.name,
    // history) until it is gone, and a page that prints what it finds and, unless ?stay, goes two steps back.
    if (path === "/leave-traces.html") {
      return send(200, "text/html", `<p>Leaving traces.</p><script>
const mark = () => { sessionStorage.setItem("s", "session-A"); window.name = "name-A"; };
mark(); history.pushState({}, "", "?pushed-A"); setInterval(mark, 0);
addEventListener("pagehide", () => { sessionStorage.setItem("late", "session-late-A"); window.name = "name-late-A"; });
</script>`);
    }
    if (path === "/look-back.html") {
      return send(200, "text/html", `<p id="probe">Looking.</p><pre id="seen">pending</pre><script>
const seen = { history: history.length, name: window.name, session: JSON.stringify({ ...sessionStorage }), width: innerWidth, ratio: devicePixelRatio, probe: getComputedStyle(document.getElementById("probe")).display, sheets: document.adoptedStyleSheets.length };
document.getElementById("seen").textContent = "SEEN " + JSON.stringify(seen) + " END";
// Two steps back: past the blank entry a tab starts from, onto whatever came before it.
if (!location.search.includes("stay")) addEventListener("load", () => history.go(-2));
</script>`);
    }
    if (path === "/echo-cookie.html") return send(200, "text/html", `<pre>JAR [${req.headers.cookie ?? ""}]</pre>`);
    if (path === "/cached.js") return res.writeHead(200, { "content-type": "text/javascript", "cache-control": "max-age=3600" }).end("window.cachedScript = true;");
    if (path === "/framed.html") return send(200, "text/html", `<p>Framed.</p><iframe src="${url.searchParams.get("src") ?? ""}"></iframe>`);
    // Same-site ways into the robots-disallowed /private: a script navigation and a server redirect.
    if (path === "/to-private.html") return send(200, "text/html", `<p>Leaving.</p><script>location.href = "/private/by-script.html";</script>`);
    if (path === "/redirect-to-private") return send(302, "text/plain", "", { location: "/private/by-redirect.html" });
    if (path === "/private.html") return send(200, "text/html", readFileSync(join(RENDER_FIXTURES, "script-built.html")));
    if (path === "/slow.html") {
      slowInFlight++;
      slowPeak = Math.max(slowPeak, slowInFlight);
      setTimeout(() => {
        slowInFlight--;
        send(200, "text/html; charset=utf-8", readFileSync(join(RENDER_FIXTURES, "slow.html")));
      }, slowMs);
      return;
    }
    const name = path.slice(1);
    if (/^[a-z0-9-]+\.html$/.test(name)) {
      try {
        return send(200, "text/html; charset=utf-8", readFileSync(join(RENDER_FIXTURES, name)));
      } catch {
        // fall through to 404
      }
    }
    send(404, "text/plain", "not found");
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: (p) => `${origin}${p}`,
    requests,
    hits: (prefix) => requests.filter((r) => r.startsWith(prefix)).length,
    peakSlow: () => slowPeak,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
