/**
 * @module x402/authorize — the steps before the work, for any transport: price the exact input
 * into offers, match the payment against them, check the extension echo, claim the payment
 * identifier, verify with the facilitator and reserve the authorization atomically. The payment
 * comes as a transport presented it (an encoded header, a decoded `_meta` value, or none).
 */
import { randomUUID } from "node:crypto";
import type { Receipt } from "../store/receipts.ts";
import { paymentKeyOf } from "../store/receipts.ts";
import { checkExtensionEcho, declareBazaar, declareMcpBazaar, type BazaarDeclaration, type McpBazaarDeclaration } from "./extensions.ts";
import type { GateState } from "./gate-state.ts";
import { decodePaymentResponse, PAYMENT_RESPONSE_HEADER } from "./headers.ts";
import type { PresentedPayment } from "./presented-payment.ts";
import { normalizeNetwork } from "./networks.ts";
import { declarePaymentIdentifier, fingerprintCall, payloadDigestOf, PAYMENT_IDENTIFIER, readPaymentIdentifier, type ReplayClaim } from "./payment-identifier.ts";
import { type PaymentAnswer, refusal } from "./payment-answer.ts";
import { OFFER_RECEIPT } from "./offer-receipt.ts";
import { buildOffers, type PriceUsd } from "./pricing.ts";
import type { Rail } from "./families.ts";
import { reasons, type PaymentPayload, type PaymentRequired, type PaymentRequirements, type ResourceInfo } from "./messages.ts";

export { noPayment, type PresentedPayment } from "./presented-payment.ts";

export interface PaidOperation {
  readonly resource: { readonly url: string; readonly description: string; readonly mimeType: string };
  /** The exact total for this body: one USD string, or per network (short name like "base", or CAIP-2 id). */
  readonly priceUsd: PriceUsd;
  readonly bazaar?: BazaarDeclaration | McpBazaarDeclaration;
  /**
   * Digest of the request body (`digestJson`). When set, the offer declares payment-identifier and a
   * retry carrying the same identifier for the same payer and body is answered from memory.
   */
  readonly requestDigest?: string;
  /** Priced by delivery (paid-call/delivery.ts): the price is a limit, offered as `upto` where a network can take it, before its `exact` offer. */
  readonly byDelivery?: boolean;
}

/** Everything needed to settle later, as plain JSON: an async job may store it with the job. */
export interface VerifiedPayment {
  readonly receiptId: string;
  readonly network: string;
  readonly payer: string;
  readonly nonce: string;
  readonly amount: string;
  /** Unix seconds after which this payment cannot settle (EVM validBefore); null when the scheme counts rounds. */
  readonly validBefore: number | null;
  readonly requirements: PaymentRequirements;
  readonly payload: PaymentPayload;
  /** The resource URL offered (the receipt names it); absent in snapshots taken before receipts were signed. */
  readonly resourceUrl?: string;
  /** The buyer's payment-identifier and this call's fingerprint, when the operation is replayable. */
  readonly paymentIdentifier?: { readonly id: string; readonly fingerprint: string };
}

export type AuthorizeResult = { kind: "answer"; answer: PaymentAnswer } | { kind: "verified"; payment: VerifiedPayment };

export interface AuthorizeContext {
  readonly requestId?: string;
  readonly operationId?: string;
  /**
   * Every refusal carries a fresh offer (its `error` the reason): for transports whose only refusal
   * is PaymentRequired (MCP). HTTP keeps its 400s for undecodable headers.
   */
  readonly alwaysOffer?: boolean;
}

export function matchesOffer(accepted: PaymentRequirements, offer: PaymentRequirements): boolean {
  const evm = offer.network.startsWith("eip155:");
  const same = (a: string, b: string) => (evm ? a.toLowerCase() === b.toLowerCase() : a === b);
  if (
    accepted.scheme !== offer.scheme ||
    normalizeNetwork(accepted.network) !== offer.network ||
    accepted.amount !== offer.amount ||
    !same(accepted.asset, offer.asset) ||
    !same(accepted.payTo, offer.payTo) ||
    accepted.maxTimeoutSeconds !== offer.maxTimeoutSeconds
  ) {
    return false;
  }
  const extra = accepted.extra ?? {};
  return Object.entries(offer.extra ?? {}).every(([k, v]) => JSON.stringify(extra[k]) === JSON.stringify(v));
}

