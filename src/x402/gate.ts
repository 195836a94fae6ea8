/**
 * @module x402/gate — the payment flow, framework-free, in two steps so async jobs can verify at
 * submission and settle later:
 *
 *   authorize(headers, op)  no PAYMENT-SIGNATURE → 402 challenge · undecodable → 400 · v1 → 400
 *                           · recompute offers, match `accepted`, check extension echo, verify,
 *                           reserve the payment atomically → { kind: "verified", payment }
 *   settle(payment, ctx)    → settled (PAYMENT-RESPONSE + receipt) · definite failure → 402 with
 *                           PAYMENT-RESPONSE success:false, result withheld · indeterminate → 504
 *                           SETTLEMENT_PENDING with the transaction, receipt kept pending
 *   release(payment)        work failed: the signature is not burned
 *   lookup(id) / reconcile()
 *   hold(payment, answer)   keep a success answer in memory for a retry under the same
 *                           payment-identifier (same payer, operation and body): answered again,
 *                           never run or charged twice
 *
 * Answers are plain `{ status, headers, body }`; the HTTP layer only copies them.
 */
import { randomUUID } from "node:crypto";
import { errorCodes, type ErrorCode } from "../errors.ts";
import type { Database } from "../store/db.ts";
import { createReceiptStore, paymentKeyOf, type Receipt, type ReceiptState } from "../store/receipts.ts";
import { resolveNetworks, type X402Config } from "./config.ts";
import { checkExtensionEcho, declareBazaar, type BazaarDeclaration } from "./extensions.ts";
import { decodePaymentSignature, encodePaymentRequired, encodePaymentResponse, LEGACY_PAYMENT_HEADER, PAYMENT_REQUIRED_HEADER, PAYMENT_RESPONSE_HEADER, PAYMENT_SIGNATURE_HEADER } from "./headers.ts";
import { normalizeNetwork } from "./networks.ts";
import { createReplayCache, declarePaymentIdentifier, digestJson, fingerprintCall, PAYMENT_IDENTIFIER, readPaymentIdentifier, type ReplayCacheOptions, type ReplayClaim } from "./payment-identifier.ts";
import { buildOffers, type PriceUsd } from "./pricing.ts";
import { createRails, type Rail } from "./families.ts";
import { reasons, type PaymentPayload, type PaymentRequired, type PaymentRequirements, type ResourceInfo, type SettleResponse } from "./messages.ts";

export interface PaidOperation {
  readonly resource: { readonly url: string; readonly description: string; readonly mimeType: string };
  /** The exact total for this body: one USD string, or per network (short name like "base", or CAIP-2 id). */
  readonly priceUsd: PriceUsd;
  readonly bazaar?: BazaarDeclaration;
  /**
   * Digest of the request body (`digestJson`). When set, the 402 declares payment-identifier and a
   * retry carrying the same identifier for the same payer and body is answered from memory.
   */
  readonly requestDigest?: string;
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
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
  /** The buyer's payment-identifier and this call's fingerprint, when the operation is replayable. */
  readonly paymentIdentifier?: { readonly id: string; readonly fingerprint: string };
}

export type PaymentState = Exclude<ReceiptState, "reserved"> | "in_flight";

/** Public view of a payment for the free lookup: never content, never the request URL. */
export interface PaymentLookup {
  readonly id: string;
  readonly state: PaymentState;
  readonly network: string;
  readonly payer: string;
  readonly amount: string;
  readonly nonce: string;
  readonly transaction: string | null;
  readonly reason: string | null;
  readonly updatedAt: string;
}

export type AuthorizeResult = { kind: "answer"; answer: HttpAnswer } | { kind: "verified"; payment: VerifiedPayment };
export type SettleResult = { kind: "settled"; headers: Record<string, string>; receipt: Receipt } | { kind: "answer"; answer: HttpAnswer };

