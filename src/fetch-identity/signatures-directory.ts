/**
 * @module fetch-identity/signatures-directory — `GET /.well-known/http-message-signatures-directory`:
 * the public keys our fetcher signs with, as the HTTP Message Signatures Directory draft lays them out
 * (a JWK set, media type application/http-message-signatures-directory+json), the response itself
 * signed by the current key (tag `http-message-signatures-directory`, over the request's `@authority`)
 * to prove the directory's owner holds it. The keys are the evidence keys (docs/fetch-identity.md says
 * why): a rotated key stays listed, so requests it signed before the rotation still verify.
 */
import { directoryResponseHeaders, HTTP_MESSAGE_SIGNATURES_DIRECTORY, MediaType } from "web-bot-auth";
import { Ed25519Signer } from "web-bot-auth/crypto";
import type { CurrentKey } from "./request-signer.ts";

export const signaturesDirectoryPath = HTTP_MESSAGE_SIGNATURES_DIRECTORY;
export const signaturesDirectoryMediaType = MediaType.HTTP_MESSAGE_SIGNATURES_DIRECTORY;

/** What the directory is built from: the evidence keys' holder. */
export interface DirectoryKeys {
  current(): Promise<CurrentKey>;
  jwks(): Promise<{ keys: readonly { kty: string; crv: string; x: string; kid: string }[] }>;
}

/** How long the directory's own signature is valid (longer than it may be cached). */
const DIRECTORY_SIGNATURE_LIFETIME_MS = 5 * 60_000;

/** The directory's answer; `publicUrl` is the authority the signature binds (the URL sites fetch it at). */
export async function signaturesDirectoryResponse(keys: DirectoryKeys, publicUrl: string, now = new Date()): Promise<Response> {
  const [current, jwks] = await Promise.all([keys.current(), keys.jwks()]);
  const body = JSON.stringify({ keys: jwks.keys.map(({ kty, crv, x, kid }) => ({ kty, crv, x, kid })) });
  const request = { method: "GET", url: new URL(signaturesDirectoryPath, publicUrl).href, headers: {} };
  const response = { status: 200, headers: { "content-type": MediaType.HTTP_MESSAGE_SIGNATURES_DIRECTORY } };
  const signed = await directoryResponseHeaders({ request, response }, [new Ed25519Signer(current.kid, current.key)], {
    created: now,
    expires: new Date(now.getTime() + DIRECTORY_SIGNATURE_LIFETIME_MS),
  });
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": MediaType.HTTP_MESSAGE_SIGNATURES_DIRECTORY,
      "cache-control": "public, max-age=60",
      signature: signed.Signature,
      "signature-input": signed["Signature-Input"],
    },
  });
}
