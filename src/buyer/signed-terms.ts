/**
 * @module buyer/signed-terms — the seller's signed offer (checked before paying) and signed receipt
 * (checked after) of the x402 `offer-receipt` extension, verified with the official extension
 * (`@x402/extensions/offer-receipt`). A key must be bound to the seller (spec §4.5.1): a JWS key id
 * `did:web:<the seller's host>#<kid>` whose key the seller publishes at /.well-known/jwks.json, or
 * for EIP-712 the offer's payTo address. The offer must state the very terms the buyer is about to
 * sign and still be valid; the receipt must name the payer, network, transaction and resource paid.
 */
import { didWebOf, OFFER_RECEIPT } from "../x402/offer-receipt.ts";
import type { Requirement } from "./offer.ts";

type Extension = typeof import("@x402/extensions/offer-receipt");
type SignedOffer = import("@x402/extensions/offer-receipt").SignedOffer;
type SignedReceipt = import("@x402/extensions/offer-receipt").SignedReceipt;
type OfferPayload = import("@x402/extensions/offer-receipt").OfferPayload;

export interface TermsCheck {
  /** The seller sent a signature at all. */
  readonly signed: boolean;
  /** Signed, by a key bound to the seller, over exactly the terms expected. */
  readonly valid: boolean;
  readonly detail: string;
  /** The JWS key id or the EIP-712 signer. */
  readonly signer?: string;
}

