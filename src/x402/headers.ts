/**
 * @module x402/headers — the three x402 v2 HTTP headers: standard padded base64 (RFC 4648 §4, not
 * base64url) of UTF-8 JSON. Decoding is strict, as the official SDK's is: Node's lenient base64
 * would accept strings other implementations refuse, and a header we accept must mean one thing.
 */
import { Value } from "@sinclair/typebox/value";
import { nestsDeeperThan } from "../json-depth.ts";
import { PaymentPayload, PaymentRequired, SettleResponse } from "./messages.ts";

export const PAYMENT_REQUIRED_HEADER = "PAYMENT-REQUIRED";
export const PAYMENT_SIGNATURE_HEADER = "PAYMENT-SIGNATURE";
export const PAYMENT_RESPONSE_HEADER = "PAYMENT-RESPONSE";
/** The v1 request header; recognised only to answer with a clear error. */
export const LEGACY_PAYMENT_HEADER = "X-PAYMENT";

/** For the app's CORS layer: browsers can only pay if they may read and send these. */
export const CORS_EXPOSE_HEADERS = [PAYMENT_REQUIRED_HEADER, PAYMENT_RESPONSE_HEADER] as const;
export const CORS_ALLOW_HEADERS = [PAYMENT_SIGNATURE_HEADER] as const;

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** A header larger than this is refused before decoding (real payloads are under 8 KiB). */
export const MAX_HEADER_CHARS = 32 * 1024;

export function encodeBase64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64");
}

export type DecodeResult<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Strict base64 → UTF-8 → JSON. Never throws. */
export function decodeBase64Json(text: string): DecodeResult<unknown> {
  const trimmed = text.trim();
  if (trimmed.length === 0) return { ok: false, reason: "empty header" };
  if (trimmed.length > MAX_HEADER_CHARS) return { ok: false, reason: "header too large" };
  if (!STRICT_BASE64.test(trimmed)) return { ok: false, reason: "not standard padded base64" };
  let json: string;
  try {
    json = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(trimmed, "base64"));
  } catch {
    return { ok: false, reason: "not UTF-8" };
  }
  if (nestsDeeperThan(json)) return { ok: false, reason: "nested too deeply" };
  try {
    return { ok: true, value: JSON.parse(json) as unknown };
  } catch {
    return { ok: false, reason: "not JSON" };
  }
}

export function encodePaymentRequired(value: PaymentRequired): string {
  return encodeBase64Json(value);
}

export function encodePaymentResponse(value: SettleResponse): string {
  return encodeBase64Json(value);
}

/** The decoded PAYMENT-SIGNATURE, or why it is unusable; `version` tells a v1 payload apart from garbage. */
export type DecodedPaymentSignature =
  | { ok: true; payload: PaymentPayload }
  | { ok: false; reason: string; version?: number };

export function decodePaymentSignature(text: string): DecodedPaymentSignature {
  const decoded = decodeBase64Json(text);
  if (!decoded.ok) return decoded;
  return decodePaymentValue(decoded.value);
}

/** A PaymentPayload already parsed from JSON (MCP's `_meta["x402/payment"]`), checked as strictly as the header's. */
export function decodePaymentValue(value: unknown): DecodedPaymentSignature {
  if (typeof value === "object" && value !== null && "x402Version" in value && value.x402Version !== 2) {
    const version = value.x402Version;
    return { ok: false, reason: "unsupported x402Version", version: typeof version === "number" ? version : -1 };
  }
  if (!Value.Check(PaymentPayload, value)) {
    const first = Value.Errors(PaymentPayload, value).First();
    return { ok: false, reason: first ? `${first.path || "/"}: ${first.message}` : "not a PaymentPayload" };
  }
  return { ok: true, payload: value };
}

export function decodePaymentRequired(text: string): DecodeResult<PaymentRequired> {
  const decoded = decodeBase64Json(text);
  if (!decoded.ok) return decoded;
  return Value.Check(PaymentRequired, decoded.value)
    ? { ok: true, value: decoded.value }
    : { ok: false, reason: "not a PaymentRequired" };
}

export function decodePaymentResponse(text: string): DecodeResult<SettleResponse> {
  const decoded = decodeBase64Json(text);
  if (!decoded.ok) return decoded;
  return Value.Check(SettleResponse, decoded.value)
    ? { ok: true, value: decoded.value }
    : { ok: false, reason: "not a SettleResponse" };
}
