/**
 * @module fetch-identity/request-signer — Web Bot Auth headers for one outgoing request: an RFC 9421
 * HTTP Message Signature (Ed25519, tag `web-bot-auth`) over `@authority` and `Signature-Agent`, the
 * header naming where our key directory is. Made by the `web-bot-auth` library; each hop of a
 * redirect is signed for its own authority, just before it goes out, so a signature lives one minute.
 */
import { signatureHeaders } from "web-bot-auth";
import { Ed25519Signer } from "web-bot-auth/crypto";

/** The key that signs now: its JWK thumbprint (the directory's kid) and its private half. */
export interface CurrentKey {
  readonly kid: string;
  readonly key: CryptoKey;
}

export interface RequestSignerOptions {
  /** The server's public base URL; sites fetch `/.well-known/http-message-signatures-directory` from it. */
  readonly publicUrl: string;
  /** The signing key of the moment (rotations are followed by asking each time). */
  readonly currentKey: () => Promise<CurrentKey>;
  readonly now?: () => Date;
}

/** Headers a GET of `url` carries: `signature-agent`, `signature-input`, `signature`. */
export type RequestSigner = (url: URL) => Promise<Record<string, string>>;

const SIGNATURE_LIFETIME_MS = 60_000;

/** The Signature-Agent value: the public URL's origin and path as a structured-field string. */
export function signatureAgentOf(publicUrl: string): string {
  return `"${publicUrl.replace(/\/+$/, "")}"`;
}

export function createRequestSigner(options: RequestSignerOptions): RequestSigner {
  const agent = signatureAgentOf(options.publicUrl);
  const now = options.now ?? (() => new Date());
  let signer: { kid: string; value: Ed25519Signer } | undefined;
  return async (url) => {
    const current = await options.currentKey();
    if (signer?.kid !== current.kid) signer = { kid: current.kid, value: new Ed25519Signer(current.kid, current.key) };
    const headers = { "signature-agent": agent };
    const created = now();
    const signed = await signatureHeaders({ method: "GET", url: url.href, headers }, signer.value, {
      created,
      expires: new Date(created.getTime() + SIGNATURE_LIFETIME_MS),
    });
    return { ...headers, "signature-input": signed["Signature-Input"], signature: signed.Signature };
  };
}