export interface PaymentGate {
  authorize(headers: Headers, op: PaidOperation, context?: { requestId?: string; operationId?: string }): Promise<AuthorizeResult>;
  settle(payment: VerifiedPayment, context: { requestId: string; operationId: string }): Promise<SettleResult>;
  release(payment: VerifiedPayment): void;
  lookup(id: string): PaymentLookup | undefined;
  /** Settles the fate of pending receipts and abandoned reservations; safe to call at any time. */
  reconcile(): Promise<{ settled: number; failed: number; released: number; stillPending: number }>;
  /** The offers (PaymentRequired) for an operation: the free price preview. */
  challenge(op: PaidOperation, error?: string): Promise<PaymentRequired>;
  /** Keeps a settled call's success answer (in memory, for the replay TTL); false when not kept. */
  hold(payment: VerifiedPayment, answer: HttpAnswer): boolean;
}

export interface PaymentGateDeps {
  readonly config: X402Config;
  readonly db: Database;
  readonly now?: () => Date;
  /** Used for remote facilitators (tests inject a loopback-only fetch). */
  readonly fetch?: typeof fetch;
  /** Receipt polling interval for local EVM settlement (default 1 s; tests use less). */
  readonly pollingIntervalMs?: number;
  /** Held results for payment-identifier retries (TTL and byte budget; the clock is `now`). */
  readonly replay?: Omit<ReplayCacheOptions, "now">;
}

const NO_STORE = { "Cache-Control": "no-store" };

function errorAnswer(code: ErrorCode, extra: { message?: string; headers?: Record<string, string>; body?: Record<string, unknown> } = {}): HttpAnswer {
  const spec = errorCodes[code];
  return {
    status: spec.status,
    headers: { ...NO_STORE, ...(extra.headers ?? {}) },
    body: { ok: false, error: code, status: spec.status, message: extra.message ?? spec.message, ...(extra.body ?? {}) },
  };
}

function publicSettleResponse(response: SettleResponse, requirements: PaymentRequirements): SettleResponse {
  // errorMessage can carry raw RPC text: buyers get the stable reason only.
  return {
    success: response.success,
    transaction: response.transaction,
    network: requirements.network,
    ...(response.payer ? { payer: response.payer } : {}),
    amount: requirements.amount,
    ...(response.errorReason ? { errorReason: response.errorReason } : {}),
  };
}

