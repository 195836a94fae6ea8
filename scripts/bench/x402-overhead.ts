/**
 * Latency a paid call adds over the same call with payments off — verification and bookkeeping,
 * settlement excluded — for our gate and for the official @x402 server (x402HTTPResourceServer +
 * in-process x402Facilitator with @x402/evm) on an equivalent route, in the same run, against a real
 * anvil on 127.0.0.1. Payments are signed by the official buyer beforehand (signing is the buyer's
 * cost); each paid request verifies one fresh authorization, then releases it (ours) unsettled.
 *
 *   node_modules/.bin/bun scripts/bench/x402-overhead.ts [requests=300]
 */
import { x402Facilitator } from "@x402/core/facilitator";
import { x402HTTPResourceServer, x402ResourceServer } from "@x402/core/server";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { registerExactEvmScheme as registerFacilitatorEvm } from "@x402/evm/exact/facilitator";
import { ExactEvmScheme as ExactEvmServerScheme } from "@x402/evm/exact/server";
import { loadavg } from "node:os";
import { createWalletClient, http, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { openEvidenceKeys } from "../../src/evidence/key-file.ts";
import { createPaymentGate, type PaidOperation } from "../../src/x402/gate.ts";
import { createOfferReceiptSigner } from "../../src/x402/offer-receipt.ts";
import { freshDatabase, NETWORK, startEvmFixture, USDC } from "../../test/x402/evm-fixture.ts";

const N = Number(process.argv[2] ?? 300);
const fx = await startEvmFixture();
await fx.token.mint(fx.buyer.address, 1000n * USDC);

const work = (body: Record<string, unknown>) => ({ echoed: body.text });
const op: PaidOperation = { resource: { url: "http://127.0.0.1/v1/echo", description: "Echo", mimeType: "application/json" }, priceUsd: "0.005" };

// ── our gate, signing offers and receipts as a server does (offer-receipt extension) ─────────────
const offerReceipts = await createOfferReceiptSigner(await openEvidenceKeys(":memory:"));
const gate = createPaymentGate({ config: fx.config(), db: freshDatabase(), offerReceipts });

// ── the official server on an equivalent route ──────────────────────────────
const settlerAccount = privateKeyToAccount(fx.settler.key);
const settlerClient = createWalletClient({ account: settlerAccount, chain: fx.anvil.publicClient.chain, transport: http(fx.anvil.url) }).extend(publicActions);
const facilitator = new x402Facilitator();
registerFacilitatorEvm(facilitator, { signer: toFacilitatorEvmSigner({ ...settlerClient, address: settlerAccount.address } as never), networks: NETWORK as `${string}:${string}` });
const resourceServer = new x402ResourceServer({
  verify: (p: never, r: never) => facilitator.verify(p, r),
  settle: (p: never, r: never) => facilitator.settle(p, r),
  getSupported: async () => facilitator.getSupported(),
} as never).register(NETWORK as `${string}:${string}`, new ExactEvmServerScheme());
const official = new x402HTTPResourceServer(resourceServer, {
  "POST /v1/echo": {
    accepts: { scheme: "exact", network: NETWORK as `${string}:${string}`, payTo: fx.payTo, price: { amount: "5000", asset: fx.token.address, extra: { name: "USD Coin", version: "2" } }, maxTimeoutSeconds: 300 },
    description: "Echo",
    mimeType: "application/json",
  },
} as never);
await official.initialize();

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const url = new URL(request.url);
    const body = (await request.json()) as Record<string, unknown>;
    if (url.pathname === "/off") return Response.json({ ok: true, result: work(body) });
    if (url.pathname === "/ours") {
      const authorized = await gate.authorize(request.headers, op);
      if (authorized.kind === "answer") return Response.json(authorized.answer.body, { status: authorized.answer.status, headers: authorized.answer.headers });
      const result = work(body);
      gate.release(authorized.payment); // settlement excluded from the measurement
      return Response.json({ ok: true, result });
    }
    const adapter = {
      getHeader: (name: string) => request.headers.get(name) ?? undefined,
      getMethod: () => "POST",
      getPath: () => "/v1/echo",
      getUrl: () => request.url,
      getAcceptHeader: () => "application/json",
      getUserAgent: () => "bench",
      getBody: () => body,
    };
    const result = (await official.processHTTPRequest({ adapter, path: "/v1/echo", method: "POST", paymentHeader: request.headers.get("payment-signature") ?? undefined } as never)) as { type: string; response?: { status: number } };
    if (result.type !== "payment-verified") return Response.json({ ok: false, type: result.type }, { status: result.response?.status ?? 500 });
    return Response.json({ ok: true, result: work(body) });
  },
});
const base = `http://127.0.0.1:${server.port}`;

