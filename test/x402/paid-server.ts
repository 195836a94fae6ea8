/**
 * A minimal paid HTTP server on 127.0.0.1 for tests and benchmarks: the same request ↔ gate mapping
 * the app's plugin does (authorize → work → settle | release), with no framework.
 */
import type { HttpAnswer, PaidOperation, PaymentGate } from "../../src/x402/gate.ts";

export interface PaidServerOptions {
  readonly gate: PaymentGate | undefined;
  /** The operation (resource + exact price) for a validated body. */
  readonly operation: (body: Record<string, unknown>, url: URL) => PaidOperation;
  /** The paid work; throwing means "failed, settle nothing". */
  readonly work: (body: Record<string, unknown>) => Promise<unknown>;
}

export interface PaidServer {
  readonly url: string;
  /** How many times the work ran (to prove one payment ran it once). */
  readonly workRuns: () => number;
  stop(): Promise<void>;
}

function respond(answer: HttpAnswer): Response {
  return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { "content-type": "application/json", ...answer.headers } });
}

export function startPaidServer(options: PaidServerOptions): PaidServer {
  let runs = 0;
  let requestCounter = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const gate = options.gate;
      if (request.method === "GET" && url.pathname.startsWith("/v1/payments/")) {
        if (!gate) return new Response("payments off", { status: 404 });
        const found = await gate.lookup(decodeURIComponent(url.pathname.slice("/v1/payments/".length)));
        return found
          ? Response.json({ ok: true, ...found })
          : Response.json({ ok: false, error: "PAYMENT_NOT_FOUND", status: 404 }, { status: 404 });
      }
      if (request.method !== "POST") return new Response("not found", { status: 404 });
      let body: Record<string, unknown>;
      try {
        body = (await request.json()) as Record<string, unknown>;
      } catch {
        return Response.json({ ok: false, error: "INVALID_JSON", status: 400 }, { status: 400 });
      }
      const requestId = `req_${++requestCounter}`;
      if (!gate) {
        runs++;
        return Response.json({ ok: true, result: await options.work(body) });
      }
      const op = options.operation(body, url);
      const authorized = await gate.authorize(request.headers, op, { requestId, operationId: url.pathname });
      if (authorized.kind === "answer") return respond(authorized.answer);
      let result: unknown;
      try {
        runs++;
        result = await options.work(body);
      } catch (error) {
        await gate.release(authorized.payment);
        return Response.json({ ok: false, error: "SOURCE_UNREACHABLE", status: 502, message: String(error) }, { status: 502 });
      }
      const settled = await gate.settle(authorized.payment, { requestId, operationId: url.pathname });
      if (settled.kind === "answer") return respond(settled.answer);
      return Response.json({ ok: true, result, payment_id: settled.receipt.id }, { headers: settled.headers });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    workRuns: () => runs,
    stop: async () => {
      await server.stop(true);
    },
  };
}
