/**
 * @module web/render/proxy-guard — the loopback forward proxy every browser connection is forced
 * through. Each CONNECT tunnel (https, wss, ws) and each absolute-form request (plain http) is
 * vetted by `vetTarget` (same rules as the plain fetcher: public IPv4, ports 80/443) and the
 * socket is opened to the vetted address only, so a page cannot reach the operator's network
 * and DNS rebinding has no window (Chromium never resolves names itself: see browser-launch.ts).
 *
 * Only traffic made on behalf of a render is admitted: each render's browser context gets its own
 * lane (a listener on its own loopback port, closed with the context). The proxy's base port,
 * where the browser's own traffic lands (component updater, sign-in, time queries…), refuses
 * every request and tunnel without vetting or dialling anything. A lane admits only the hosts
 * and ports its render's page asked for (`admit`, called by the page's request guard before the
 * request goes out): nothing before the render's first navigation, nothing after `end`, nothing
 * the browser starts on its own in the context (Chromium 150 sent its AI Mode eligibility check
 * and a search preconnect through a fresh context's proxy).
 */
import http from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import { ApiError } from "../../errors.ts";
import { type TargetPolicy, vetTarget } from "../fetch/target-guard.ts";

/** Opens a TCP socket to an already-vetted address. Tests inject a recording one. */
export type SocketConnector = (address: string, port: number) => net.Socket;

export interface ProxyDecision {
  kind: "connect" | "request";
  /** As the browser asked: `host:port` for CONNECT, the absolute URL otherwise. */
  target: string;
  allowed: boolean;
  /** The vetted address the socket went to (allowed decisions only). */
  address?: string;
  /** The refusal code (URL_NOT_ALLOWED, TARGET_NOT_PUBLIC, DNS_FAILED, NOT_A_RENDER, LANE_IDLE, NOT_REQUESTED, …). */
  reason?: string;
  /** The lane it arrived on (absent: the base port, which admits nothing). */
  lane?: number;
}

export interface GuardProxyOptions {
  policy: TargetPolicy;
  connect?: SocketConnector;
  connectTimeoutMs?: number;
  /** Idle time after which a tunnel or upstream socket is dropped. */
  idleTimeoutMs?: number;
  onDecision?: (decision: ProxyDecision) => void;
}

/** A render's own way out: a loopback port admitting (vetted) traffic until closed. */
export interface ProxyLane {
  readonly id: number;
  readonly port: number;
  /** For the render context's proxy server. */
  readonly url: string;
  /** A render starts on the lane (a context serves one render after another): nothing admitted yet. */
  begin(): void;
  /** Admits `url`'s host and port (a request the lane's render made), still vetted, until `end`. */
  admit(url: string): void;
  /** The render is over: nothing more is admitted; connections already open stay until `drop` or `close`. */
  end(): void;
  /** Drops the lane's open tunnels and requests; the lane keeps listening for its next render. */
  drop(): void;
  /** Stops admitting and drops the lane's open tunnels and requests. */
  close(): Promise<void>;
}

export interface GuardProxy {
  /** The base port: refuses everything (traffic not made on behalf of a render). */
  readonly port: number;
  /** For Chromium's `--proxy-server`. */
  readonly url: string;
  openLane(): Promise<ProxyLane>;
  close(): Promise<void>;
}

/** The base port's refusal: the request was not made by a render's context. */
export const NOT_A_RENDER = "NOT_A_RENDER";
/** A lane's refusal while no render uses it: before the render's first request, or after it ended. */
export const LANE_IDLE = "LANE_IDLE";
/** A lane's refusal of a host and port its render did not ask for (the browser's own traffic). */
export const NOT_REQUESTED = "NOT_REQUESTED";

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443", "ws:": "80", "wss:": "443" };

/** `host:port` of a URL as a lane admits it (canonical host, explicit port); undefined for other schemes. */
export function laneKey(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const port = parsed.port || DEFAULT_PORTS[parsed.protocol];
  if (port === undefined || parsed.hostname === "") return undefined;
  return `${parsed.hostname}:${port}`;
}

const connectWithNet: SocketConnector = (address, port) => net.connect({ host: address, port, family: 4 });

/** Hop-by-hop and proxy headers never forwarded upstream (RFC 9110 §7.6.1). */
const HOP_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function refusalCode(error: unknown): string {
  return error instanceof ApiError ? error.code : "PROXY_ERROR";
}

