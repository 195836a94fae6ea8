/**
 * @module runtime/serve — starts an HTTP server on the runtime's own server: `Bun.serve` or
 * `Deno.serve` (Elysia's `listen()` only knows Bun), handing each request with a lookup of the peer's
 * address (Bun's `server.requestIP`, Deno's `remoteAddr`).
 */
import { onDeno } from "./which.ts";

/** How the runtime tells who sent a request: one object per server, nothing made per request. */
export interface PeerLookup {
  /** The peer's address (Bun's `server.requestIP`, Deno's `remoteAddr`), looked up when called. */
  peer(request: Request): string;
  /**
   * The request's URL carries its Host header verbatim as its authority when it has one (Bun builds
   * `http://<Host><path>` and gives the bare path for a missing or unusable Host), so the header
   * need not be read again.
   */
  readonly urlCarriesHost: boolean;
}

export type PeerHandler = (request: Request, lookup: PeerLookup) => Promise<Response> | Response;

export interface ServeOptions {
  readonly host: string;
  readonly port: number;
  readonly fetch: PeerHandler;
  /** Answers when `fetch` itself threw. */
  readonly onError: (error: Error) => Response;
}

export interface HttpServer {
  readonly port: number;
  /** Closes the listener and ends open connections. */
  stop(): Promise<void>;
}

interface DenoServeInfo {
  remoteAddr: { hostname?: string };
}
interface DenoHttpServer {
  addr: { port: number };
  shutdown(): Promise<void>;
}
interface DenoServe {
  serve(
    options: { hostname: string; port: number; onListen(): void; onError(error: unknown): Response },
    handler: (request: Request, info: DenoServeInfo) => Promise<Response> | Response,
  ): DenoHttpServer;
}

export function serveHttp(options: ServeOptions): HttpServer {
  return onDeno ? serveOnDeno(options) : serveOnBun(options);
}

function serveOnBun({ host, port, fetch, onError }: ServeOptions): HttpServer {
  const lookup: PeerLookup = { peer: (request) => server.requestIP(request)?.address ?? "unknown", urlCarriesHost: true };
  const server: Bun.Server<undefined> = Bun.serve({
    hostname: host,
    port,
    // Never Bun's development error page (it shows source and paths): `error` below answers instead.
    development: false,
    // Far above our own 1 MiB cap, so an oversize body gets our JSON 413 rather than Bun's empty one.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    idleTimeout: 255,
    fetch(request) {
      return fetch(request, lookup);
    },
    error: onError,
  });
  return { port: server.port ?? port, stop: () => server.stop(true) };
}

function serveOnDeno({ host, port, fetch, onError }: ServeOptions): HttpServer {
  const deno = (globalThis as unknown as { Deno: DenoServe }).Deno;
  const server = deno.serve(
    // onListen: Deno prints "Listening on …" otherwise; our own start line says it.
    { hostname: host, port, onListen() {}, onError: (error) => onError(error instanceof Error ? error : new Error(String(error))) },
    (request, info) => fetch(request, { peer: () => info.remoteAddr.hostname ?? "unknown", urlCarriesHost: false }),
  );
  return { port: server.addr.port, stop: () => server.shutdown() };
}
