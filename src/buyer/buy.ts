/**
 * @module buyer/buy — pays one paid route of any x402 v2 seller with the official client
 * (@x402/core, @x402/evm), within a budget: the free 402 preview is read and vetted (network,
 * asset, fields, price against --max-usd and the daily cap) before anything is signed; exactly
 * one signature is made, for the offer vetted; a seller that answers 402 again gets no second one.
 * A Tollbooth's signed evidence in the answer is verified against the seller's published keys.
 */
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { verifyEvidence, type Verification } from "../evidence/verify.ts";
import { BuyerRefusal, readBuyerKey } from "./key-file.ts";
import { type Requirement, vetOffer } from "./offer.ts";
import { appendSpend, signedToday } from "./spend-log.ts";

export interface BuyOptions {
  readonly url: string;
  /** JSON body (POST); absent: GET. */
  readonly json?: string | undefined;
  readonly keyFile?: string | undefined;
  readonly network: string;
  readonly asset?: string | undefined;
  readonly decimals?: number | undefined;
  readonly maxUsd: number;
  readonly dailyCapUsd: number;
  readonly spendLog: string;
  readonly fetch?: typeof fetch;
  readonly now?: () => Date;
}

export interface BuyOutcome {
  readonly status: number;
  readonly body: unknown;
  /** What was paid, when a payment was signed. */
  readonly paid?: { readonly usd: number; readonly network: string; readonly payTo: string };
  /** The seller's settlement receipt (PAYMENT-RESPONSE), when it sent one. */
  readonly receipt?: { readonly success: boolean; readonly transaction?: string; readonly network?: string; readonly payer?: string };
  /** The signed evidence in the answer, checked against the seller's /.well-known/jwks.json. */
  readonly evidence?: { readonly valid: boolean; readonly failed?: string; readonly detail: string };
}

const sameOffer = (a: Requirement, b: Requirement) =>
  a.scheme === b.scheme && a.network === b.network && a.asset.toLowerCase() === b.asset.toLowerCase() && a.amount === b.amount && a.payTo.toLowerCase() === b.payTo.toLowerCase();

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const hasAttestation = (body: unknown): boolean => {
  if (typeof body !== "object" || body === null) return false;
  const b = body as { attestation?: unknown; batch?: unknown; results?: unknown[] };
  return b.attestation !== undefined || (b.batch === true && Array.isArray(b.results) && b.results.some((r) => typeof r === "object" && r !== null && "attestation" in r));
};

async function checkEvidence(url: string, body: unknown, transaction: string | undefined, doFetch: typeof fetch): Promise<BuyOutcome["evidence"]> {
  const jwksUrl = new URL("/.well-known/jwks.json", url).toString();
  let jwks: { keys: Record<string, unknown>[] };
  try {
    const response = await doFetch(jwksUrl, { headers: { accept: "application/json" } });
    jwks = (await response.json()) as { keys: Record<string, unknown>[] };
    if (!Array.isArray(jwks?.keys)) throw new Error("no keys array");
  } catch (error) {
    return { valid: false, failed: "jwks", detail: `cannot read ${jwksUrl}: ${(error as Error).message}` };
  }
  const outcome: Verification = await verifyEvidence(body, jwks);
  if (outcome.kind === "malformed") return { valid: false, failed: outcome.part, detail: outcome.message };
  if (outcome.failed) return { valid: false, failed: outcome.failed.part, detail: outcome.failed.detail };
  const unpaid = outcome.statements.find((s) => transaction !== undefined && s.payment?.transaction !== transaction);
  if (unpaid) return { valid: false, failed: "payment", detail: `the statement names transaction ${String(unpaid.payment?.transaction)}, the receipt ${transaction}` };
  return { valid: true, detail: `${outcome.statements.length} signed result(s) verified against ${jwksUrl}${transaction ? `, naming transaction ${transaction}` : ""}` };
}

