/**
 * @module x402/messages — TypeBox schemas and types of the x402 version 2 messages, in the protocol's own
 * words (PaymentRequired, PaymentRequirements, PaymentPayload, VerifyResponse, SettleResponse,
 * SupportedResponse). Scheme payloads (EVM authorization, AVM group) live with their mechanism.
 */
import { Type, type Static } from "@sinclair/typebox";

export const X402_VERSION = 2;

/** CAIP-2 network id: `namespace:reference` (eip155:8453, algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k). */
export const Network = Type.String({ pattern: "^[-a-z0-9]{3,8}:[-_a-zA-Z0-9+/=]{1,64}$" });
export type Network = Static<typeof Network>;

export const ResourceInfo = Type.Object({
  url: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  mimeType: Type.Optional(Type.String()),
});
export type ResourceInfo = Static<typeof ResourceInfo>;

export const PaymentRequirements = Type.Object({
  scheme: Type.String({ minLength: 1 }),
  network: Network,
  amount: Type.String({ pattern: "^[0-9]+$" }),
  asset: Type.String({ minLength: 1 }),
  payTo: Type.String({ minLength: 1 }),
  maxTimeoutSeconds: Type.Integer({ minimum: 1 }),
  extra: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type PaymentRequirements = Static<typeof PaymentRequirements>;

/** One declared extension: the value (`info`) and the JSON Schema it validates against. */
export const Extension = Type.Object({ info: Type.Unknown(), schema: Type.Optional(Type.Unknown()) });
export type Extension = Static<typeof Extension>;

export const PaymentRequired = Type.Object({
  x402Version: Type.Literal(X402_VERSION),
  error: Type.Optional(Type.String()),
  resource: ResourceInfo,
  accepts: Type.Array(PaymentRequirements, { minItems: 1 }),
  extensions: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type PaymentRequired = Static<typeof PaymentRequired>;

export const PaymentPayload = Type.Object({
  x402Version: Type.Literal(X402_VERSION),
  resource: Type.Optional(ResourceInfo),
  accepted: PaymentRequirements,
  payload: Type.Record(Type.String(), Type.Unknown()),
  extensions: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type PaymentPayload = Static<typeof PaymentPayload>;

export const VerifyResponse = Type.Object({
  isValid: Type.Boolean(),
  invalidReason: Type.Optional(Type.String()),
  invalidMessage: Type.Optional(Type.String()),
  payer: Type.Optional(Type.String()),
});
export type VerifyResponse = Static<typeof VerifyResponse>;

export const SettleResponse = Type.Object({
  success: Type.Boolean(),
  transaction: Type.String(),
  network: Network,
  payer: Type.Optional(Type.String()),
  amount: Type.Optional(Type.String()),
  errorReason: Type.Optional(Type.String()),
  errorMessage: Type.Optional(Type.String()),
  /** e.g. `offer-receipt`: the signed receipt of a successful settlement. */
  extensions: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type SettleResponse = Static<typeof SettleResponse>;

/** Body of the facilitator's POST /verify and POST /settle. */
export const FacilitatorRequest = Type.Object({
  x402Version: Type.Literal(X402_VERSION),
  paymentPayload: PaymentPayload,
  paymentRequirements: PaymentRequirements,
});
export type FacilitatorRequest = Static<typeof FacilitatorRequest>;

export const SupportedKind = Type.Object({
  x402Version: Type.Integer(),
  scheme: Type.String(),
  network: Type.String(),
  extra: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type SupportedKind = Static<typeof SupportedKind>;

export const SupportedResponse = Type.Object({
  kinds: Type.Array(SupportedKind),
  extensions: Type.Optional(Type.Array(Type.String())),
  signers: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
});
export type SupportedResponse = Static<typeof SupportedResponse>;

/** Reason strings shared by every scheme (spec §9 and the SDK server). Scheme reasons live in evm/ and avm/. */
export const reasons = {
  invalidPayload: "invalid_payload",
  invalidNetwork: "invalid_network",
  invalidScheme: "invalid_scheme",
  invalidVersion: "invalid_x402_version",
  invalidTransactionState: "invalid_transaction_state",
  noMatchingRequirements: "No matching payment requirements",
  extensionEchoMismatch: "extension_echo_mismatch",
  unexpectedVerifyError: "unexpected_verify_error",
  unexpectedSettleError: "unexpected_settle_error",
  settlementPending: "settlement_pending",
} as const;
