/**
 * MCP and A2A against plain HTTP for the same operation, in the same run, on 127.0.0.1:
 *  1. free calls per second: `tools/call capabilities` on POST /mcp and the `capabilities` skill
 *     (a data part) on POST /a2a in both wires (v0.3 `message/send`; A2A v1.0 `SendMessage` with
 *     `A2A-Version: 1.0`) against POST /v1/jobs/capabilities (payments off; the same skill, the
 *     same core), alternating rounds of the four;
 *  2. the latency a paid call adds: p50 of a paid `capabilities` call over MCP
 *     (`_meta["x402/payment"]`) and over A2A (the paying `message/send` with
 *     `x402.payment.payload` on a task opened beforehand, as the HTTP and MCP offers are fetched
 *     beforehand) against the same call over HTTP (PAYMENT-SIGNATURE), settled on a real anvil,
 *     the three interleaved. A2A needs one more round trip per call (the task's offer): its p50 is
 *     printed apart. Payments are signed beforehand by the official buyer (@x402/core +
 *     @x402/evm): signing is the buyer's cost.
 * Both servers run in this process, as the load does: figures are for comparing the two columns.
 * Calls per CPU second of the process are printed beside the wall-clock rates: on a machine shared
 * with other work they compare the transports' cost far more steadily.
 *
 *   node_modules/.bin/bun scripts/bench/mcp-overhead.ts [--seconds 3] [--rounds 3] [--concurrency 16] [--paid 60]
 * (`--paid 0` measures the free calls only.)
 */
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { loadavg } from "node:os";
import { privateKeyToAccount } from "viem/accounts";
import { startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { decodePaymentRequired, encodeBase64Json } from "../../src/x402/headers.ts";
import type { PaymentRequired } from "../../src/x402/messages.ts";
import { NETWORK, startEvmFixture, USDC } from "../../test/x402/evm-fixture.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const SECONDS = option("seconds", 3);
const ROUNDS = option("rounds", 3);
const CONCURRENCY = option("concurrency", 16);
const PAID = option("paid", 60);

const log = createLogger({ level: "error", sink: () => {} });
const freePort = () => {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port ?? 0;
  probe.stop(true);
  return port;
};
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
const A2A_HEADERS = { "content-type": "application/json" };
const a2aSend = (taskId?: string, metadata?: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "message/send",
    params: { message: { kind: "message", messageId: crypto.randomUUID(), role: "user", ...(taskId ? { taskId } : {}), ...(metadata ? { metadata } : {}), parts: [taskId ? { kind: "text", text: "payment" } : { kind: "data", data: { skill: "capabilities" } }] } },
  });