export async function buy(options: BuyOptions): Promise<BuyOutcome> {
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? (() => new Date());
  const key = readBuyerKey(options.keyFile);
  if (!(options.maxUsd >= 0) || !(options.dailyCapUsd >= 0)) throw new BuyerRefusal("--max-usd and --daily-cap-usd must be numbers of dollars, 0 or more");
  if (options.json !== undefined) {
    try {
      JSON.parse(options.json);
    } catch (error) {
      throw new BuyerRefusal(`--json is not JSON: ${(error as Error).message}`);
    }
  }
  const init = (headers: Record<string, string> = {}): RequestInit =>
    options.json === undefined
      ? { method: "GET", headers: { accept: "application/json", ...headers } }
      : { method: "POST", headers: { "content-type": "application/json", accept: "application/json", ...headers }, body: options.json };

  const preview = await doFetch(options.url, init());
  if (preview.status !== 402) return { status: preview.status, body: await readBody(preview) };

  const account = privateKeyToAccount(key);
  // The selector only ever hands the client the offer vetted below; the spend controls repeat its cap.
  let vetted: Requirement | undefined;
  const client = new x402Client((_version, accepts) => {
    const chosen = vetted && accepts.find((a) => sameOffer(a as Requirement, vetted!));
    if (!chosen) throw new BuyerRefusal("the offer to sign is not the one vetted: refused");
    return chosen;
  });
  const http = new x402HTTPClient(client);
  let required;
  try {
    required = http.getPaymentRequiredResponse((name) => preview.headers.get(name), await readBody(preview));
  } catch (error) {
    throw new BuyerRefusal(`the 402 carries no readable x402 v2 PAYMENT-REQUIRED: ${(error as Error).message}`);
  }
  const offer = vetOffer(required.accepts, {
    network: options.network,
    asset: options.asset,
    decimals: options.decimals,
    maxUsd: options.maxUsd,
    dailyCapUsd: options.dailyCapUsd,
    spentTodayUsd: signedToday(options.spendLog, now()),
  });
  vetted = offer.requirement;
  registerExactEvmScheme(client, { signer: account, networks: [vetted.network as `${string}:${string}`] });
  client.setSpendControls({ maxAmountPerPayment: false, allowedAssets: [{ network: vetted.network as `${string}:${string}`, asset: vetted.asset, maxAmountPerPayment: vetted.amount }] });

  const payload = await client.createPaymentPayload(required);
  appendSpend(options.spendLog, { event: "signed", at: now().toISOString(), url: options.url, network: vetted.network, asset: vetted.asset, pay_to: vetted.payTo, amount: vetted.amount, usd: offer.usd });
  const paid = await doFetch(options.url, init(http.encodePaymentSignatureHeader(payload)));
  const body = await readBody(paid);
  let receipt: BuyOutcome["receipt"];
  if (paid.headers.get("payment-response")) {
    try {
      const settle = http.getPaymentSettleResponse((name) => paid.headers.get(name));
      receipt = { success: settle.success, ...(settle.transaction ? { transaction: settle.transaction } : {}), ...(settle.network ? { network: settle.network } : {}), ...(settle.payer ? { payer: settle.payer } : {}) };
    } catch {
      receipt = undefined;
    }
  }
  const settled = paid.ok && receipt?.success === true;
  appendSpend(options.spendLog, {
    event: settled ? "settled" : "not_settled",
    at: now().toISOString(),
    url: options.url,
    status: paid.status,
    ...(receipt?.transaction ? { transaction: receipt.transaction } : {}),
  });
  const outcome: BuyOutcome = { status: paid.status, body, paid: { usd: offer.usd, network: vetted.network, payTo: vetted.payTo }, ...(receipt ? { receipt } : {}) };
  if (paid.status === 402) return outcome; // asked again: the caller reports it; no second signature
  if (paid.ok && hasAttestation(body)) return { ...outcome, evidence: await checkEvidence(options.url, body, receipt?.transaction, doFetch) };
  return outcome;
}
