/**
 * Raw HTTP/1.x over a plain TCP socket (node:net) to 127.0.0.1: sends bytes exactly as given, so
 * tests can send what no HTTP client would (bad Host headers, CONNECT, HTTP/1.0 without Host,
 * lying Content-Length, a body trickled one byte at a time, an upload cut off).
 */
import { connect, type Socket } from "node:net";

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Everything the server sent. */
  readonly raw: string;
  /** Whether the server closed the connection. */
  readonly closed: boolean;
  readonly ms: number;
}

/** Parses the first response in `raw` (status 0 when nothing parseable arrived). */
export function parseRawResponse(raw: string, closed: boolean, ms: number): RawResponse {
  const end = raw.indexOf("\r\n\r\n");
  if (!raw.startsWith("HTTP/") || end === -1) return { status: 0, headers: {}, body: "", raw, closed, ms };
  const [statusLine = "", ...lines] = raw.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = raw.slice(end + 4);
  const length = headers["content-length"] !== undefined ? Number(headers["content-length"]) : rest.length;
  return { status: Number(statusLine.split(" ")[1] ?? 0), headers, body: Buffer.from(rest, "latin1").subarray(0, length).toString("utf8"), raw, closed, ms };
}

/** Whether the first complete response has arrived in `raw`. */
function complete(raw: string): boolean {
  const end = raw.indexOf("\r\n\r\n");
  if (end === -1) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(raw.slice(0, end));
  return length ? Buffer.byteLength(raw, "latin1") - (end + 4) >= Number(length[1]) : false;
}

export interface RawOptions {
  /** Give up after this long (default 5 s). */
  readonly timeoutMs?: number;
  /** Called with the open socket after `bytes` are written (to trickle or cut off a body). */
  readonly then?: (socket: Socket) => void | Promise<void>;
}

/** Sends `bytes` to 127.0.0.1:`port` and resolves with the first response once it is complete or the socket closes. */
export function rawRequest(port: number, bytes: string | Uint8Array, options: RawOptions = {}): Promise<RawResponse> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let raw = "";
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseRawResponse(raw, closed, performance.now() - started));
    };
    const timer = setTimeout(() => finish(false), options.timeoutMs ?? 5_000);
    socket.on("data", (chunk) => {
      raw += chunk.toString("latin1");
      if (complete(raw)) finish(false);
    });
    socket.on("end", () => finish(true));
    socket.on("close", () => finish(true));
    socket.on("error", () => finish(true));
    socket.write(bytes, () => void options.then?.(socket));
  });
}

/** A request head (request line and headers, CRLF-joined, blank line at the end). */
export function head(requestLine: string, headers: Record<string, string | number> = {}): string {
  return `${requestLine}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`;
}

/** A JSON POST with a correct Content-Length. */
export function jsonPost(path: string, body: string, headers: Record<string, string | number> = {}): string {
  return head(`POST ${path} HTTP/1.1`, { Host: "127.0.0.1", "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), Connection: "close", ...headers }) + body;
}
