/**
 * @module x402/payer-proof — the payer's proof: that whoever asks holds the wallet that paid, by
 * x402's Sign-In-With-X extension (CAIP-122, `@x402/extensions/sign-in-with-x`). The caller signs
 * a CAIP-122 message naming this server (domain), the resource it asks for (uri), a nonce of its
 * own, when it was issued (at most 5 minutes ago) and when it expires, and sends the payload as
 * base64 JSON (the `SIGN-IN-WITH-X` header over HTTP, a `proof` argument over MCP).
 *
 *   EVM (`eip155:*`): a SIWE (EIP-4361) message, EIP-191 signature from the payer's key
 *     (verified by the extension, no RPC).
 *   Algorand (`algorand:*`): the same CAIP-122 lines ("… sign in with your Algorand account"),
 *     Ed25519 signature over "MX" + the message (algosdk's signBytes), base64.
 *
 * A proof is good for one request: its nonce is taken once, in the store (proof-nonces.ts: every
 * instance sharing the database sees it), until the proof's window has passed, so a proof seen
 * again — replayed, or sent twice — is refused, as is one for another resource, from another
 * network, expired or issued too long ago. A valid proof from another
 * wallet is the caller's to know: `denied` says so (the route answers 403).
 */
import { ApiError } from "../errors.ts";
import type { ProofNonces } from "./proof-nonces.ts";

export const PAYER_PROOF_HEADER = "SIGN-IN-WITH-X";
/** How old a proof's issuedAt may be, and the longest window (issuedAt to expirationTime) taken. */
const MAX_AGE_MS = 5 * 60_000;
const STATEMENT = "Prove you are the payer.";

type Siwx = typeof import("@x402/extensions/sign-in-with-x");
type Payload = import("@x402/extensions/sign-in-with-x").SIWxPayload;
let siwx: Promise<Siwx> | undefined;
const loadSiwx = () => (siwx ??= import("@x402/extensions/sign-in-with-x"));

/** What a proof must name, and whose it must be. */
export interface ProofTarget {
  /** The resource's absolute URL (its origin is the server's public origin). */
  readonly resourceUrl: string;
  /** The payer's address as the payment recorded it. */
  readonly payer: string;
  /** The payment's CAIP-2 network; the proof must be made on it. */
  readonly network: string | null;
}

/** The message a caller signs, with the fields it fills in (address, nonce, times, signature). */
export function proofChallenge(target: ProofTarget, now: Date): Record<string, unknown> {
  const url = new URL(target.resourceUrl);
  return {
    header: PAYER_PROOF_HEADER,
    domain: url.host,
    uri: url.toString(),
    statement: STATEMENT,
    version: "1",
    ...(target.network ? { chainId: target.network, type: target.network.startsWith("algorand:") ? "ed25519" : "eip191" } : {}),
    nonce: Buffer.from(crypto.getRandomValues(new Uint8Array(12))).toString("hex"),
    issuedAt: now.toISOString(),
    expirationTime: new Date(now.getTime() + MAX_AGE_MS).toISOString(),
    how: "Sign the CAIP-122 message of these fields with the paying wallet (EVM: SIWE/EIP-191; Algorand: algosdk signBytes, base64), add address and signature, and send the JSON base64-encoded; a nonce is taken once.",
  };
}

/** The CAIP-122 message of an Algorand payload (the layout of the extension's SIWS message). */
export function algorandProofMessage(p: Omit<Payload, "signature" | "type"> & { type?: string }): string {
  const lines = [`${p.domain} wants you to sign in with your Algorand account:`, p.address, ""];
  if (p.statement) lines.push(p.statement, "");
  lines.push(`URI: ${p.uri}`, `Version: ${p.version}`, `Chain ID: ${p.chainId.slice("algorand:".length)}`, `Nonce: ${p.nonce}`, `Issued At: ${p.issuedAt}`);
  if (p.expirationTime) lines.push(`Expiration Time: ${p.expirationTime}`);
  if (p.notBefore) lines.push(`Not Before: ${p.notBefore}`);
  if (p.requestId) lines.push(`Request ID: ${p.requestId}`);
  if (p.resources?.length) lines.push("Resources:", ...p.resources.map((r) => `- ${r}`));
  return lines.join("\n");
}

