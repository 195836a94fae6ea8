/**
 * @module evidence/attestation-schema — the `attestation` field of a signed evidence result, for
 * the web result schemas (kept apart from the signing code they need not load).
 */
import { type Static, Type } from "@sinclair/typebox";

export const AttestationSchema = Type.Object(
  {
    jws: Type.String({ description: "Compact JWS (EdDSA, Ed25519, typ tollbooth-evidence+jws) over the RFC 8785 canonical JSON statement; keys at /.well-known/jwks.json" }),
    kid: Type.String({ description: "Key id (RFC 7638 thumbprint) of the signing key" }),
  },
  { additionalProperties: false, description: "Signed statement of this result: url, final_url, source status, fetched_at, content type, source and text SHA-256 (web/extract: and the extraction's), format, selector, version, server, payment" },
);
export type Attestation = Static<typeof AttestationSchema>;

/** Beside a result that could not be signed after its payment settled: the result is delivered, and says why it bears no attestation. */
export const AttestationErrorSchema = Type.Object(
  {
    error: Type.Literal("EVIDENCE_UNSIGNED"),
    message: Type.String(),
  },
  { additionalProperties: false, description: "Present instead of attestation when signing failed after settlement (the payment stands, the result is delivered unsigned and says so)." },
);
export type AttestationError = Static<typeof AttestationErrorSchema>;
