/**
 * @module http/evidence-routes — the two free evidence routes: `GET /.well-known/jwks.json` (every
 * published signing key, retired ones too, then the keys the server adds: the current key's ECDSA P-384
 * archive key, which signs WACZ packages) and `POST /v1/evidence/verify` (a posted result checked
 * against those keys: 200 with `valid` and the failing part, 400 EVIDENCE_MALFORMED naming the part
 * when the body is not a signed result at all), and `GET /.well-known/did.json`, the same keys as the
 * DID document that the `did:web` key ids of signed x402 offers and receipts resolve to.
 */
import { ApiError } from "../errors.ts";
import type { EvidenceKeys } from "../evidence/key-file.ts";
import { evidenceVerifyPath, jwksPath } from "../evidence/statement.ts";
import { verifyEvidence } from "../evidence/verify.ts";
import { didDocumentOf, didDocumentPath } from "../x402/offer-receipt.ts";
import type { Logger } from "../log.ts";
import { readJsonObject } from "./operation.ts";
import { contextOf } from "./request-context.ts";
import { errorResponse, jsonResponse } from "./respond.ts";

/**
 * `moreKeys`: public keys published in the JWKS after the evidence keys (the WACZ package key: app.ts passes
 * evidence/wacz-signing.ts's `publishedArchiveKeys`); the DID document and the verify route keep to the evidence keys.
 */
export function evidenceRoutes(keys: EvidenceKeys, log: Logger, moreKeys: () => Promise<readonly object[]> = async () => []) {
  return {
    async jwks(request: Request): Promise<Response> {
      contextOf(request).route = jwksPath;
      const [published, more] = await Promise.all([keys.jwks(), moreKeys()]);
      return jsonResponse({ keys: [...published.keys, ...more] }, 200, { "Cache-Control": "public, max-age=60" });
    },
    async did(request: Request, baseUrl: string): Promise<Response> {
      contextOf(request).route = didDocumentPath;
      return jsonResponse(didDocumentOf(baseUrl, await keys.jwks()), 200, { "Cache-Control": "public, max-age=60", "content-type": "application/did+json" });
    },
    async verify(request: Request): Promise<Response> {
      const context = contextOf(request);
      context.route = evidenceVerifyPath;
      try {
        const body = await readJsonObject(request);
        const { source_base64: sourceBase64, ...result } = body;
        if (sourceBase64 !== undefined && (typeof sourceBase64 !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(sourceBase64))) {
          throw new ApiError("EVIDENCE_MALFORMED", { message: "source_base64 must be the source bytes in base64.", details: { part: "source_base64" } });
        }
        const source = sourceBase64 === undefined ? undefined : new Uint8Array(Buffer.from(sourceBase64, "base64"));
        const outcome = await verifyEvidence(result, await keys.jwks(), source ? { source } : {});
        if (outcome.kind === "malformed") throw new ApiError("EVIDENCE_MALFORMED", { message: outcome.message, details: { part: outcome.part } });
        return jsonResponse({
          ok: true,
          valid: outcome.valid,
          ...(outcome.failed ? { failed: outcome.failed } : {}),
          checks: outcome.checks,
          statements: outcome.statements,
          request_id: context.id,
        });
      } catch (error) {
        return errorResponse(error, context, log);
      }
    },
  };
}
