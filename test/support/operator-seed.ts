/**
 * Seeds a data folder with what an operator's dashboard shows: settled, pending and failed
 * receipts over the last days on two networks and three routes, request outcomes, queued and
 * running jobs and refunds due. Written through the store modules the server uses.
 */
import { openStore } from "../../src/database.ts";

const day = 86_400_000;
const asset = { "eip155:8453": "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", algorand: "31566704" } as const;

export async function seedOperatorData(dataDir: string, now = new Date()): Promise<void> {
  const store = openStore(dataDir);
  const receipts = store.receipts;
  let n = 0;
  const receipt = async (network: keyof typeof asset, amount: number, operation: string, daysAgo: number, end: "settled" | "pending" | "failed") => {
    n++;
    const at = new Date(now.getTime() - daysAgo * day - n * 1000);
    const id = `rcpt_seed_${n}`;
    await receipts.reserve({ id, network, asset: asset[network], payTo: "0xpay", payer: `0xpayer${n % 3}`, amount: String(amount), nonce: `0x${n.toString(16).padStart(8, "0")}`, validBefore: null, requestId: `req_${n}`, operationId: operation, now: at });
    if (end === "failed") {
      await receipts.markFailed(id, "invalid_exact_evm_insufficient_balance", null, at);
      return;
    }
    await receipts.claimForSettlement(id, { requestId: `req_${n}`, operationId: operation, settleRequest: null, now: at });
    if (end === "settled") await receipts.markSettled(id, `0xtx${n}`, new Date(at.getTime() + 1500));
  };
  // 25 settled payments over 12 days; today has some too.
  const plan: [keyof typeof asset, number, string][] = [
    ["eip155:8453", 5000, "web.read"],
    ["eip155:8453", 8000, "web.markdown"],
    ["algorand", 10000, "host.report"],
    ["eip155:8453", 5000, "web.read"],
    ["algorand", 5000, "web.read"],
  ];
  for (let i = 0; i < 25; i++) {
    const [network, amount, operation] = plan[i % plan.length]!;
    await receipt(network, amount + i, operation, i % 12, "settled");
  }
  // An old one outside the 30-day window, two pending, one failed.
  await receipt("eip155:8453", 999_000, "web.read", 45, "settled");
  await receipt("eip155:8453", 5000, "web.read", 0, "pending");
  await receipt("algorand", 5000, "web.fetch", 1, "pending");
  await receipt("eip155:8453", 5000, "web.read", 2, "failed");

  // Request outcomes: calls with previews, refusals and failures.
  const statuses = [200, 200, 402, 200, 400, 200, 502, 402, 200, 429];
  for (let i = 0; i < 40; i++) {
    const at = new Date(now.getTime() - (i % 9) * day - i * 1000).toISOString();
    store.requestOutcomes.record({ requestId: `req_out_${i}`, operationId: "web.read", method: "POST", route: i % 4 === 0 ? "/v1/jobs" : "/v1/web/read", status: statuses[i % statuses.length]!, outcome: "seed", durationMs: 20 + i, at });
  }
  await store.requestOutcomes.flush();

  // Jobs: two queued, one running, two refunds due, one paid.
  const job = async (id: string, status: "queued" | "running" | "refund" | "refunded", priceMicros: number) => {
    const createdAt = new Date(now.getTime() - 60_000);
    await store.jobs.insert({ id, skill: "host.report", sync: false, input: {}, caller: "payer:0xabc", payer: "0xabc", network: "algorand", priceMicros, payment: null, settleMode: status === "refund" || status === "refunded" ? "acceptance" : "completion", requestId: `req_${id}`, createdAt });
    if (status === "queued") return;
    await store.jobs.markRunning(id, createdAt);
    if (status === "running") return;
    await store.jobs.markSettled(id, null, createdAt);
    await store.jobs.fail(id, { status: "expired", code: "JOB_TIMEOUT", message: "late", refundReason: "JOB_TIMEOUT: late" }, now, new Date(now.getTime() + day));
    if (status === "refunded") await store.jobs.markRefundPaid(id, "0xrefund");
  };
  await job("job_seed_q1", "queued", 10_000);
  await job("job_seed_q2", "queued", 10_000);
  await job("job_seed_r1", "running", 10_000);
  await job("job_seed_f1", "refund", 10_000);
  await job("job_seed_f2", "refund", 25_000);
  await job("job_seed_f3", "refunded", 10_000);
  store.close();
}