function matchesOffer(accepted: PaymentRequirements, offer: PaymentRequirements): boolean {
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

export function createPaymentGate(deps: PaymentGateDeps): PaymentGate {
  const { config } = deps;
  const now = deps.now ?? (() => new Date());
  const store = createReceiptStore(deps.db);
  const networks = resolveNetworks(config);
  const rails = createRails(networks, { config, now, fetch: deps.fetch, pollingIntervalMs: deps.pollingIntervalMs });
  /** Receipts whose settle call is running in this process; reconcile leaves them alone. */
  const settling = new Set<string>();
  const replays = createReplayCache({ ...deps.replay, now: () => now().getTime() });

  async function offersFor(op: PaidOperation): Promise<PaymentRequirements[]> {
    const extras = new Map<string, Record<string, unknown>>();
    await Promise.all([...rails.values()].map(async (rail) => extras.set(rail.network.network, await rail.requirementsExtra())));
    const offers = buildOffers(op.priceUsd, networks, {
      maxTimeoutSeconds: config.maxTimeoutSeconds,
      extraFor: (n) => extras.get(n.network) ?? {},
    });
    if (offers.length === 0) throw new Error(`operation ${op.resource.url} has no price for any configured network`);
    return offers;
  }

  function extensionsFor(op: PaidOperation): Record<string, unknown> | undefined {
    const extensions: Record<string, unknown> = {};
    if (op.bazaar) extensions.bazaar = declareBazaar(op.bazaar);
    if (op.requestDigest !== undefined) extensions[PAYMENT_IDENTIFIER] = declarePaymentIdentifier();
    return Object.keys(extensions).length > 0 ? extensions : undefined;
  }

  async function challenge(op: PaidOperation, error?: string): Promise<PaymentRequired> {
    const resource: ResourceInfo = { url: op.resource.url, description: op.resource.description, mimeType: op.resource.mimeType };
    const extensions = extensionsFor(op);
    return {
      x402Version: 2,
      ...(error ? { error } : {}),
      resource,
      accepts: await offersFor(op),
      ...(extensions ? { extensions } : {}),
    };
  }

  /** 402 with a fresh PAYMENT-REQUIRED (whose `error` is the reason) mirrored in the body. */
  async function challengeAnswer(op: PaidOperation, reason?: string): Promise<HttpAnswer> {
    const required = await challenge(op, reason ?? "Payment required");
    const { error: _error, ...mirror } = required;
    return errorAnswer(reason ? "PAYMENT_INVALID" : "PAYMENT_REQUIRED", {
      headers: { [PAYMENT_REQUIRED_HEADER]: encodePaymentRequired(required) },
      body: { ...(reason ? { reason } : {}), ...mirror },
    });
  }

  /** The answer for a retry under a known payment identifier; undefined when the call may go on. */
  function replayAnswer(claim: ReplayClaim): HttpAnswer | undefined {
    switch (claim.kind) {
      case "held":
        return { status: claim.answer.status, headers: { ...claim.answer.headers }, body: claim.answer.body };
      case "in_flight":
        return errorAnswer("PAYMENT_IN_FLIGHT", { body: { payment_id: claim.token } });
      case "not_held":
        return errorAnswer("PAYMENT_RESULT_NOT_HELD", { headers: { ...claim.paymentHeaders } });
      case "conflict":
        return errorAnswer("PAYMENT_ID_CONFLICT");
      case "claimed":
        return undefined;
    }
  }

  function refusalFor(existing: Receipt, rail: Rail, op: PaidOperation): Promise<HttpAnswer> | HttpAnswer {
    if (existing.state === "reserved") return errorAnswer("PAYMENT_IN_FLIGHT", { body: { payment_id: existing.id } });
    return challengeAnswer(op, rail.replayReason);
  }

  async function authorize(headers: Headers, op: PaidOperation, context: { requestId?: string; operationId?: string } = {}): Promise<AuthorizeResult> {
    const header = headers.get(PAYMENT_SIGNATURE_HEADER);
    if (header === null) {
      if (headers.get(LEGACY_PAYMENT_HEADER) !== null) {
        const required = await challenge(op, "Payment required");
        return { kind: "answer", answer: errorAnswer("PAYMENT_VERSION_UNSUPPORTED", { headers: { [PAYMENT_REQUIRED_HEADER]: encodePaymentRequired(required) } }) };
      }
      return { kind: "answer", answer: await challengeAnswer(op) };
    }
    const decoded = decodePaymentSignature(header);
    if (!decoded.ok) {
      const code = decoded.version !== undefined ? "PAYMENT_VERSION_UNSUPPORTED" : "PAYMENT_HEADER_INVALID";
      return { kind: "answer", answer: errorAnswer(code, { body: { reason: decoded.reason } }) };
    }
    const payload = decoded.payload;
    const offers = await offersFor(op);
    const requirements = offers.find((offer) => matchesOffer(payload.accepted, offer));
    if (!requirements) return { kind: "answer", answer: await challengeAnswer(op, reasons.noMatchingRequirements) };
    // payment-identifier is optional: a buyer that does not use it may leave it out.
    if (!checkExtensionEcho(extensionsFor(op), payload.extensions, [PAYMENT_IDENTIFIER])) {
      return { kind: "answer", answer: await challengeAnswer(op, reasons.extensionEchoMismatch) };
    }
    const paymentId = op.requestDigest !== undefined ? readPaymentIdentifier(payload.extensions) : ({ ok: true, id: null } as const);
    if (!paymentId.ok) return { kind: "answer", answer: errorAnswer("PAYMENT_ID_INVALID", { body: { reason: paymentId.reason } }) };
    const rail = rails.get(requirements.network);
    if (!rail) return { kind: "answer", answer: await challengeAnswer(op, reasons.invalidNetwork) };
    const identified = rail.identify(payload);
    if (!identified.ok) return { kind: "answer", answer: await challengeAnswer(op, identified.reason) };
    const { identity } = identified;
    const identifier =
      paymentId.id !== null && op.requestDigest !== undefined
        ? { id: paymentId.id, fingerprint: fingerprintCall({ payer: identity.payer, network: requirements.network, operation: `${context.operationId ?? ""} ${op.resource.url}`, bodyDigest: op.requestDigest }) }
        : undefined;
    const payloadDigest = identifier ? digestJson(payload) : "";
    if (identifier) {
      // Answerable before verifying: another call's identifier, or the very payload that paid sent again.
      const early = replays.peek(identifier.id, identifier.fingerprint, payloadDigest);
      const answer = early && replayAnswer(early);
      if (answer) return { kind: "answer", answer };
    }
    const nowSeconds = Math.floor(now().getTime() / 1000);
    if (identity.validBefore !== undefined && identity.validBefore < nowSeconds + config.settlementMarginSeconds) {
      return { kind: "answer", answer: await challengeAnswer(op, rail.expiringReason) };
    }
    const keyInput = { network: requirements.network, asset: requirements.asset, payer: identity.payer, nonce: identity.nonce };
    const known = store.getByKey(paymentKeyOf(keyInput));
    if (known && known.state !== "unused" && known.state !== "failed") {
      return { kind: "answer", answer: await refusalFor(known, rail, op) };
    }
    const verdict = await rail.facilitator.verify(payload, requirements);
    if (!verdict.isValid) {
      return { kind: "answer", answer: await challengeAnswer(op, verdict.invalidReason ?? reasons.unexpectedVerifyError) };
    }
    const receiptId = `pay_${randomUUID().replaceAll("-", "")}`;
    if (identifier) {
      // Verified first, so only the payer's own signature can reach a held result.
      const answer = replayAnswer(replays.claim(identifier.id, identifier.fingerprint, receiptId));
      if (answer) return { kind: "answer", answer };
    }
    const reserved = store.reserve({
      id: receiptId,
      ...keyInput,
      payTo: requirements.payTo,
      amount: requirements.amount,
      validBefore: identity.validBefore ?? null,
      requestId: context.requestId ?? null,
      operationId: context.operationId ?? null,
      now: now(),
    });
    if (!reserved.ok) {
      if (identifier) replays.abandon(identifier.id, receiptId);
      return { kind: "answer", answer: await refusalFor(reserved.existing, rail, op) };
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
        ...(identifier ? { paymentIdentifier: identifier } : {}),
      },
    };
  }

  async function settle(payment: VerifiedPayment, context: { requestId: string; operationId: string }): Promise<SettleResult> {
    const rail = rails.get(payment.network);
    const requirements = payment.requirements;
    const failedAnswer = (response: SettleResponse): HttpAnswer =>
      errorAnswer("SETTLEMENT_FAILED", {
        headers: { [PAYMENT_RESPONSE_HEADER]: encodePaymentResponse(publicSettleResponse(response, requirements)) },
        body: { reason: response.errorReason ?? reasons.unexpectedSettleError },
      });
    const keep = { accepted: payment.payload.accepted, payload: payment.payload.payload, x402Version: 2, requirements };
    if (!rail || !store.claimForSettlement(payment.receiptId, { ...context, settleRequest: JSON.stringify(keep), now: now() })) {
      // Not reserved any more (released, already settling or settled): never settle twice.
      return { kind: "answer", answer: failedAnswer({ success: false, transaction: "", network: payment.network, errorReason: reasons.invalidTransactionState }) };
    }
    settling.add(payment.receiptId);
    let submitted: string | null = null;
    let response: SettleResponse;
    try {
      response = await rail.facilitator.settle(payment.payload, requirements, {
        onSubmitted: (transaction) => {
          submitted = transaction;
          store.recordSubmitted(payment.receiptId, transaction, now());
        },
      });
    } catch {
      response = {
        success: false,
        transaction: submitted ?? "",
        network: payment.network,
        errorReason: submitted ? reasons.settlementPending : reasons.unexpectedSettleError,
      };
    } finally {
      settling.delete(payment.receiptId);
    }
    const transaction = response.transaction || submitted || null;
    const identifier = payment.paymentIdentifier;
    if (response.success) {
      store.markSettled(payment.receiptId, transaction, now());
      const receipt = store.get(payment.receiptId);
      if (!receipt) throw new Error("settled receipt vanished");
      const header = encodePaymentResponse(publicSettleResponse({ ...response, payer: response.payer ?? payment.payer }, requirements));
      const headers = { [PAYMENT_RESPONSE_HEADER]: header };
      if (identifier) replays.settled(identifier.id, payment.receiptId, digestJson(payment.payload), headers);
      return { kind: "settled", headers, receipt };
    }
    if (response.errorReason === reasons.settlementPending) {
      // Outcome unknown: the identifier stays in flight (409 with the payment id to look up) until its TTL.
      if (transaction) store.recordSubmitted(payment.receiptId, transaction, now());
      const body = { payment_id: payment.receiptId, transaction, network: payment.network };
      return {
        kind: "answer",
        answer: errorAnswer("SETTLEMENT_PENDING", {
          headers: { [PAYMENT_RESPONSE_HEADER]: encodePaymentResponse(publicSettleResponse({ ...response, transaction: transaction ?? "" }, requirements)) },
          body,
        }),
      };
    }
    store.markFailed(payment.receiptId, response.errorReason ?? reasons.unexpectedSettleError, transaction, now());
    if (identifier) replays.abandon(identifier.id, payment.receiptId);
    return { kind: "answer", answer: failedAnswer(response) };
  }

  function release(payment: VerifiedPayment): void {
    store.release(payment.receiptId, now());
    if (payment.paymentIdentifier) replays.abandon(payment.paymentIdentifier.id, payment.receiptId);
  }

  function hold(payment: VerifiedPayment, answer: HttpAnswer): boolean {
    const identifier = payment.paymentIdentifier;
    return identifier ? replays.hold(identifier.id, payment.receiptId, answer) : false;
  }

  function lookup(id: string): PaymentLookup | undefined {
    const receipt = store.find(id.trim());
    if (!receipt) return undefined;
    return {
      id: receipt.id,
      state: receipt.state === "reserved" ? "in_flight" : receipt.state,
      network: receipt.network,
      payer: receipt.payer,
      amount: receipt.amount,
      nonce: receipt.nonce,
      transaction: receipt.transaction,
      reason: receipt.reason,
      updatedAt: receipt.updatedAt,
    };
  }

  async function reconcile() {
    const tally = { settled: 0, failed: 0, released: 0, stillPending: 0 };
    const at = now();
    const nowSeconds = Math.floor(at.getTime() / 1000);
    // A reservation was never broadcast; once it cannot settle any more (or is very old) nothing can move.
    const staleBefore = new Date(at.getTime() - config.staleReservationSeconds * 1000);
    for (const receipt of store.listStaleReserved(at)) {
      const expired = receipt.validBefore !== null ? receipt.validBefore <= nowSeconds : receipt.updatedAt < staleBefore.toISOString();
      if (expired && store.release(receipt.id, at)) tally.released++;
    }
    for (const { receipt, settleRequest } of store.listPending()) {
      if (settling.has(receipt.id)) continue;
      const rail = rails.get(receipt.network);
      if (!rail) {
        tally.stillPending++;
        continue;
      }
      try {
        const pending = { network: receipt.network, payer: receipt.payer, nonce: receipt.nonce, transaction: receipt.transaction, validBefore: receipt.validBefore };
        if (rail.checkSettlement) {
          const check = await rail.checkSettlement(pending);
          if (check.state === "settled" && store.markSettled(receipt.id, check.transaction || null, now())) tally.settled++;
          else if (check.state === "failed" && store.markFailed(receipt.id, check.reason, null, now())) tally.failed++;
          else if (check.state === "unused" && store.release(receipt.id, now(), "pending")) tally.released++;
          else if (check.state === "pending") tally.stillPending++;
        } else if (settleRequest) {
          // No chain access of our own: ask the facilitator again with the same payload (it settles or recognises it).
          const kept = JSON.parse(settleRequest) as { accepted: PaymentRequirements; payload: Record<string, unknown>; requirements: PaymentRequirements };
          const response = await rail.facilitator.settle({ x402Version: 2, accepted: kept.accepted, payload: kept.payload }, kept.requirements);
          if (response.success && store.markSettled(receipt.id, response.transaction || null, now())) tally.settled++;
          else if (response.errorReason === reasons.settlementPending || response.errorReason === rail.replayReason) tally.stillPending++;
          else if (!response.success && store.markFailed(receipt.id, response.errorReason ?? reasons.unexpectedSettleError, null, now())) tally.failed++;
        } else {
          tally.stillPending++;
        }
      } catch {
        tally.stillPending++;
      }
    }
    return tally;
  }

  return { authorize, settle, release, lookup, reconcile, challenge, hold };
}