async function verifyAlgorand(p: Payload): Promise<boolean> {
  // Loaded only when an Algorand proof comes (a server with payments off carries no chain library).
  const { default: algosdk } = await import("algosdk");
  try {
    if (!algosdk.isValidAddress(p.address)) return false;
    const signature = Buffer.from(p.signature, "base64");
    return signature.length === 64 && algosdk.verifyBytes(new TextEncoder().encode(algorandProofMessage(p)), signature, p.address);
  } catch {
    return false;
  }
}

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export interface PayerProofs {
  /**
   * Checks `presented` against `target`: resolves when it is the payer's; throws 401
   * PAYER_PROOF_REQUIRED (none), 401 PAYER_PROOF_INVALID (malformed, bad signature, expired,
   * another resource or network, a nonce seen before), or `denied` (a valid proof of another wallet).
   */
  check(presented: string | null | undefined, target: ProofTarget, denied: () => ApiError): Promise<void>;
}

export function createPayerProofs(nonces: ProofNonces, now: () => Date = () => new Date()): PayerProofs {
  const invalid = (reason: string, message: string, target: ProofTarget) =>
    new ApiError("PAYER_PROOF_INVALID", { message: `${message} Sign a fresh proof for this request.`, details: { reason, challenge: proofChallenge(target, now()) } });

  return {
    async check(presented, target, denied) {
      if (!presented) throw new ApiError("PAYER_PROOF_REQUIRED", { details: { challenge: proofChallenge(target, now()) } });
      const ext = await loadSiwx();
      let payload: Payload;
      try {
        if (presented.length > 8192) throw new Error("over 8 KiB");
        payload = ext.parseSIWxHeader(presented.trim());
      } catch (error) {
        throw invalid("malformed", `The proof is not a Sign-In-With-X payload (${(error as Error).message}).`, target);
      }
      const resource = new URL(target.resourceUrl);
      const valid = await ext.validateSIWxMessage(payload, new URL(resource.origin), { maxAge: MAX_AGE_MS });
      if (!valid.isValid) throw invalid(valid.invalidReason, `${valid.invalidMessage}.`, target);
      if (new URL(payload.uri).pathname !== resource.pathname) throw invalid("invalid_siwx_uri_mismatch", `The proof names ${payload.uri}, not ${resource.toString()}.`, target);
      if (target.network && payload.chainId !== target.network) throw invalid("invalid_siwx_chain_id", `The proof is made on ${payload.chainId}; the payment was made on ${target.network}.`, target);
      const issuedMs = Date.parse(payload.issuedAt);
      const untilMs = payload.expirationTime ? Date.parse(payload.expirationTime) : issuedMs + MAX_AGE_MS;
      if (!payload.expirationTime || untilMs - issuedMs > MAX_AGE_MS) {
        throw invalid("invalid_siwx_expiration_time", "The proof must carry an expirationTime at most 5 minutes after its issuedAt.", target);
      }
      let verified: boolean;
      try {
        verified = payload.chainId.startsWith("algorand:")
          ? await verifyAlgorand(payload)
          : payload.chainId.startsWith("eip155:") && (await ext.verifySIWxSignature(payload)).isValid;
      } catch (error) {
        // The SIWE parser throws on fields no SIWE message may hold (a short nonce, a bad address, a line break).
        throw invalid("malformed", `The proof's fields do not make a valid sign-in message (${(error as Error).message.split("\n")[0]}).`, target);
      }
      if (!verified) throw invalid("invalid_siwx_signature", "The proof's signature does not verify for its address.", target);
      // Kept until neither its expirationTime nor the 5-minute issuedAt window could let it in again.
      const key = `${payload.address.toLowerCase()} ${payload.nonce}`;
      if (!(await nonces.take(key, Math.max(untilMs, issuedMs + MAX_AGE_MS) + 1000, now().getTime()))) {
        throw invalid("replayed", "This proof (its nonce) was used already.", target);
      }
      if (!sameAddress(payload.address, target.payer)) throw denied();
    },
  };
}