/** A checked receipt, with what it names (the evidence statement of the same call names them too). */
export interface ReceiptCheck extends TermsCheck {
  readonly resourceUrl?: string;
  readonly requestId?: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** What the checks read from the seller: its published keys. */
export interface SellerKeys {
  /** The seller's URL (the one bought from): its host is the only did:web accepted, its JWKS the only keys. */
  readonly sellerUrl: string;
  readonly fetch: typeof fetch;
}

class Unbound extends Error {}

/** The public key for a JWS key id, only if it is `did:web:<seller host>#<kid>` and the seller publishes `kid`. */
async function sellerKeyFor(extension: Extension, jws: string, seller: SellerKeys): Promise<{ key: Record<string, unknown>; kid: string }> {
  const header = extension.extractJWSHeader(jws);
  const kid = typeof header.kid === "string" ? header.kid : "";
  const expected = `${didWebOf(seller.sellerUrl)}#`;
  if (!kid.startsWith(expected)) throw new Unbound(`key id ${kid || "(none)"} is not did:web of the seller's host (${expected}…)`);
  const jwksUrl = new URL("/.well-known/jwks.json", seller.sellerUrl).toString();
  const response = await seller.fetch(jwksUrl, { headers: { accept: "application/json" } });
  const jwks = (await response.json().catch(() => undefined)) as { keys?: unknown } | undefined;
  const key = Array.isArray(jwks?.keys) ? jwks.keys.find((k): k is Record<string, unknown> => isObject(k) && k.kid === kid.slice(expected.length)) : undefined;
  if (!key) throw new Unbound(`the seller does not publish key ${kid.slice(expected.length)} at ${jwksUrl}`);
  if (key.kty !== "OKP" || key.crv !== "Ed25519") throw new Unbound(`key ${kid} is not an Ed25519 key`);
  return { key: { kty: key.kty, crv: key.crv, x: key.x, alg: "EdDSA" }, kid };
}

/** Verifies a JWS or EIP-712 artifact with the official extension; returns its payload and signer, or throws. */
async function verifiedPayload<T>(
  extension: Extension,
  artifact: SignedOffer | SignedReceipt,
  kind: "offer" | "receipt",
  seller: SellerKeys,
  payTo: string,
): Promise<{ payload: T; signer: string }> {
  if (artifact.format === "jws") {
    const { key, kid } = await sellerKeyFor(extension, artifact.signature, seller);
    const payload = kind === "offer" ? await extension.verifyOfferSignatureJWS(artifact as never, key as never) : await extension.verifyReceiptSignatureJWS(artifact as never, key as never);
    return { payload: payload as T, signer: kid };
  }
  if (artifact.format === "eip712") {
    const { signer, payload } = kind === "offer" ? await extension.verifyOfferSignatureEIP712(artifact as never) : await extension.verifyReceiptSignatureEIP712(artifact as never);
    if (!sameAddress(signer, payTo)) throw new Unbound(`the EIP-712 signer ${signer} is not the payTo address ${payTo}`);
    return { payload: payload as T, signer };
  }
  throw new Unbound(`unknown signature format ${String((artifact as { format?: unknown }).format)}`);
}

const failure = (signed: boolean, detail: string): TermsCheck => ({ signed, valid: false, detail });

/** The 402's signed offer for `vetted`, checked before anything is signed. */
export async function checkSignedOffer(required: unknown, vetted: Requirement, seller: SellerKeys, now: Date): Promise<TermsCheck> {
  const extension: Extension = await import("@x402/extensions/offer-receipt");
  const offers = extension.extractOffersFromPaymentRequired(required as never).filter(isObject) as SignedOffer[];
  if (offers.length === 0) return failure(false, "the 402 carries no signed offer (offer-receipt extension)");
  const fields = ["scheme", "network", "asset", "payTo", "amount"] as const;
  const matches = (payload: OfferPayload) => fields.every((f) => (f === "asset" || f === "payTo" ? sameAddress(String(payload[f]), vetted[f]) : payload[f] === vetted[f]));
  const candidates = offers.filter((offer) => {
    try {
      return matches(extension.extractOfferPayload(offer));
    } catch {
      return false;
    }
  });
  if (candidates.length === 0) return failure(true, `no signed offer states the terms to be paid (${vetted.amount} of ${vetted.asset} to ${vetted.payTo} on ${vetted.network})`);
  const resourceUrl = isObject(required) && isObject(required.resource) && typeof required.resource.url === "string" ? required.resource.url : undefined;
  let last = "";
  for (const offer of candidates) {
    try {
      const { payload, signer } = await verifiedPayload<OfferPayload>(extension, offer, "offer", seller, vetted.payTo);
      if (!matches(payload)) throw new Unbound("the signed terms differ from the terms shown");
      if (resourceUrl !== undefined && payload.resourceUrl !== resourceUrl) throw new Unbound(`the offer is for ${payload.resourceUrl}, the 402 for ${resourceUrl}`);
      if (payload.validUntil && payload.validUntil < Math.floor(now.getTime() / 1000)) throw new Unbound(`the offer expired at ${new Date(payload.validUntil * 1000).toISOString()}`);
      return { signed: true, valid: true, detail: `offer for ${payload.resourceUrl} signed by ${signer}`, signer };
    } catch (error) {
      last = (error as Error).message;
    }
  }
  return failure(true, `the signed offer does not verify: ${last}`);
}

/** What the buyer knows of the payment it made, to hold the receipt against. */
export interface PaidTerms {
  readonly resourceUrl: string | undefined;
  readonly payer: string;
  readonly network: string;
  readonly payTo: string;
}

/** The signed receipt in a settlement response (PAYMENT-RESPONSE, `_meta`, A2A receipts), checked after paying. */
export async function checkSignedReceipt(settlement: unknown, paid: PaidTerms, seller: SellerKeys, now: Date): Promise<ReceiptCheck> {
  const extension: Extension = await import("@x402/extensions/offer-receipt");
  const info = isObject(settlement) && isObject(settlement.extensions) ? settlement.extensions[OFFER_RECEIPT] : undefined;
  const receipt = isObject(info) && isObject(info.info) ? info.info.receipt : undefined;
  if (!isObject(receipt)) return failure(false, "the settlement carries no signed receipt (offer-receipt extension)");
  try {
    const { payload, signer } = await verifiedPayload<Record<string, unknown>>(extension, receipt as unknown as SignedReceipt, "receipt", seller, paid.payTo);
    const decoded = { resourceUrl: paid.resourceUrl ?? String(payload.resourceUrl), network: paid.network } as never;
    // The official field check: resource, network, payer, issued within the hour.
    if (!extension.verifyReceiptMatchesOffer(receipt as never, decoded, [paid.payer])) {
      throw new Unbound(`the receipt names ${String(payload.payer)} on ${String(payload.network)} for ${String(payload.resourceUrl)} (issued ${String(payload.issuedAt)}), not this payment`);
    }
    const transaction = isObject(settlement) ? settlement.transaction : undefined;
    if (payload.transaction !== undefined && payload.transaction !== transaction) throw new Unbound(`the receipt names transaction ${String(payload.transaction)}, the settlement ${String(transaction)}`);
    if (typeof payload.issuedAt === "number" && payload.issuedAt > Math.floor(now.getTime() / 1000) + 300) throw new Unbound("the receipt is issued in the future");
    return {
      signed: true,
      valid: true,
      detail: `receipt for ${String(payload.resourceUrl)} signed by ${signer}`,
      signer,
      resourceUrl: String(payload.resourceUrl),
      ...(typeof payload.requestId === "string" ? { requestId: payload.requestId } : {}),
    };
  } catch (error) {
    return failure(true, `the signed receipt does not verify: ${(error as Error).message}`);
  }
}
