/**
 * @module test/render/render-site — the render tests' fixture site on 127.0.0.1:<random port>:
 * the pages in test/fixtures/render, robots.txt, asset URLs that must never be requested, a
 * slow page that counts how many are in flight at once, and requests that never answer.
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";

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
    if (path === "/download.bin") return send(200, "application/octet-stream", Buffer.alloc(1024), { "content-disposition": "attachment; filename=payload.bin" });
    if (path === "/sw.js") return send(200, "text/javascript", "self.addEventListener('fetch', () => {});");
    if (path === "/popup-target.html") return send(200, "text/html", "<p>popup</p>");
    if (path === "/hang" || path === "/never") return; // never answers
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