type A2aTask = { id: string; status: { state: string; message?: { metadata?: Record<string, unknown> } } };
const a2aTask = async (res: Response) => {
  const body = (await res.json()) as { result?: A2aTask };
  if (res.status !== 200 || !body.result?.status) throw new Error(`A2A call failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body.result;
};
const a2aV1Send = () =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ data: { skill: "capabilities" } }] } } });
const toolCall = (meta?: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "capabilities", arguments: {}, ...(meta ? { _meta: meta } : {}) } });

// ── 1. free calls per second ────────────────────────────────────────────────
const freePortNumber = freePort();
const free = await startService(loadConfig({ argv: ["--data", ":memory:", "--port", String(freePortNumber), "--host", "127.0.0.1", "--rate-limit-per-min", "1000000000", "--memory-soft-limit-mb", "0"], env: {} }), { log });
const freeBase = free.server.url.toString().replace(/\/$/, "");

const httpCall = async () => {
  const res = await fetch(`${freeBase}/v1/jobs/capabilities`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  if (res.status !== 200) throw new Error(`HTTP call answered ${res.status}`);
  await res.arrayBuffer();
};
const mcpCall = async () => {
  const res = await fetch(`${freeBase}/mcp`, { method: "POST", headers: MCP_HEADERS, body: toolCall() });
  const body = (await res.json()) as { result?: { isError?: boolean } };
  if (res.status !== 200 || !body.result || body.result.isError) throw new Error(`MCP call failed: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
};

const a2aCall = async () => {
  const task = await a2aTask(await fetch(`${freeBase}/a2a`, { method: "POST", headers: A2A_HEADERS, body: a2aSend() }));
  if (task.status.state !== "completed") throw new Error(`A2A task ended ${task.status.state}`);
};

const a2aV1Call = async () => {
  const res = await fetch(`${freeBase}/a2a`, { method: "POST", headers: { ...A2A_HEADERS, "A2A-Version": "1.0" }, body: a2aV1Send() });
  const body = (await res.json()) as { result?: { task?: { status?: { state?: string } } } };
  if (res.status !== 200 || body.result?.task?.status?.state !== "TASK_STATE_COMPLETED") throw new Error(`A2A 1.0 call failed: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
};

// Calls per second of this process's CPU time (client and server alike): what the wall-clock rate is
// when the process has the CPU to itself, and far less moved by other work on a shared machine.
const perCpuSecond = { http: [] as number[], mcp: [] as number[], a2a: [] as number[], a2aV1: [] as number[] };
async function perSecond(call: () => Promise<void>, cpu: number[]): Promise<number> {
  const until = performance.now() + SECONDS * 1000;
  const cpuBefore = process.cpuUsage();
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await call();
        done++;
      }
    }),
  );
  const used = process.cpuUsage(cpuBefore);
  cpu.push(done / ((used.user + used.system) / 1e6));
  return done / SECONDS;
}

for (let i = 0; i < 200; i++) await Promise.all([httpCall(), mcpCall(), a2aCall(), a2aV1Call()]); // warm-up
const rates = { http: [] as number[], mcp: [] as number[], a2a: [] as number[], a2aV1: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  rates.http.push(await perSecond(httpCall, perCpuSecond.http));
  rates.mcp.push(await perSecond(mcpCall, perCpuSecond.mcp));
  rates.a2a.push(await perSecond(a2aCall, perCpuSecond.a2a));
  rates.a2aV1.push(await perSecond(a2aV1Call, perCpuSecond.a2aV1));
}
await free.close();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const httpRate = median(rates.http);
const mcpRate = median(rates.mcp);
const a2aRate = median(rates.a2a);
const a2aV1Rate = median(rates.a2aV1);

const p50 = (xs: number[]) => median(xs);
const printFree = () => {
  console.log(`MCP and A2A vs HTTP, same run (load average ${loadavg().map((l) => l.toFixed(1)).join(" ")} on ${navigator.hardwareConcurrency} cores: other work on this machine moves both columns)`);
  // Each MCP round beside the HTTP round just before it: the machine's speed drifts less within a pair.
  const pairRatio = median(rates.mcp.map((m, i) => m / rates.http[i]!));
  const a2aPairRatio = median(rates.a2a.map((m, i) => m / rates.http[i]!));
  const a2aV1PairRatio = median(rates.a2aV1.map((m, i) => m / rates.http[i]!));
  console.log(`  free calls/s (capabilities skill, ${CONCURRENCY} at a time, median of ${ROUNDS} × ${SECONDS} s): HTTP ${httpRate.toFixed(0)}  MCP ${mcpRate.toFixed(0)}  → MCP at ${((mcpRate / httpRate) * 100).toFixed(0)} % of HTTP; median of the round pairs ${(pairRatio * 100).toFixed(0)} % (target ≥ 50 %)`);
  console.log(`    A2A v0.3 ${a2aRate.toFixed(0)}  → A2A at ${((a2aRate / httpRate) * 100).toFixed(0)} % of HTTP; median of the round pairs ${(a2aPairRatio * 100).toFixed(0)} % (target ≥ 40 %)`);
  console.log(`    A2A v1.0 ${a2aV1Rate.toFixed(0)}  → A2A at ${((a2aV1Rate / httpRate) * 100).toFixed(0)} % of HTTP; median of the round pairs ${(a2aV1PairRatio * 100).toFixed(0)} % (target ≥ 40 %)`);
  console.log(`    rounds HTTP ${rates.http.map((r) => r.toFixed(0)).join(", ")} · MCP ${rates.mcp.map((r) => r.toFixed(0)).join(", ")} · A2A v0.3 ${rates.a2a.map((r) => r.toFixed(0)).join(", ")} · A2A v1.0 ${rates.a2aV1.map((r) => r.toFixed(0)).join(", ")}`);
  const cpu = { http: median(perCpuSecond.http), mcp: median(perCpuSecond.mcp), a2a: median(perCpuSecond.a2a), a2aV1: median(perCpuSecond.a2aV1) };
  const share = (n: number) => `${n.toFixed(0)} (${((n / cpu.http) * 100).toFixed(0)} %)`;
  console.log(`  calls per CPU second of this process (client + server; little moved by other load): HTTP ${cpu.http.toFixed(0)}  MCP ${share(cpu.mcp)}  A2A v0.3 ${share(cpu.a2a)}  A2A v1.0 ${share(cpu.a2aV1)}`);
};
if (PAID <= 0) {
  printFree();
  process.exit(0);
}

// ── 2. added latency of a paid call ─────────────────────────────────────────
const fx = await startEvmFixture();
await fx.token.mint(fx.buyer.address, 100n * USDC);
const paidPort = freePort();
const paid = await startService(
  loadConfig({
    argv: ["--data", ":memory:", "--port", String(paidPort), "--host", "127.0.0.1", "--public-url", `http://127.0.0.1:${paidPort}`, "--payments", "on", "--rate-limit-per-min", "1000000000", "--memory-soft-limit-mb", "0"],
    env: { TOLLBOOTH_X402: JSON.stringify(fx.config()) },
  }),
  { log, pollingIntervalMs: 5 },
);
const paidBase = paid.server.url.toString().replace(/\/$/, "");
const buyer = new x402Client();
registerExactEvmScheme(buyer, { signer: privateKeyToAccount(fx.buyer.key), networks: [NETWORK] });
buyer.setSpendControls({ allowedAssets: [{ network: NETWORK, asset: fx.token.address }] });

