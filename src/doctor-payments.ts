/**
 * @module doctor-payments — `tollbooth doctor` checks for payments: the wallets buyers pay, the
 * facilitator answering /supported for each remotely settled network, and the RPC or algod
 * endpoint for each locally settled one.
 */
import type { Config } from "./config.ts";
import type { CheckResult } from "./doctor.ts";
import { x402ConfigFrom } from "./payments-setup.ts";
import { resolveNetworks, type ResolvedNetwork } from "./x402/config.ts";
import { createRemoteFacilitator } from "./x402/facilitators/remote.ts";

const timeoutMs = 5_000;

async function reachable(url: string, init: RequestInit): Promise<string | undefined> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    return res.ok ? undefined : `answered HTTP ${res.status}`;
  } catch (error) {
    return (error as Error).message;
  }
}

async function checkNetwork(n: ResolvedNetwork, config: Config): Promise<CheckResult> {
  const name = `payments ${n.network}`;
  if (n.settlement === "remote") {
    const facilitator = n.facilitator ?? x402ConfigFrom(config).facilitator;
    if (!facilitator) return { name, status: "fail", detail: "settlement is remote but no facilitator URL is configured (--facilitator-url)" };
    try {
      const supported = await createRemoteFacilitator({ ...facilitator, timeoutMs }).supported();
      const kinds = supported.kinds.filter((k) => k.network === n.network && k.scheme === "exact");
      if (kinds.length === 0) return { name, status: "fail", detail: `facilitator ${facilitator.url} does not list exact on ${n.network}` };
      return { name, status: "ok", detail: `pay to ${n.payTo}; facilitator ${facilitator.url} supports exact on ${n.network}` };
    } catch (error) {
      return { name, status: "fail", detail: `facilitator ${facilitator.url} unreachable: ${(error as Error).message}` };
    }
  }
  if (n.family === "evm") {
    if (!n.rpcUrl || !n.settlerPrivateKey) return { name, status: "fail", detail: "local settlement needs rpcUrl and settlerPrivateKey" };
    const problem = await reachable(n.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    });
    return problem
      ? { name, status: "fail", detail: `RPC ${n.rpcUrl}: ${problem}` }
      : { name, status: "ok", detail: `pay to ${n.payTo}; settling locally through ${n.rpcUrl}` };
  }
  if (!n.algodUrl || !n.feePayerMnemonic) return { name, status: "fail", detail: "local settlement needs algodUrl and feePayerMnemonic" };
  const problem = await reachable(new URL("/v2/transactions/params", n.algodUrl).toString(), { headers: n.algodToken ? { "X-Algo-API-Token": n.algodToken } : {} });
  return problem ? { name, status: "fail", detail: `algod ${n.algodUrl}: ${problem}` } : { name, status: "ok", detail: `pay to ${n.payTo}; settling locally through ${n.algodUrl}` };
}

export async function checkPayments(config: Config): Promise<CheckResult[]> {
  if (config.payments === "off") return [{ name: "payments", status: "warn", detail: "off: every call is free (use --payments on with wallets to sell)" }];
  let networks: ResolvedNetwork[];
  try {
    networks = resolveNetworks(x402ConfigFrom(config));
  } catch (error) {
    return [{ name: "payments", status: "fail", detail: (error as Error).message }];
  }
  return Promise.all(networks.map((n) => checkNetwork(n, config)));
}
