/**
 * @module doctor/payments — `tollbooth doctor` checks for payments: the wallets buyers pay, the
 * facilitator answering /supported for each remotely settled network, and the RPC or algod
 * endpoint for each locally settled one.
 */
import type { Config } from "../config.ts";
import type { CheckResult } from "./check.ts";
import { loadConfiguredFamilies, x402ConfigFrom } from "../configured-payments.ts";
import { type ConfiguredNetwork, resolveNetworks } from "../x402/config.ts";
import { createRemoteFacilitator } from "../x402/facilitators/remote.ts";

const timeoutMs = 5_000;

async function reachable(url: string, init: RequestInit): Promise<string | undefined> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    return res.ok ? undefined : `answered HTTP ${res.status}`;
  } catch (error) {
    return (error as Error).message;
  }
}

async function checkNetwork(n: ConfiguredNetwork, config: Config): Promise<CheckResult> {
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
      // The remote client's error names the facilitator already; what went wrong is its cause.
      const { message, cause } = error as Error;
      const said = message.startsWith("facilitator ") ? message : `facilitator ${facilitator.url} unreachable: ${message}`;
      return { name, status: "fail", detail: cause instanceof Error ? `${said}: ${cause.message}` : said };
    }
  }
  if (n.family === "loaded") return { name, status: "ok", detail: `pay to ${n.payTo}; settling locally (family ${n.familyName})` };
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

/** spec web-evidence §5.7: the receiving Algorand account must have opted in to the USDC asset. */
async function checkOptIn(n: ConfiguredNetwork): Promise<CheckResult | undefined> {
  if (n.family !== "avm") return undefined;
  const name = `opt-in ${n.network}`;
  if (!n.algodUrl) return { name, status: "warn", detail: `cannot check that ${n.payTo} opted in to asset ${n.asset}: give algodUrl for this network` };
  try {
    const res = await fetch(new URL(`/v2/accounts/${n.payTo}/assets/${n.asset}`, n.algodUrl), {
      headers: n.algodToken ? { "X-Algo-API-Token": n.algodToken } : {},
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.status === 404) return { name, status: "fail", detail: `${n.payTo} has not opted in to asset ${n.asset}: buyers' payments would fail` };
    if (!res.ok) return { name, status: "fail", detail: `algod ${n.algodUrl} answered HTTP ${res.status}` };
    return { name, status: "ok", detail: `${n.payTo} holds asset ${n.asset}` };
  } catch (error) {
    return { name, status: "fail", detail: `algod ${n.algodUrl}: ${(error as Error).message}` };
  }
}

export async function checkPayments(config: Config): Promise<CheckResult[]> {
  if (config.payments === "off") return [{ name: "payments", status: "warn", detail: "off: every call is free (use --payments on with wallets to sell)" }];
  let networks: ConfiguredNetwork[];
  try {
    const x402 = x402ConfigFrom(config);
    await loadConfiguredFamilies(x402);
    networks = resolveNetworks(x402);
  } catch (error) {
    return [{ name: "payments", status: "fail", detail: (error as Error).message }];
  }
  const results = await Promise.all(networks.map(async (n) => [await checkNetwork(n, config), await checkOptIn(n)]));
  return results.flat().filter((r): r is CheckResult => r !== undefined);
}
