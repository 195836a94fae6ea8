/**
 * @module buyer/buy-cli — `tollbooth buy URL [--json BODY] [--max-usd 0.05] [--network base|algorand]
 * [--asset ADDR] [--asset-decimals 6] [--algod-url URL] [--key-file FILE] [--spend-log FILE] [--daily-cap-usd 1]`,
 * or over MCP `tollbooth buy --mcp URL TOOL [--json ARGS] ...`: prints one JSON document (status
 * or is_error, what was paid, the settlement receipt, the evidence check, the seller's answer).
 * Exit 0 only for a 2xx answer (over MCP: a result that is no tool error) whose evidence (when
 * signed) verifies; 1 for a refusal or a failed call; 2 for a usage error.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { buy } from "./buy.ts";
import { buyMcp } from "./buy-mcp.ts";
import { BuyerRefusal } from "./key-file.ts";
import type { ReceiptCheck, TermsCheck } from "./signed-terms.ts";

export const defaultSpendLog = () => join(homedir(), ".tollbooth", "spend-log.jsonl");

export interface BuyCliOptions {
  readonly url: string | undefined;
  readonly mcp?: boolean;
  /** With --mcp: the tool to call (the second word). */
  readonly tool?: string | undefined;
  readonly json?: string | undefined;
  readonly maxUsd?: string | undefined;
  readonly dailyCapUsd?: string | undefined;
  readonly network?: string | undefined;
  readonly asset?: string | undefined;
  readonly assetDecimals?: string | undefined;
  readonly keyFile?: string | undefined;
  readonly spendLog?: string | undefined;
  readonly algodUrl?: string | undefined;
  /** Refuse an unsigned or wrongly signed offer (nothing signed) and fail on such a receipt. */
  readonly requireSigned?: boolean;
}

export async function buyForCli(options: BuyCliOptions, doFetch: typeof fetch = fetch): Promise<number> {
  const { url, json, asset, keyFile, algodUrl, requireSigned } = options;
  const maxUsd = Number(options.maxUsd ?? "0.05");
  const dailyCapUsd = Number(options.dailyCapUsd ?? "1");
  const network = options.network ?? "base";
  const decimals = options.assetDecimals;
  const spendLog = options.spendLog ?? defaultSpendLog();
  if (!url || !/^https?:\/\//i.test(url) || (options.mcp ? !options.tool : options.tool !== undefined)) {
    console.error("usage: tollbooth buy URL [--json BODY] [--max-usd 0.05] [--network base|base-sepolia|algorand|algorand-testnet|CAIP-2] [--asset ADDR|ASA] [--algod-url URL] [--key-file FILE] [--spend-log FILE] [--daily-cap-usd 1] [--require-signed]");
    console.error("       tollbooth buy --mcp URL TOOL [--json ARGS] [the same budget flags]");
    return 2;
  }
  if (algodUrl !== undefined && !/^https?:\/\//i.test(algodUrl)) {
    console.error("tollbooth buy: --algod-url takes an http(s) URL");
    return 2;
  }
  if (decimals !== undefined && !/^\d{1,2}$/.test(decimals)) {
    console.error("tollbooth buy: --asset-decimals takes a whole number");
    return 2;
  }
  try {
    const budget = { keyFile, network, asset, decimals: decimals === undefined ? undefined : Number(decimals), maxUsd, dailyCapUsd, spendLog, algodUrl, requireSigned, fetch: doFetch };
    if (options.mcp) return await buyToolForCli({ url, tool: options.tool!, json, ...budget });
    const outcome = await buy({ url, json, ...budget });
    console.log(JSON.stringify({ status: outcome.status, paid: outcome.paid ?? null, receipt: outcome.receipt ?? null, ...signaturesOf(outcome), evidence: outcome.evidence ?? null, result: outcome.body }, null, 2));
    if (outcome.status === 402 && outcome.paid) {
      console.error("tollbooth buy: the seller answered 402 again after the payment was signed (price changed, or the payment was refused); no second signature was made");
      return 1;
    }
    if (outcome.evidence && !outcome.evidence.valid) {
      console.error(`tollbooth buy: paid, but the signed evidence does not verify: ${outcome.evidence.failed}: ${outcome.evidence.detail}`);
      return 1;
    }
    if (unsignedReceipt("tollbooth buy", outcome, requireSigned)) return 1;
    return outcome.status >= 200 && outcome.status < 300 ? 0 : 1;
  } catch (error) {
    if (!(error instanceof BuyerRefusal)) throw error;
    console.error(`tollbooth buy: refused: ${error.message}`);
    return 1;
  }
}

type Signed = { readonly offerSignature?: TermsCheck; readonly receiptSignature?: ReceiptCheck; readonly receipt?: { readonly success: boolean } };

const signaturesOf = (outcome: Signed) => ({ offer_signature: outcome.offerSignature ?? null, receipt_signature: outcome.receiptSignature ?? null });

/** With --require-signed, a settled payment whose receipt is missing or does not verify fails the command (it is paid: said, not hidden). */
function unsignedReceipt(command: string, outcome: Signed, requireSigned: boolean | undefined): boolean {
  if (!requireSigned || !outcome.receipt?.success || outcome.receiptSignature?.valid) return false;
  console.error(`${command}: --require-signed: paid, but ${outcome.receiptSignature?.detail ?? "the settlement carries no signed receipt"}`);
  return true;
}

async function buyToolForCli(options: Parameters<typeof buyMcp>[0]): Promise<number> {
  let outcome;
  try {
    outcome = await buyMcp(options);
  } catch (error) {
    if (error instanceof BuyerRefusal) throw error;
    console.error(`tollbooth buy --mcp: the MCP call to ${options.tool} at ${options.url} failed: ${(error as Error).message}`);
    return 1;
  }
  console.log(JSON.stringify({ tool: options.tool, is_error: outcome.isError, paid: outcome.paid ?? null, receipt: outcome.receipt ?? null, ...signaturesOf(outcome), evidence: outcome.evidence ?? null, result: outcome.body }, null, 2));
  if (outcome.askedAgain) {
    console.error("tollbooth buy --mcp: the tool asked for payment again after the payment was signed (price changed, or the payment was refused); no second signature was made");
    return 1;
  }
  if (outcome.evidence && !outcome.evidence.valid) {
    console.error(`tollbooth buy --mcp: paid, but the signed evidence does not verify: ${outcome.evidence.failed}: ${outcome.evidence.detail}`);
    return 1;
  }
  if (unsignedReceipt("tollbooth buy --mcp", outcome, options.requireSigned)) return 1;
  return outcome.isError ? 1 : 0;
}