async function signMany(path: string, count: number): Promise<string[]> {
  const headers: string[] = [];
  for (let i = 0; i < count; i++) headers.push(await fx.capturePayment(`${base}${path}`, { text: "hi" }));
  return headers;
}

async function measure(path: string, headers: (string | undefined)[]): Promise<number[]> {
  const times: number[] = [];
  for (const header of headers) {
    const started = performance.now();
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(header ? { "PAYMENT-SIGNATURE": header } : {}) },
      body: JSON.stringify({ text: "hi" }),
    });
    await response.arrayBuffer();
    times.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
  }
  return times;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

// /official needs a 402 from the official server for the buyer to sign: point capture at our route
// (identical requirements) and reuse the signatures — both servers verify the same kind of payload.
const oursHeaders = await signMany("/ours", N);
const officialHeaders = await signMany("/ours", N);
// The gate reserved nothing yet (capture never sends the payment), so all signatures are fresh.
// The three routes take turns request by request, so a shared machine's drift falls on each alike.
await measure("/off", Array(50).fill(undefined)); // warm-up
await measure("/ours", oursHeaders.slice(0, 20));
await measure("/official", officialHeaders.slice(0, 20));
const off: number[] = [];
const ours: number[] = [];
const theirs: number[] = [];
for (let i = 20; i < N; i++) {
  const turn = [
    async () => off.push(...(await measure("/off", [undefined]))),
    async () => ours.push(...(await measure("/ours", [oursHeaders[i]]))),
    async () => theirs.push(...(await measure("/official", [officialHeaders[i]]))),
  ];
  // Rotate who goes first, so no side always follows the same one.
  for (let k = 0; k < turn.length; k++) await turn[(i + k) % turn.length]!();
}

const row = (name: string, t: number[]) =>
  `${name.padEnd(28)} p50 ${percentile(t, 50).toFixed(2).padStart(7)} ms   p90 ${percentile(t, 90).toFixed(2).padStart(7)} ms   n=${t.length}`;
console.log(`requests taking turns (off, ours, official); ${navigator.hardwareConcurrency} cores, load average ${loadavg()[0]!.toFixed(1)} (shared machine)`);
console.log(row("payments off", off));
console.log(row("our gate (verify+reserve)", ours));
console.log(row("official x402 server", theirs));
const added = (t: number[]) => percentile(t, 50) - percentile(off, 50);
console.log(`added at the median: ours ${added(ours).toFixed(2)} ms, official ${added(theirs).toFixed(2)} ms (ours / official ${(added(ours) / added(theirs)).toFixed(2)})`);

// Settlement is excluded above; the one thing our settled call adds after it is signing the receipt.
const signing: number[] = [];
for (let i = 0; i < N; i++) {
  const started = performance.now();
  await offerReceipts.receipt({ resourceUrl: op.resource.url, payer: fx.buyer.address, network: NETWORK, transaction: `0x${"ab".repeat(32)}`, requestId: `req_${i}` });
  signing.push(performance.now() - started);
}
console.log(row("receipt signing (settled)", signing));

await server.stop(true);
await fx.stop();
process.exit(0);
