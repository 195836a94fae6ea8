/**
 * Catches the payment an official x402 client signs instead of letting it reach the seller, so a
 * test can replay it, tamper with it or check it. `editRequired` rewrites the seller's 402 first
 * (amount, payTo, asset...) so the client signs for terms the seller never offered.
 */
import type { PaymentRequired } from "../../src/x402/messages.ts";
import { decodePaymentRequired, encodeBase64Json } from "../../src/x402/headers.ts";

export interface PaymentCatcher {
  /** The fetch to hand the official client. */
  fetch: typeof fetch;
  /** The PAYMENT-SIGNATURE header the client sent; throws when it sent none. */
  captured(): string;
}

export function catchPayment(editRequired?: (required: PaymentRequired) => void): PaymentCatcher {
  let signature: string | undefined;
  const intercept = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const sent = request.headers.get("PAYMENT-SIGNATURE");
    if (sent) {
      signature = sent;
      return new Response("{}", { status: 200 });
    }
    const response = await fetch(request);
    if (response.status !== 402 || !editRequired) return response;
    const decoded = decodePaymentRequired(response.headers.get("PAYMENT-REQUIRED") ?? "");
    if (!decoded.ok) throw new Error(decoded.reason);
    editRequired(decoded.value);
    return new Response("{}", { status: 402, headers: { "PAYMENT-REQUIRED": encodeBase64Json(decoded.value) } });
  };
  return {
    fetch: intercept as typeof fetch,
    captured() {
      if (!signature) throw new Error("the official client sent no payment");
      return signature;
    },
  };
}
