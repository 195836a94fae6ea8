/**
 * @module x402/facilitators/remote — client of a facilitator's HTTP API: POST /verify, POST /settle,
 * GET /supported. A reply whose body is a VerifyResponse/SettleResponse is believed whatever its
 * status (facilitators answer 400 with `isValid:false`); anything else is an unexpected error. A
 * settle whose request may have reached the facilitator but got no answer is indeterminate
 * (`settlement_pending`): answering 402 there would make the buyer pay twice.
 */
import { Value } from "@sinclair/typebox/value";
import type { FacilitatorConfig } from "../network-config.ts";
import type { Facilitator } from "../facilitator.ts";
import {
  SettleResponse,
  SupportedResponse,
  VerifyResponse,
  X402_VERSION,
  reasons,
  type PaymentPayload,
  type PaymentRequirements,
} from "../messages.ts";

export interface RemoteFacilitatorOptions extends FacilitatorConfig {
  /** Injected for tests and to keep every connection on an allowed host. */
  readonly fetch?: typeof fetch;
}

export class FacilitatorUnavailable extends Error {
  override name = "FacilitatorUnavailable";
}

function isConnectRefused(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ConnectionRefused" || code === "ECONNREFUSED" || /connection refused|unable to connect/i.test(String(error));
}

export function createRemoteFacilitator(options: RemoteFacilitatorOptions): Facilitator {
  const base = options.url.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;

  async function call(path: string, body: unknown | undefined): Promise<{ status: number; json: unknown }> {
    const response = await doFetch(`${base}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }), ...(options.headers ?? {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, json };
  }

  const request = (payload: PaymentPayload, requirements: PaymentRequirements) => ({
    x402Version: X402_VERSION,
    paymentPayload: payload,
    paymentRequirements: requirements,
  });

  return {
    async verify(payload, requirements) {
      try {
        const { status, json } = await call("/verify", request(payload, requirements));
        if (Value.Check(VerifyResponse, json)) return json;
        return { isValid: false, invalidReason: reasons.unexpectedVerifyError, invalidMessage: `facilitator answered ${status}` };
      } catch {
        return { isValid: false, invalidReason: reasons.unexpectedVerifyError, invalidMessage: "facilitator unreachable" };
      }
    },
    async settle(payload, requirements) {
      const failure = { success: false, transaction: "", network: requirements.network, amount: requirements.amount };
      try {
        const { status, json } = await call("/settle", request(payload, requirements));
        if (Value.Check(SettleResponse, json)) return json;
        // A 5xx without a SettleResponse tells nothing about whether the transfer was sent.
        return status >= 500
          ? { ...failure, errorReason: reasons.settlementPending, errorMessage: `facilitator answered ${status}` }
          : { ...failure, errorReason: reasons.unexpectedSettleError, errorMessage: `facilitator answered ${status}` };
      } catch (error) {
        return isConnectRefused(error)
          ? { ...failure, errorReason: reasons.unexpectedSettleError, errorMessage: "facilitator unreachable" }
          : { ...failure, errorReason: reasons.settlementPending, errorMessage: "no answer from the facilitator" };
      }
    },
    async supported() {
      let result: { status: number; json: unknown };
      try {
        result = await call("/supported", undefined);
      } catch (error) {
        throw new FacilitatorUnavailable(`facilitator ${base} unreachable`, { cause: error });
      }
      if (!Value.Check(SupportedResponse, result.json)) throw new FacilitatorUnavailable(`facilitator ${base} /supported answered ${result.status} without a SupportedResponse`);
      return result.json;
    },
  };
}