export async function offersFor(state: GateState, op: PaidOperation): Promise<PaymentRequirements[]> {
  const extras = new Map<string, Record<string, unknown>>();
  await Promise.all([...state.rails.values()].map(async (rail) => extras.set(rail.network.network, await rail.requirementsExtra())));
  const offers = buildOffers(op.priceUsd, state.networks, {
    maxTimeoutSeconds: state.config.maxTimeoutSeconds,
    extraFor: (n) => extras.get(n.network) ?? {},
  });
  if (offers.length === 0) throw new Error(`operation ${op.resource.url} has no price for any configured network`);
  return op.byDelivery ? withUptoOffers(state, offers) : offers;
}

/** Each exact offer preceded by an `upto` offer for the same limit where its network's rail can take one (the official client takes the first it can pay). */
async function withUptoOffers(state: GateState, offers: readonly PaymentRequirements[]): Promise<PaymentRequirements[]> {
  const extras = await Promise.all(offers.map((offer) => state.rails.get(offer.network)?.uptoRequirementsExtra() ?? Promise.resolve(undefined)));
  return offers.flatMap((offer, i) => {
    const extra = extras[i];
    return extra ? [{ ...offer, scheme: "upto", extra }, offer] : [offer];
  });
}

export function extensionsFor(op: PaidOperation): Record<string, unknown> | undefined {
  const extensions: Record<string, unknown> = {};
  if (op.bazaar) extensions.bazaar = "toolName" in op.bazaar ? declareMcpBazaar(op.bazaar) : declareBazaar(op.bazaar);
  if (op.requestDigest !== undefined) extensions[PAYMENT_IDENTIFIER] = declarePaymentIdentifier();
  return Object.keys(extensions).length > 0 ? extensions : undefined;
}

/** The offers (PaymentRequired) for an operation: the free price preview. */
export async function challengeFor(state: GateState, op: PaidOperation, error?: string): Promise<PaymentRequired> {
  const resource: ResourceInfo = { url: op.resource.url, description: op.resource.description, mimeType: op.resource.mimeType };
  const accepts = await offersFor(state, op);
  // Signed offers are regenerated on every 402 (fresh validUntil): they stay out of the echo check.
  const signed = state.offerReceipts ? { [OFFER_RECEIPT]: await state.offerReceipts.offers(op.resource.url, accepts) } : undefined;
  const extensions = signed ? { ...extensionsFor(op), ...signed } : extensionsFor(op);
  return {
    x402Version: 2,
    ...(error ? { error } : {}),
    resource,
    accepts,
    ...(extensions ? { extensions } : {}),
  };
}

/** A fresh offer (whose `error` is the reason) mirrored in the body. */
async function offerRefusal(state: GateState, op: PaidOperation, reason?: string): Promise<PaymentAnswer> {
  const required = await challengeFor(state, op, reason ?? "Payment required");
  const { error: _error, ...mirror } = required;
  return refusal(reason ? "PAYMENT_INVALID" : "PAYMENT_REQUIRED", { required, details: { ...(reason ? { reason } : {}), ...mirror } });
}

/** The answer for a retry under a known payment identifier; undefined when the call may go on. */
function replayAnswer(claim: ReplayClaim): PaymentAnswer | undefined {
  switch (claim.kind) {
    case "held":
      return { kind: "replayed", held: claim.answer };
    case "in_flight":
      return refusal("PAYMENT_IN_FLIGHT", { details: { payment_id: claim.token } });
    case "not_held": {
      const header = claim.paymentHeaders[PAYMENT_RESPONSE_HEADER];
      const settlement = header !== undefined ? decodePaymentResponse(header) : undefined;
      return refusal("PAYMENT_RESULT_NOT_HELD", settlement?.ok ? { settlement: settlement.value } : {});
    }
    case "conflict":
      return refusal("PAYMENT_ID_CONFLICT");
    case "claimed":
      return undefined;
  }
}

function refusalFor(state: GateState, existing: Receipt, rail: Rail, op: PaidOperation): Promise<PaymentAnswer> | PaymentAnswer {
  if (existing.state === "reserved") return refusal("PAYMENT_IN_FLIGHT", { details: { payment_id: existing.id } });
  return offerRefusal(state, op, rail.replayReason);
}

/** Verifies the presented payment for `op` and reserves it, or says why not (a fresh offer when it helps). */
export async function authorizePayment(state: GateState, presented: PresentedPayment, op: PaidOperation, context: AuthorizeContext = {}): Promise<AuthorizeResult> {
  const result = await authorizeSteps(state, presented, op, context);
  if (!context.alwaysOffer || result.kind === "verified" || result.answer.kind === "replayed" || result.answer.required) return result;
  const answer = result.answer;
  const reason = typeof answer.details?.reason === "string" ? `${answer.code.toLowerCase()}: ${answer.details.reason}` : answer.code.toLowerCase();
  return { kind: "answer", answer: { ...answer, required: await challengeFor(state, op, reason) } };
}

