/** A loopback web site whose pages a test sets and changes at will (for change checks, PDFs, batches). */
export interface SiteServer {
  readonly origin: string;
  url(path: string): string;
  set(path: string, body: string | Uint8Array, contentType?: string, status?: number): void;
  hits(path: string): number;
  stop(): Promise<void>;
}

/** `delayMs`: each answer waits that long first (a site slow enough that several fetchers overlap). */
export function startSiteServer(options: { delayMs?: number } = {}): SiteServer {
  const pages = new Map<string, { body: string | Uint8Array; type: string; status: number }>();
  const hits = new Map<string, number>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (options.delayMs) await Bun.sleep(options.delayMs);
      const path = new URL(request.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path === "/robots.txt" && !pages.has(path)) return new Response("User-agent: *\nAllow: /\n");
      const page = pages.get(path);
      if (!page) return new Response("not found", { status: 404, headers: { "content-type": "text/plain" } });
      return new Response(typeof page.body === "string" ? page.body : new Uint8Array(page.body), { status: page.status, headers: { "content-type": page.type } });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    set(path, body, contentType = "text/html; charset=utf-8", status = 200) {
      pages.set(path, { body, type: contentType, status });
    },
    hits: (path) => hits.get(path) ?? 0,
    stop: () => server.stop(true),
  };
}
