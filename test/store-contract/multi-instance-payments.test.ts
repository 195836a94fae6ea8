/**
 * Four instances on one PostgreSQL (issue 28): four paid servers, each with its own payment gate and
 * its own pool on one shared database, behind a tiny round-robin proxy on loopback. The official x402
 * buyer's signature sent to all of them at once runs the work once and settles once on a real anvil;
 * the others answer as one process does for a payment in flight (409) or used (402). The payment
 * lookup then answers the same from every instance. (The paid servers are test/x402/paid-server.ts:
 * the request ↔ gate mapping of the app without its other table families, which are not yet on
 * PostgreSQL.)
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { openPgFacets, type PgFacets } from "../../src/database.ts";
import { createPaymentGate, type PaidOperation, type PaymentGate } from "../../src/x402/gate.ts";
import type { PaymentPayload } from "../../src/x402/messages.ts";
import { startPostgres, type TestPostgres } from "../support/postgres.ts";
import { skipWithout } from "../support/requirements.ts";
import { type EvmFixture, startEvmFixture } from "../x402/evm-fixture.ts";
import { type PaidServer, startPaidServer } from "../x402/paid-server.ts";

const noPostgres = skipWithout("postgres", "four instances on one PostgreSQL");

const instanceCount = 4;
const operation = (_body: Record<string, unknown>, url: URL): PaidOperation => ({
  resource: { url: `http://127.0.0.1${url.pathname}`, description: "Echo", mimeType: "application/json" },
  priceUsd: { anvil: "0.005" },
});

let pg: TestPostgres | undefined;
let fx: EvmFixture;
const pools: PgFacets[] = [];
const gates: PaymentGate[] = [];
const servers: PaidServer[] = [];
let proxy: ReturnType<typeof Bun.serve> | undefined;

/** Round robin over the instances, request by request, as a load balancer would. */
function startProxy(backends: readonly string[]) {
  let next = 0;
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const target = new URL(request.url);
      const backend = new URL(backends[next++ % backends.length]!);
      target.protocol = backend.protocol;
      target.host = backend.host;
      return fetch(target, { method: request.method, headers: request.headers, body: request.method === "GET" ? undefined : await request.arrayBuffer() });
    },
  });
}

beforeAll(async () => {
  if (noPostgres) return;
  [pg, fx] = await Promise.all([startPostgres(), startEvmFixture()]);
  const url = await pg.createDatabase("four_instances");
  for (let i = 0; i < instanceCount; i++) {
    const pool = await openPgFacets(url, { max: 4 });
    pools.push(pool);
    const gate = createPaymentGate({ config: fx.config(), receipts: pool.receipts!, pollingIntervalMs: 20 });
    gates.push(gate);
    servers.push(startPaidServer({ gate, operation, work: async (body) => ({ echoed: body.text }) }));
  }
  proxy = startProxy(servers.map((s) => s.url));
}, 180_000);

afterAll(async () => {
  await proxy?.stop(true);
  for (const s of servers) await s.stop();
  await Promise.all(pools.map((p) => p.close()));
  await fx?.stop();
  await pg?.stop();
});

describe.skipIf(noPostgres)(`${instanceCount} instances on one PostgreSQL`, () => {
  it("settles one signature sent to every instance at once exactly once, and every instance looks it up alike", async () => {
    const base = `http://127.0.0.1:${proxy!.port}`;
    const header = await fx.capturePayment(`${base}/v1/echo`, { text: "hi" });
    const balance = () => fx.token.balanceOf(fx.buyer.address);
    const before = await balance();
    const runsBefore = servers.reduce((n, s) => n + s.workRuns(), 0);

    const responses = await Promise.all(
      Array.from({ length: instanceCount * 3 }, () =>
        fetch(`${base}/v1/echo`, { method: "POST", headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": header }, body: JSON.stringify({ text: "hi" }) }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.every((s) => s === 200 || s === 409 || s === 402)).toBe(true);
    expect(servers.reduce((n, s) => n + s.workRuns(), 0)).toBe(runsBefore + 1);
    expect(await balance()).toBe(before - 5000n);

    const nonce = (JSON.parse(Buffer.from(header, "base64").toString("utf8")) as PaymentPayload).payload as { authorization: { nonce: string } };
    const seen = await Promise.all(gates.map((g) => g.lookup(nonce.authorization.nonce)));
    expect(seen[0]).toMatchObject({ state: "settled", amount: "5000" });
    for (const lookup of seen) expect(lookup).toEqual(seen[0]);
    // Through the proxy, each request on another instance: the same answer.
    const viaHttp = await Promise.all(Array.from({ length: instanceCount }, async () => (await (await fetch(`${base}/v1/payments/${nonce.authorization.nonce}`)).json()) as Record<string, unknown>));
    for (const body of viaHttp) expect(body).toMatchObject({ ok: true, state: "settled", id: seen[0]!.id });

    // Sent again later to each instance: used, refused, nothing moves.
    const again = await Promise.all(servers.map((s) => fetch(`${s.url}/v1/echo`, { method: "POST", headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": header }, body: JSON.stringify({ text: "hi" }) })));
    expect(again.map((r) => r.status)).toEqual(Array(instanceCount).fill(402));
    expect(await balance()).toBe(before - 5000n);
  }, 120_000);
});
