/**
 * @module http/serve — what the runtime seam (serve.ts, above the app) builds a request from: the
 * request's context with the client address looked up on first read, the body read within 1 MiB and
 * its deadline, and the runtime's server (runtime/serve.ts: Bun or Deno) started on a handler.
 */
import { ApiError } from "../errors.ts";
import { type PeerLookup, serveHttp } from "../runtime/serve.ts";
import type { Logger } from "../log.ts";
import type { ClientResolver } from "./client-address.ts";
import { newRequestId, type RequestContext } from "./request-context.ts";
import { ROUTING_ORIGIN } from "./request-target.ts";

export const maxBodyBytes = 1024 * 1024;

export type FetchHandler = (request: Request) => Promise<Response> | Response;
/**
 * A free document's answer to a GET, given the request as it came and its context: no body to
 * read and no router or Elysia lifecycle in between (the app registers the same answer as a route).
 */
export type FreeAnswer = (request: Request, context: RequestContext) => Promise<Response> | Response;
/**
 * `client` is the peer's address, or the runtime's lookup (runtime/serve.ts), which then runs only
 * for requests that read it. Answers synchronously when it can (a free document), so the runtime
 * gets no promise for it.
 */
export type RequestHandler = (request: Request, client: string | PeerLookup) => Promise<Response> | Response;

/** A request's context whose client address is looked up on first read (a class: one shape for every request). */
export class ServedRequest implements RequestContext {
  readonly id = newRequestId();
  readonly startedAt = performance.now();
  origin = ROUTING_ORIGIN;
  headersAdded?: boolean;
  paymentInBody?: boolean;
  operationId?: string;
  outcome?: string;
  route?: string;
  #address: string | undefined;
  readonly #request: Request;
  readonly #peer: string | PeerLookup;
  readonly #clients: ClientResolver | undefined;

  constructor(request: Request, peer: string | PeerLookup, clients: ClientResolver | undefined) {
    this.#request = request;
    this.#peer = peer;
    this.#clients = clients;
  }

  get clientIp(): string {
    if (this.#address === undefined) {
      const peer = typeof this.#peer === "string" ? this.#peer : this.#peer.peer(this.#request);
      this.#address = this.#clients ? this.#clients.resolve(peer, this.#request.headers) : peer;
    }
    return this.#address;
  }
}

/**
 * Reads at most 1 MiB of body within the deadline (a declared length is checked first; the body is
 * counted as it arrives) and re-wraps the request on `url`. A body cut off by the client is
 * CLIENT_CLOSED (499), never an internal error.
 */
export async function bufferBody(request: Request, url: string, timeoutMs: number): Promise<Request> {
  // A bodiless request on its own URL is passed as is: reading `signal` or `headers` makes Bun build objects each time.
  const bodiless = request.method === "GET" || request.method === "HEAD" || !request.body;
  if (bodiless && url === request.url) return request;
  const init = { method: request.method, headers: request.headers, signal: request.signal };
  if (bodiless) return new Request(url, init);
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBodyBytes) throw new ApiError("BODY_TOO_LARGE");
  const body = await readCapped(request.body, timeoutMs);
  return new Request(url, { ...init, body });
}

async function readCapped(stream: ReadableStream<Uint8Array>, timeoutMs: number): Promise<Uint8Array<ArrayBuffer>> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ApiError("REQUEST_TIMEOUT", { message: `The request body did not arrive within ${timeoutMs} ms; nothing was charged.` })), timeoutMs);
  });
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await Promise.race([reader.read(), deadline]);
      } catch (error) {
        if (error instanceof ApiError) throw error;
        throw new ApiError("CLIENT_CLOSED", { message: "The caller closed the connection before the request body arrived; nothing was charged.", cause: error });
      }
      if (next.done) break;
      total += next.value.byteLength;
      if (total > maxBodyBytes) throw new ApiError("BODY_TOO_LARGE");
      chunks.push(next.value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

export interface RunningServer {
  readonly url: URL;
  readonly port: number;
  stop(): Promise<void>;
}

export function startServer(handler: RequestHandler, options: { host: string; port: number; log: Logger }): RunningServer {
  const server = serveHttp({
    host: options.host,
    port: options.port,
    fetch: handler,
    onError(error) {
      // Only reached if the handler itself failed: still our JSON, never a page or a path.
      options.log.error("request handler failed", { error: error.message, stack: error.stack });
      const body = new ApiError("INTERNAL_ERROR").toBody();
      return new Response(JSON.stringify(body), { status: 500, headers: { "content-type": "application/json; charset=utf-8", connection: "close" } });
    },
  });
  return {
    url: new URL(`http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${server.port}/`),
    port: server.port,
    stop: () => server.stop(),
  };
}
