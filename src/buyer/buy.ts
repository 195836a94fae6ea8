/**
 * @module buyer/buy — pays one paid route of any x402 v2 seller with the official client
 * (@x402/core with @x402/evm, or @x402/avm on Algorand), within a budget: the free 402 preview is read and vetted (network,
 * asset, fields, price against --max-usd and the daily cap) before anything is signed; exactly
 * one signature is made, for the offer vetted; a seller that answers 402 again gets no second one.
 * A Tollbooth's signed evidence in the answer is verified against the seller's published keys.
 */
import { x402Client, x402HTTPClient } from "@x402/core/client";
import { checkEvidence, type EvidenceCheck, hasAttestation, namesOf } from "./evidence-check.ts";
import { BuyerRefusal, readBuyerKey } from "./key-file.ts";
import { buyNetwork } from "./offer.ts";
import { appendSpend } from "./spend-log.ts";
import { checkSignedReceipt, type ReceiptCheck, type TermsCheck } from "./signed-terms.ts";
import { type Budget, checkBudget, checkJson, type Paid, type Receipt, signVetted, toReceipt } from "./vetting-signer.ts";

/** What either buyer (HTTP here, MCP in buy-mcp.ts) takes: the budget (network, asset, caps, spend log), the JSON sent and the key. */
export interface BuyerOptions extends Budget {
  /** The JSON sent (HTTP: the POST body, absent: GET; MCP: the tool's arguments, absent: {}). */
  readonly json?: string | undefined;
  readonly keyFile?: string | undefined;
  readonly fetch?: typeof fetch;
}

/** What to buy over HTTP. */
export interface BuyOptions extends BuyerOptions {
  readonly url: string;
}

/** What either buyer found of the payment and the answer. */
export interface BuyerChecks {
  /** What was paid, when a payment was signed. */
  readonly paid?: Paid;
  /** The seller's settlement receipt (HTTP: PAYMENT-RESPONSE; MCP: `_meta["x402/payment-response"]`), when it sent one. */
  readonly receipt?: Receipt;
  /** The signed evidence in the answer, checked against the seller's /.well-known/jwks.json. */
  readonly evidence?: EvidenceCheck;
  /** The seller's signed offer (offer-receipt extension), checked before paying. */
  readonly offerSignature?: TermsCheck;
  /** The seller's signed receipt in that receipt, checked after paying. */
  readonly receiptSignature?: ReceiptCheck;
}

export interface BuyOutcome extends BuyerChecks {
  readonly status: number;
  readonly body: unknown;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function buy(options: BuyOptions): Promise<BuyOutcome> {
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? (() => new Date());
  const key = readBuyerKey(options.keyFile, buyNetwork(options.network).family);
  checkBudget(options);
  checkJson(options.json);
  const init = (headers: Record<string, string> = {}): RequestInit =>
    options.json === undefined
      ? { method: "GET", headers: { accept: "application/json", ...headers } }
      : { method: "POST", headers: { "content-type": "application/json", accept: "application/json", ...headers }, body: options.json };

  const preview = await doFetch(options.url, init());
  if (preview.status !== 402) return { status: preview.status, body: await readBody(preview) };

  // Reading and encoding the x402 HTTP headers needs no signer; signing happens in signVetted only.
  const http = new x402HTTPClient(new x402Client());
  let required;
  try {
    required = http.getPaymentRequiredResponse((name) => preview.headers.get(name), await readBody(preview));
  } catch (error) {
    throw new BuyerRefusal(`the 402 carries no readable x402 v2 PAYMENT-REQUIRED: ${(error as Error).message}`);
  }
  const { payload, paid: what, terms, offer } = await signVetted(key, required, options, { url: options.url, fetch: doFetch });
  const paid = await doFetch(options.url, init(http.encodePaymentSignatureHeader(payload)));
  const body = await readBody(paid);
  let settlement: unknown;
  if (paid.headers.get("payment-response")) {
    try {
      settlement = http.getPaymentSettleResponse((name) => paid.headers.get(name));
    } catch {
      settlement = undefined;
    }
  }
  const receipt = settlement ? toReceipt(settlement as Parameters<typeof toReceipt>[0]) : undefined;
  const settled = paid.ok && receipt?.success === true;
  appendSpend(options.spendLog, {
    event: settled ? "settled" : "not_settled",
    at: now().toISOString(),
    url: options.url,
    status: paid.status,
    ...(receipt?.transaction ? { transaction: receipt.transaction } : {}),
  });
  const receiptSignature = receipt?.success ? await checkSignedReceipt(settlement, terms, { sellerUrl: options.url, fetch: doFetch }, now()) : undefined;
  const outcome: BuyOutcome = { status: paid.status, body, paid: what, offerSignature: offer, ...(receipt ? { receipt } : {}), ...(receiptSignature ? { receiptSignature } : {}) };
  if (paid.status === 402) return outcome; // asked again: the caller reports it; no second signature
  if (paid.ok && hasAttestation(body)) return { ...outcome, evidence: await checkEvidence(options.url, body, namesOf(receipt, receiptSignature), doFetch) };
  return outcome;
}