async function authorizeSteps(state: GateState, presented: PresentedPayment, op: PaidOperation, context: AuthorizeContext): Promise<AuthorizeResult> {
  const answer = (a: PaymentAnswer): AuthorizeResult => ({ kind: "answer", answer: a });
  if (presented.kind === "none") return answer(await offerRefusal(state, op));
  if (presented.kind === "legacy") return answer(refusal("PAYMENT_VERSION_UNSUPPORTED", { required: await challengeFor(state, op, "Payment required") }));
  if (presented.kind === "invalid") {
    const code = presented.version !== undefined ? "PAYMENT_VERSION_UNSUPPORTED" : "PAYMENT_HEADER_INVALID";
    return answer(refusal(code, { details: { reason: presented.reason } }));
  }
  const payload = presented.payload;
  const offers = await offersFor(state, op);
  const requirements = offers.find((offer) => matchesOffer(payload.accepted, offer));
  if (!requirements) return answer(await offerRefusal(state, op, reasons.noMatchingRequirements));
  // payment-identifier is optional: a buyer that does not use it may leave it out.
  if (!checkExtensionEcho(extensionsFor(op), payload.extensions, [PAYMENT_IDENTIFIER])) {
    return answer(await offerRefusal(state, op, reasons.extensionEchoMismatch));
  }
  const paymentId = op.requestDigest !== undefined ? readPaymentIdentifier(payload.extensions) : ({ ok: true, id: null } as const);
  if (!paymentId.ok) return answer(refusal("PAYMENT_ID_INVALID", { details: { reason: paymentId.reason } }));
  const rail = state.rails.get(requirements.network);
  if (!rail) return answer(await offerRefusal(state, op, reasons.invalidNetwork));
  const identified = rail.identify(payload);
  if (!identified.ok) return answer(await offerRefusal(state, op, identified.reason));
  const { identity } = identified;
  const identifier =
    paymentId.id !== null && op.requestDigest !== undefined
      ? { id: paymentId.id, fingerprint: fingerprintCall({ payer: identity.payer, network: requirements.network, operation: `${context.operationId ?? ""} ${op.resource.url}`, bodyDigest: op.requestDigest }) }
      : undefined;
  const payloadDigest = identifier ? payloadDigestOf(payload) : "";
  if (identifier) {
    // Answerable before verifying: another call's identifier, or the very payload that paid sent again.
    const early = state.replays.peek(identifier.id, identifier.fingerprint, payloadDigest);
    const replay = early && replayAnswer(early);
    if (replay) return answer(replay);
  }
  const nowSeconds = Math.floor(state.now().getTime() / 1000);
  if (identity.validBefore !== undefined && identity.validBefore < nowSeconds + state.config.settlementMarginSeconds) {
    return answer(await offerRefusal(state, op, rail.expiringReason));
  }
  const keyInput = { network: requirements.network, asset: requirements.asset, payer: identity.payer, nonce: identity.nonce };
  const known = await state.store.getByKey(paymentKeyOf(keyInput));
  if (known && known.state !== "unused" && known.state !== "failed") return answer(await refusalFor(state, known, rail, op));
  const verdict = await rail.facilitator.verify(payload, requirements);
  if (!verdict.isValid) return answer(await offerRefusal(state, op, verdict.invalidReason ?? reasons.unexpectedVerifyError));
  const receiptId = `pay_${randomUUID().replaceAll("-", "")}`;
  if (identifier) {
    // Verified first, so only the payer's own signature can reach a held result.
    const replay = replayAnswer(state.replays.claim(identifier.id, identifier.fingerprint, receiptId));
    if (replay) return answer(replay);
  }
  const reserved = await state.store.reserve({
    id: receiptId,
    ...keyInput,
    payTo: requirements.payTo,
    amount: requirements.amount,
    validBefore: identity.validBefore ?? null,
    requestId: context.requestId ?? null,
    operationId: context.operationId ?? null,
    now: state.now(),
  });
  if (!reserved.ok) {
    if (identifier) state.replays.abandon(identifier.id, receiptId);
    return answer(await refusalFor(state, reserved.existing, rail, op));
  }
  return {
    kind: "verified",
    payment: {
      receiptId: reserved.receipt.id,
      network: requirements.network,
      payer: identity.payer,
      nonce: identity.nonce,
      amount: requirements.amount,
      validBefore: identity.validBefore ?? null,
      requirements,
      payload,
      resourceUrl: op.resource.url,
      ...(identifier ? { paymentIdentifier: identifier } : {}),
    },
  };
}
