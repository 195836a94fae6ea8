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