/** Host and port of a CONNECT authority ("example.com:443"); IPv6 literals are left bracketed so vetting refuses them. */
function parseAuthority(authority: string): { host: string; port: string } | undefined {
  const match = /^(\[[^\]]*\]|[^:/?#\s]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  return { host: match[1] ?? "", port: match[2] ?? "" };
}

/** Sockets of one listener (the base port or a lane), dropped together when it closes. */
interface Listener {
  lane?: number;
  sockets: Set<Duplex>;
  closed: boolean;
  /** `host:port`s the lane's render asked for (empty until its first request). */
  admitted: Set<string>;
  /** The lane's render is over. */
  ended: boolean;
}

/** Why a listener refuses everything now (the base port, a closed lane, a lane no render uses), if it does. */
function idleRefusal(listener: Listener): string | undefined {
  if (listener.lane === undefined || listener.closed) return NOT_A_RENDER;
  if (listener.ended || listener.admitted.size === 0) return LANE_IDLE;
  return undefined;
}

/** Why a listener refuses `key` before any vetting, or undefined when it may be vetted. */
function laneRefusal(listener: Listener, key: string | undefined): string | undefined {
  return idleRefusal(listener) ?? (key !== undefined && listener.admitted.has(key) ? undefined : NOT_REQUESTED);
}

/** Starts the proxy's base port on 127.0.0.1 (a free port); lanes are opened per render. */
export async function startGuardProxy(options: GuardProxyOptions): Promise<GuardProxy> {
  const connect = options.connect ?? connectWithNet;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  const servers = new Set<{ server: http.Server; listener: Listener }>();
  let nextLane = 1;
  const track = (socket: Duplex, listener: Listener) => {
    listener.sockets.add(socket);
    socket.once("close", () => listener.sockets.delete(socket));
    if (listener.closed) socket.destroy();
  };
  const decide = (decision: ProxyDecision, listener: Listener) =>
    options.onDecision?.(listener.lane === undefined ? decision : { ...decision, lane: listener.lane });

  /** Opens a socket to the vetted address; resolves once connected. */
  function openUpstream(address: string, port: number, listener: Listener): Promise<net.Socket> {
    return new Promise((resolve, reject) => {
      let upstream: net.Socket;
      try {
        upstream = connect(address, port);
      } catch (error) {
        reject(error);
        return;
      }
      track(upstream, listener);
      const timer = setTimeout(() => upstream.destroy(new Error("connect timeout")), connectTimeoutMs);
      upstream.once("connect", () => {
        clearTimeout(timer);
        upstream.setTimeout(idleTimeoutMs, () => upstream.destroy());
        resolve(upstream);
      });
      upstream.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  async function forwardRequest(req: http.IncomingMessage, res: http.ServerResponse, listener: Listener): Promise<void> {
    const target = req.url ?? "";
    const refuse = (status: number, reason: string) => {
      decide({ kind: "request", target, allowed: false, reason }, listener);
      res.writeHead(status, { "content-type": "text/plain", "x-tollbooth-proxy": "refused", connection: "close" });
      res.end(`Refused by Tollbooth's render guard: ${reason}\n`);
    };
    const idle = idleRefusal(listener);
    if (idle) {
      refuse(403, idle);
      return;
    }
    // Only absolute-form http URLs are proxied; https goes through CONNECT.
    if (!/^http:\/\//i.test(target)) {
      refuse(400, "URL_NOT_ALLOWED");
      return;
    }
    const unrequested = laneRefusal(listener, laneKey(target));
    if (unrequested) {
      refuse(403, unrequested);
      return;
    }
    let vetted;
    try {
      vetted = await vetTarget(target, options.policy);
    } catch (error) {
      refuse(403, refusalCode(error));
      return;
    }
    // The lane may have closed or its render ended while the name was resolved.
    const late = laneRefusal(listener, laneKey(target));
    if (late) {
      refuse(403, late);
      return;
    }
    decide({ kind: "request", target, allowed: true, address: vetted.address }, listener);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value;
    }
    headers.host = vetted.url.host;
    headers.connection = "close";
    const address = vetted.address;
    // An agent whose only way to a socket is the connector, pinned to the vetted address.
    const agent = new http.Agent({ keepAlive: false });
    (agent as unknown as { createConnection: () => net.Socket }).createConnection = () => {
      const socket = connect(address, vetted.port);
      track(socket, listener);
      socket.setTimeout(idleTimeoutMs, () => socket.destroy());
      return socket;
    };
    const upstream = http.request({
      host: vetted.hostname,
      port: vetted.port,
      method: req.method,
      path: `${vetted.url.pathname}${vetted.url.search}`,
      headers,
      agent,
    });
    upstream.on("response", (answer) => {
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_HEADERS.has(name)) out[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, out);
      answer.pipe(res);
      answer.on("error", () => res.destroy());
    });
    upstream.on("error", () => {
      if (!res.headersSent) {
        res.writeHead(502, { "content-type": "text/plain", connection: "close" });
        res.end("Upstream unreachable\n");
      } else {
        res.destroy();
      }
    });
    req.on("aborted", () => upstream.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  }

  async function openTunnel(authority: string, client: Duplex, head: Buffer, listener: Listener): Promise<void> {
    const refuse = (reason: string) => {
      decide({ kind: "connect", target: authority, allowed: false, reason }, listener);
      client.end(`HTTP/1.1 403 Forbidden\r\nx-tollbooth-proxy: refused\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
    };
    const idle = idleRefusal(listener);
    if (idle) {
      refuse(idle);
      return;
    }
    const parsed = parseAuthority(authority);
    if (!parsed) {
      refuse("URL_NOT_ALLOWED");
      return;
    }
    const key = laneKey(`https://${parsed.host}:${parsed.port}/`);
    const unrequested = laneRefusal(listener, key);
    if (unrequested) {
      refuse(unrequested);
      return;
    }
    let vetted;
    try {
      // The scheme is irrelevant to the vetting (port and address are what count).
      vetted = await vetTarget(`https://${parsed.host}:${parsed.port}/`, options.policy);
    } catch (error) {
      refuse(refusalCode(error));
      return;
    }
    const late = laneRefusal(listener, key);
    if (late) {
      refuse(late);
      return;
    }
    decide({ kind: "connect", target: authority, allowed: true, address: vetted.address }, listener);
    let upstream: net.Socket;
    try {
      upstream = await openUpstream(vetted.address, vetted.port, listener);
    } catch {
      client.end("HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
      return;
    }
    if (client.destroyed) {
      upstream.destroy();
      return;
    }
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
    upstream.on("error", () => client.destroy());
    upstream.on("close", () => client.destroy());
    client.on("close", () => upstream.destroy());
  }

  async function listen(listener: Listener): Promise<{ port: number; close(): Promise<void> }> {
    const server = http.createServer((req, res) => {
      void forwardRequest(req, res, listener);
    });
    server.on("connect", (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
      client.on("error", () => client.destroy());
      void openTunnel(req.url ?? "", client, head, listener);
    });
    // Chromium tunnels WebSockets with CONNECT; an absolute-form Upgrade is refused rather than half-supported.
    server.on("upgrade", (req: http.IncomingMessage, client: Duplex) => {
      decide({ kind: "request", target: req.url ?? "", allowed: false, reason: "UPGRADE_NOT_PROXIED" }, listener);
      client.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
    });
    server.on("connection", (socket: net.Socket) => track(socket, listener));
    server.on("clientError", (_error, socket: Duplex) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const entry = { server, listener };
    servers.add(entry);
    let closing: Promise<void> | undefined;
    return {
      port: (server.address() as net.AddressInfo).port,
      close() {
        closing ??= (async () => {
          listener.closed = true;
          for (const socket of listener.sockets) socket.destroy();
          await new Promise<void>((resolve) => server.close(() => resolve()));
          servers.delete(entry);
        })();
        return closing;
      },
    };
  }

  const base = await listen({ sockets: new Set(), closed: false, admitted: new Set(), ended: true });
  return {
    port: base.port,
    url: `http://127.0.0.1:${base.port}`,
    async openLane() {
      const id = nextLane++;
      const listener: Listener = { lane: id, sockets: new Set(), closed: false, admitted: new Set(), ended: false };
      const lane = await listen(listener);
      return {
        id,
        port: lane.port,
        url: `http://127.0.0.1:${lane.port}`,
        begin() {
          listener.ended = false;
          listener.admitted.clear();
        },
        admit(url) {
          const key = laneKey(url);
          if (key !== undefined && !listener.ended && !listener.closed) listener.admitted.add(key);
        },
        end() {
          listener.ended = true;
          listener.admitted.clear();
        },
        drop() {
          for (const socket of listener.sockets) socket.destroy();
        },
        close: lane.close,
      };
    },
    async close() {
      await Promise.all([...servers].map(async ({ server, listener }) => {
        listener.closed = true;
        for (const socket of listener.sockets) socket.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }));
      servers.clear();
    },
  };
}
