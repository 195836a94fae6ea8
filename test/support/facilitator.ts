/**
 * A facilitator HTTP service on 127.0.0.1 speaking the x402 facilitator API (POST /verify,
 * POST /settle, GET /supported) over any implementation: ours (in-process mechanisms) or the
 * official `x402Facilitator`. Malformed requests get 400, thrown errors 500, as the official
 * example facilitator does.
 */
import { Value } from "@sinclair/typebox/value";
import { FacilitatorRequest, type PaymentPayload, type PaymentRequirements } from "../../src/x402/messages.ts";

export interface FacilitatorImplementation {
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<unknown>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<unknown>;
  supported(): Promise<unknown>;
}

export interface FacilitatorServer {
  readonly url: string;
  /** Request paths seen, in order (to prove the gate really went through HTTP). */
  readonly calls: string[];
  /** Requests carrying this header value are counted as authenticated. */
  readonly authorized: () => number;
  stop(): Promise<void>;
}

/** `port`: a fixed port (a facilitator that comes up where a server already expects it); a free one by default. */
export function startFacilitatorServer(impl: FacilitatorImplementation, options: { apiKey?: string; port?: number } = {}): FacilitatorServer {
  const calls: string[] = [];
  let authorized = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      calls.push(`${request.method} ${path}`);
      if (options.apiKey !== undefined) {
        if (request.headers.get("authorization") !== `Bearer ${options.apiKey}`) return Response.json({ error: "unauthorized" }, { status: 401 });
        authorized++;
      }
      try {
        if (request.method === "GET" && path === "/supported") return Response.json(await impl.supported());
        if (request.method === "POST" && (path === "/verify" || path === "/settle")) {
          const body: unknown = await request.json().catch(() => undefined);
          if (!Value.Check(FacilitatorRequest, body)) return Response.json({ error: "invalid request" }, { status: 400 });
          const result = path === "/verify" ? await impl.verify(body.paymentPayload, body.paymentRequirements) : await impl.settle(body.paymentPayload, body.paymentRequirements);
          return Response.json(result);
        }
        return Response.json({ error: "not found" }, { status: 404 });
      } catch (error) {
        return Response.json({ error: String(error) }, { status: 500 });
      }
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    calls,
    authorized: () => authorized,
    stop: async () => {
      await server.stop(true);
    },
  };
}
