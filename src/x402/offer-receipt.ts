/**
 * @module x402/offer-receipt — the x402 `offer-receipt` extension, signed through the official
 * `@x402/extensions/offer-receipt` (JWS, EdDSA): every 402 offer in `extensions["offer-receipt"].info.offers`
 * (one per `accepts` entry, valid for the entry's maxTimeoutSeconds) and every successful settlement's
 * receipt in `extensions["offer-receipt"].info.receipt`. The key is the current evidence key (rotation as
 * the key set does it); its JWS `kid` is `did:web:<resource host>#<JWK thumbprint>`, so the official
 * verifier resolves it from /.well-known/did.json and anyone can find it in /.well-known/jwks.json.
 *
 * Our receipt adds `requestId` to the extension's payload fields and always names the transaction: with
 * the resource URL they are what the evidence statement of the same call names (evidence/statement.ts).
 */
import type { PaymentRequirements } from "./messages.ts";

export const OFFER_RECEIPT = "offer-receipt";

/** The signing half of an evidence key (evidence/key-file.ts SigningKey). */
export interface ReceiptSigningKey {
  readonly kid: string;
  readonly key: CryptoKey;
}

/** Where the current signing key comes from (the evidence keys: re-read after a rotation). */
export interface ReceiptKeySource {
  current(): Promise<ReceiptSigningKey>;
}

/** One `extensions` entry as the x402 v2 extension structure has it. */
export interface SignedExtension {
  readonly info: Record<string, unknown>;
  readonly schema: Record<string, unknown>;
}

/** What a receipt states: the extension's fields, the transaction always, and our request id. */
export interface ReceiptFacts {
  readonly resourceUrl: string;
  readonly payer: string;
  readonly network: string;
  readonly transaction: string;
  readonly requestId: string;
}

export interface OfferReceiptSigner {
  /** `extensions["offer-receipt"]` of a PaymentRequired: one signed offer per accepts entry, same order. */
  offers(resourceUrl: string, accepts: readonly PaymentRequirements[]): Promise<SignedExtension>;
  /** `extensions["offer-receipt"]` of a successful SettleResponse. */
  receipt(facts: ReceiptFacts): Promise<SignedExtension>;
}

/** The version of the extension's payloads (the SDK's EXTENSION_VERSION). */
const payloadVersion = 1;

const offersSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    version: { type: "integer" },
    offers: {
      type: "array",
      items: { type: "object", properties: { format: { type: "string", const: "jws" }, acceptIndex: { type: "integer" }, signature: { type: "string" } }, required: ["format", "signature"] },
    },
  },
  required: ["offers"],
};

const receiptSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    version: { type: "integer" },
    receipt: { type: "object", properties: { format: { type: "string", const: "jws" }, signature: { type: "string" } }, required: ["format", "signature"] },
  },
  required: ["receipt"],
};

/** `did:web` of the host serving `resourceUrl` (port percent-encoded, as did:web writes it). */
export function didWebOf(resourceUrl: string): string {
  return `did:web:${encodeURIComponent(new URL(resourceUrl).host)}`;
}

/** The JWS `kid` of a receipt or offer signed by `keyId` for `resourceUrl`. */
export const receiptKidOf = (resourceUrl: string, keyId: string): string => `${didWebOf(resourceUrl)}#${keyId}`;

type Extension = typeof import("@x402/extensions/offer-receipt");

/**
 * Loads the official extension (it pulls viem and @noble/curves: loaded with payments only) and
 * returns a signer over the key source.
 */
export async function createOfferReceiptSigner(keys: ReceiptKeySource, now: () => Date = () => new Date()): Promise<OfferReceiptSigner> {
  const extension: Extension = await import("@x402/extensions/offer-receipt");
  const jwsSigner = async (resourceUrl: string) => {
    const signing = await keys.current();
    return {
      kid: receiptKidOf(resourceUrl, signing.kid),
      format: "jws" as const,
      algorithm: "EdDSA",
      sign: async (bytes: Uint8Array) => Buffer.from(await crypto.subtle.sign("Ed25519", signing.key, bytes as Uint8Array<ArrayBuffer>)).toString("base64url"),
    };
  };
  return {
    async offers(resourceUrl, accepts) {
      const signer = await jwsSigner(resourceUrl);
      const offers = await Promise.all(
        accepts.map((requirements, acceptIndex) =>
          extension.createOfferJWS(
            resourceUrl,
            { acceptIndex, scheme: requirements.scheme, network: requirements.network, asset: requirements.asset, payTo: requirements.payTo, amount: requirements.amount, offerValiditySeconds: requirements.maxTimeoutSeconds },
            signer,
          ),
        ),
      );
      return { info: { version: payloadVersion, offers }, schema: offersSchema };
    },
    async receipt(facts) {
      const payload = {
        version: payloadVersion,
        network: facts.network,
        resourceUrl: facts.resourceUrl,
        payer: facts.payer,
        issuedAt: Math.floor(now().getTime() / 1000),
        transaction: facts.transaction,
        requestId: facts.requestId,
      };
      const signature = await extension.createJWS(payload, await jwsSigner(facts.resourceUrl));
      return { info: { version: payloadVersion, receipt: { format: "jws", signature } }, schema: receiptSchema };
    },
  };
}

/** Where a server publishes the DID document that `did:web:<host>` resolves to. */
export const didDocumentPath = "/.well-known/did.json";

/** The DID document of `did:web:<host of baseUrl>`: every published key (retired ones too, so old receipts verify) as a verification method. */
export function didDocumentOf(baseUrl: string, jwks: { readonly keys: readonly { readonly kid: string; readonly kty: string; readonly crv: string; readonly x: string; readonly alg: string }[] }) {
  const did = didWebOf(baseUrl);
  // `alg` included: the official resolver imports the JWK without naming an algorithm.
  const methods = jwks.keys.map((key) => ({ id: `${did}#${key.kid}`, type: "JsonWebKey2020", controller: did, publicKeyJwk: { kty: key.kty, crv: key.crv, x: key.x, alg: key.alg, kid: key.kid } }));
  return {
    "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1"],
    id: did,
    verificationMethod: methods,
    assertionMethod: methods.map((method) => method.id),
  };
}

/** The resource URL and request id our signed receipt in a settlement names (read, not verified: it is our own, kept with a job). */
export function receiptNamesOf(settlement: { readonly extensions?: Record<string, unknown> } | undefined): { resourceUrl?: string; requestId?: string } {
  const signature = (settlement?.extensions?.[OFFER_RECEIPT] as { info?: { receipt?: { signature?: unknown } } } | undefined)?.info?.receipt?.signature;
  if (typeof signature !== "string") return {};
  try {
    const payload = JSON.parse(Buffer.from(signature.split(".")[1] ?? "", "base64url").toString("utf8")) as { resourceUrl?: unknown; requestId?: unknown };
    return { ...(typeof payload.resourceUrl === "string" ? { resourceUrl: payload.resourceUrl } : {}), ...(typeof payload.requestId === "string" ? { requestId: payload.requestId } : {}) };
  } catch {
    return {};
  }
}
