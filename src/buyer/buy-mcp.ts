/**
 * @module buyer/buy-mcp — `tollbooth buy --mcp URL TOOL`: pays one tool of any MCP server that
 * speaks x402's MCP transport (coinbase/x402 specs/transports-v2/mcp.md), with the official MCP
 * client (Streamable HTTP) and the official x402 client. The unpaid call's tool error carries the
 * PaymentRequired (structuredContent, or its JSON as the text); it is vetted exactly as the HTTP
 * buyer vets a 402 (buyer/vetting-signer.ts) before one signature, sent once in
 * `_meta["x402/payment"]`; the receipt is `_meta["x402/payment-response"]`; a Tollbooth's signed
 * evidence in the result is verified against the server's published keys.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { checkEvidence, hasAttestation, namesOf } from "./evidence-check.ts";
import { BuyerRefusal, readBuyerKey } from "./key-file.ts";
import type { BuyerChecks, BuyerOptions } from "./buy.ts";
import { buyNetwork } from "./offer.ts";
import { appendSpend } from "./spend-log.ts";
import { checkSignedReceipt } from "./signed-terms.ts";
import { checkBudget, checkJson, type Receipt, signVetted, toReceipt } from "./vetting-signer.ts";

export const PAYMENT_META_KEY = "x402/payment";
export const PAYMENT_RESPONSE_META_KEY = "x402/payment-response";

export interface BuyMcpOptions extends BuyerOptions {
  /** The MCP endpoint, e.g. https://host/mcp. */
  readonly url: string;
  readonly tool: string;
}

export interface BuyMcpOutcome extends BuyerChecks {
  readonly isError: boolean;
  /** The tool's answer: its structured content, else its text parsed as JSON when it is JSON, else its content. */
  readonly body: unknown;
  /** The paid call was answered with a payment offer again (no second signature was made). */
  readonly askedAgain?: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function bodyOf(result: CallToolResult): unknown {
  if (isObject(result.structuredContent)) return result.structuredContent;
  const texts = (result.content ?? []).filter((c): c is { type: "text"; text: string } => c.type === "text");
  if (texts.length === 1) {
    try {
      return JSON.parse(texts[0]!.text);
    } catch {
      return texts[0]!.text;
    }
  }
  return result.content;
}

/** The x402 offer in a tool error, or undefined when the error is not a payment request. */
function offerIn(result: CallToolResult): { x402Version: 2; accepts: unknown[] } | undefined {
  if (!result.isError) return undefined;
  const body = bodyOf(result);
  if (!isObject(body) || !("accepts" in body) || !("x402Version" in body)) return undefined;
  if (body.x402Version !== 2) throw new BuyerRefusal(`the tool asks for x402 version ${String(body.x402Version)}; this buyer speaks version 2 only`);
  if (!Array.isArray(body.accepts)) throw new BuyerRefusal("the tool's payment request has no accepts list");
  return body as { x402Version: 2; accepts: unknown[] };
}

const settlementIn = (result: CallToolResult): unknown => (result._meta as Record<string, unknown> | undefined)?.[PAYMENT_RESPONSE_META_KEY];

function receiptIn(result: CallToolResult): Receipt | undefined {
  const response = settlementIn(result);
  if (!isObject(response) || typeof response.success !== "boolean") return undefined;
  const text = (v: unknown) => (typeof v === "string" ? v : undefined);
  return toReceipt({ success: response.success, transaction: text(response.transaction), network: text(response.network), payer: text(response.payer) });
}

export async function buyMcp(options: BuyMcpOptions): Promise<BuyMcpOutcome> {
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? (() => new Date());
  const key = readBuyerKey(options.keyFile, buyNetwork(options.network).family);
  checkBudget(options);
  const args = checkJson(options.json) ?? {};
  if (!isObject(args)) throw new BuyerRefusal("--json must be a JSON object: the tool's arguments");

  const client = new Client({ name: "tollbooth-buy", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(options.url), { fetch: doFetch }));
  try {
    const call = (meta?: Record<string, unknown>) => client.callTool({ name: options.tool, arguments: args, ...(meta ? { _meta: meta } : {}) }) as Promise<CallToolResult>;
    const preview = await call();
    const required = offerIn(preview);
    if (!required) return { isError: preview.isError === true, body: bodyOf(preview) };

    const { payload, paid: what, terms, offer } = await signVetted(key, required as never, options, { url: options.url, tool: options.tool, fetch: doFetch });
    let paid: CallToolResult;
    try {
      paid = await call({ [PAYMENT_META_KEY]: payload });
    } catch (error) {
      appendSpend(options.spendLog, { event: "not_settled", at: now().toISOString(), url: options.url, tool: options.tool, is_error: true });
      throw error;
    }
    const receipt = receiptIn(paid);
    const isError = paid.isError === true;
    appendSpend(options.spendLog, {
      event: !isError && receipt?.success === true ? "settled" : "not_settled",
      at: now().toISOString(),
      url: options.url,
      tool: options.tool,
      is_error: isError,
      ...(receipt?.transaction ? { transaction: receipt.transaction } : {}),
    });
    const body = bodyOf(paid);
    const receiptSignature = !isError && receipt?.success ? await checkSignedReceipt(settlementIn(paid), terms, { sellerUrl: options.url, fetch: doFetch }, now()) : undefined;
    const outcome: BuyMcpOutcome = { isError, body, paid: what, offerSignature: offer, ...(receipt ? { receipt } : {}), ...(receiptSignature ? { receiptSignature } : {}) };
    if (isError) return isObject(body) && "accepts" in body ? { ...outcome, askedAgain: true } : outcome;
    if (hasAttestation(body)) return { ...outcome, evidence: await checkEvidence(options.url, body, namesOf(receipt, receiptSignature), doFetch) };
    return outcome;
  } finally {
    await client.close();
  }
}
