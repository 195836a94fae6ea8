/**
 * A tiny round-robin HTTP proxy on loopback, standing in for the operator's load balancer (Caddy,
 * nginx) in multi-instance tests: each request goes to the next backend in turn, body and headers as
 * sent; a backend that refuses the connection is skipped (as a balancer's passive health check
 * does), so a killed instance drops out without failing the caller. When none answers, a 502 names
 * each backend's error.
 */
export interface RoundRobinProxy {
  /** Base URL without the trailing slash. */
  readonly url: string;
  /** Requests answered by each backend, in the order of `backends`. */
  readonly served: number[];
  stop(): void;
}

const HOP_BY_HOP = ["connection", "keep-alive", "transfer-encoding", "host", "content-length"];

export function startRoundRobinProxy(backends: readonly string[]): RoundRobinProxy {
  if (backends.length === 0) throw new Error("a proxy needs at least one backend");
  const served = backends.map(() => 0);
  let next = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const incoming = new URL(request.url);
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      const headers = new Headers(request.headers);
      for (const name of HOP_BY_HOP) headers.delete(name);
      const errors: string[] = [];
      // Each backend twice over: a pooled connection the backend has just closed fails once, as a stale keep-alive socket does.
      for (let tried = 0; tried < backends.length * 2; tried++) {
        const index = next;
        next = (next + 1) % backends.length;
        try {
          const answer = await fetch(new URL(incoming.pathname + incoming.search, backends[index] as string), {
            method: request.method,
            headers,
            body,
            redirect: "manual",
          });
          served[index] = (served[index] ?? 0) + 1;
          const out = new Headers(answer.headers);
          for (const name of HOP_BY_HOP) out.delete(name);
          out.delete("content-encoding");
          return new Response(await answer.arrayBuffer(), { status: answer.status, headers: out });
        } catch (error) {
          // connection refused: that instance is down; try the next one
          errors.push(`${backends[index]}: ${(error as Error).message}`);
        }
      }
      return Response.json({ ok: false, error: "BAD_GATEWAY", status: 502, message: `no backend answered: ${errors.join("; ")}` }, { status: 502 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    served,
    stop: () => server.stop(true),
  };
}