const httpOffer = await fetch(`${paidBase}/v1/jobs/capabilities`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
const httpRequired = decodePaymentRequired(httpOffer.headers.get("payment-required") ?? "");
if (!httpRequired.ok) throw new Error(httpRequired.reason);
const mcpOffer = (await (await fetch(`${paidBase}/mcp`, { method: "POST", headers: MCP_HEADERS, body: toolCall() })).json()) as { result: { structuredContent: PaymentRequired } };
const a2aOffer = async () => {
  const started = performance.now();
  const task = await a2aTask(await fetch(`${paidBase}/a2a`, { method: "POST", headers: A2A_HEADERS, body: a2aSend() }));
  const offerMs = performance.now() - started;
  const required = task.status.message?.metadata?.["x402.payment.required"] as PaymentRequired | undefined;
  if (task.status.state !== "input-required" || !required) throw new Error(`A2A offer missing: ${JSON.stringify(task).slice(0, 300)}`);
  return { taskId: task.id, required, offerMs };
};
const a2aOffers: Awaited<ReturnType<typeof a2aOffer>>[] = [];
for (let i = 0; i < PAID; i++) a2aOffers.push(await a2aOffer());
const sign = async (required: PaymentRequired) => (await buyer.createPaymentPayload(required as never)) as unknown;
const httpPayments = await Promise.all(Array.from({ length: PAID }, () => sign(httpRequired.value)));
const mcpPayments = await Promise.all(Array.from({ length: PAID }, () => sign(mcpOffer.result.structuredContent)));
const a2aPayments = await Promise.all(a2aOffers.map((o) => sign(o.required)));

const timed = async (run: () => Promise<void>) => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};
const latencies = { http: [] as number[], mcp: [] as number[], a2a: [] as number[] };
for (let i = 0; i < PAID; i++) {
  const runs = [
    async () =>
      latencies.http.push(
        await timed(async () => {
          const res = await fetch(`${paidBase}/v1/jobs/capabilities`, { method: "POST", headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": encodeBase64Json(httpPayments[i]) }, body: "{}" });
          if (res.status !== 200) throw new Error(`paid HTTP call answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
          await res.arrayBuffer();
        }),
      ),
    async () =>
      latencies.mcp.push(
        await timed(async () => {
          const res = await fetch(`${paidBase}/mcp`, { method: "POST", headers: MCP_HEADERS, body: toolCall({ "x402/payment": mcpPayments[i] }) });
          const body = (await res.json()) as { result?: { isError?: boolean; _meta?: Record<string, { success?: boolean }> } };
          if (!body.result?._meta?.["x402/payment-response"]?.success) throw new Error(`paid MCP call failed: ${JSON.stringify(body).slice(0, 300)}`);
        }),
      ),
    async () =>
      latencies.a2a.push(
        await timed(async () => {
          const res = await fetch(`${paidBase}/a2a`, { method: "POST", headers: A2A_HEADERS, body: a2aSend(a2aOffers[i]!.taskId, { "x402.payment.status": "payment-submitted", "x402.payment.payload": a2aPayments[i] }) });
          const task = await a2aTask(res);
          if (task.status.state !== "completed" || task.status.message?.metadata?.["x402.payment.status"] !== "payment-completed") throw new Error(`paid A2A call failed: ${JSON.stringify(task).slice(0, 300)}`);
        }),
      ),
  ];
  // Rotate which goes first, so none always meets another's leftovers.
  for (let turn = 0; turn < i % runs.length; turn++) runs.push(runs.shift()!);
  for (const run of runs) await run();
}
await paid.close();
await fx.stop();

printFree();
console.log(`  paid call p50 (verify + run + settle on anvil, ${PAID} each, interleaved): HTTP ${p50(latencies.http).toFixed(2)} ms  MCP ${p50(latencies.mcp).toFixed(2)} ms  → added ${(p50(latencies.mcp) - p50(latencies.http)).toFixed(2)} ms (target ≤ +1 ms)`);
console.log(`    A2A ${p50(latencies.a2a).toFixed(2)} ms  → added ${(p50(latencies.a2a) - p50(latencies.http)).toFixed(2)} ms (target ≤ +1 ms); A2A's offer round trip (message/send → input-required, once per task) p50 ${p50(a2aOffers.map((o) => o.offerMs)).toFixed(2)} ms`);
process.exit(0);
