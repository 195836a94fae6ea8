/**
 * @module evidence/routes — the free evidence routes: `GET /.well-known/jwks.json` (every published
 * signing key, retired ones too, then the current key's ECDSA P-384 archive key, which signs WACZ
 * packages), `POST /v1/evidence/verify` (a posted result checked against those keys: 200 with `valid`
 * and the failing part, 400 EVIDENCE_MALFORMED naming the part when the body is not a signed result
 * at all), and `GET /.well-known/did.json`, the same keys as the DID document that the `did:web` key
 * ids of signed x402 offers and receipts resolve to. The evidence module mounts them (module.ts).
 */
import { ApiError } from "../errors.ts";
import type { ModuleRoute } from "../module/define.ts";
import { didDocumentOf, didDocumentPath } from "../x402/offer-receipt.ts";
import type { EvidenceKeys } from "./key-file.ts";
import { evidenceVerifyPath, jwksPath } from "./statement.ts";
import { verifyEvidence } from "./verify.ts";
import { publishedArchiveKeys } from "./wacz-signing.ts";

/** The key set /.well-known/jwks.json answers: the evidence keys, then the WACZ package key; the DID document and the verify route keep to the evidence keys. */
export async function publishedKeySet(keys: EvidenceKeys): Promise<{ keys: readonly object[] }> {
  const [published, archive] = await Promise.all([keys.jwks(), publishedArchiveKeys(keys)()]);
  return { keys: [...published.keys, ...archive] };
}

export function evidenceRoutes(keys: EvidenceKeys): readonly ModuleRoute[] {
  return [
    { method: "GET", path: jwksPath, handle: async (_request, call) => call.json(await publishedKeySet(keys), 200, { "Cache-Control": "public, max-age=60" }) },
    {
      method: "GET",
      path: didDocumentPath,
      handle: async (_request, call) => call.json(didDocumentOf(call.baseUrl, await keys.jwks()), 200, { "Cache-Control": "public, max-age=60", "content-type": "application/did+json" }),
    },
    {
      method: "POST",
      path: evidenceVerifyPath,
      async handle(_request, call) {
        const { source_base64: sourceBase64, ...result } = await call.readJson();
        if (sourceBase64 !== undefined && (typeof sourceBase64 !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(sourceBase64))) {
          throw new ApiError("EVIDENCE_MALFORMED", { message: "source_base64 must be the source bytes in base64.", details: { part: "source_base64" } });
        }
        const source = sourceBase64 === undefined ? undefined : new Uint8Array(Buffer.from(sourceBase64, "base64"));
        const outcome = await verifyEvidence(result, await keys.jwks(), source ? { source } : {});
        if (outcome.kind === "malformed") throw new ApiError("EVIDENCE_MALFORMED", { message: outcome.message, details: { part: outcome.part } });
        return call.json({
          ok: true,
          valid: outcome.valid,
          ...(outcome.failed ? { failed: outcome.failed } : {}),
          checks: outcome.checks,
          statements: outcome.statements,
          request_id: call.requestId,
        });
      },
    },
  ];
}
