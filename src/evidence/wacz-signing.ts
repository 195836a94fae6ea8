/**
 * @module evidence/wacz-signing — the signature a WACZ carries in its datapackage-digest.json, as
 * webrecorder's "WACZ Signing and Verification" (0.1.0) writes an anonymous one: the package hash
 * signed with ECDSA and the signer's public key beside it. ReplayWeb.page (wabac.js) checks it with
 * WebCrypto as an ECDSA P-384 SPKI key and a SHA-256 signature in IEEE P1363 form (r‖s), over the
 * UTF-8 bytes of the hash string: so that is the key and form used here.
 *
 * Our evidence keys are Ed25519, which the viewer does not accept. The P-384 key is derived from the
 * current evidence key (HKDF over its deterministic Ed25519 signature of a fixed label): every
 * instance that signs with the same evidence key signs archives with the same P-384 key, a rotation
 * rotates both, and nothing new is stored. The signed evidence statement names the P-384 public key,
 * so an archive's signature is tied to the published Ed25519 key even after a rotation.
 */
import { createECDH, createPrivateKey, createPublicKey, hkdfSync, type KeyObject, sign } from "node:crypto";
import { jose } from "./jose-lazy.ts";
import type { EvidenceKeys, SigningKey } from "./key-file.ts";

/** `signedData` of datapackage-digest.json (the spec's anonymous signature). */
export interface WaczSignedData {
  hash: string;
  created: string;
  software: string;
  /** SHA-256 of `hash` signed with ECDSA P-384, IEEE P1363 (r‖s), base64. */
  signature: string;
  /** The ECDSA P-384 public key, SPKI DER, base64. */
  publicKey: string;
}

export interface WaczKey {
  key: KeyObject;
  /** SPKI DER, base64: what the viewer shows as the "Observer Public Key". */
  publicKey: string;
  /** The public key as the JWKS publishes it, beside the Ed25519 evidence keys. */
  jwk: WaczPublicJwk;
}

/**
 * The package key in /.well-known/jwks.json. `alg` is ES384, the JOSE name of ECDSA on P-384 (WebCrypto
 * imports a P-384 JWK only with that `alg` or none); the WACZ signature itself hashes with SHA-256, as the
 * WACZ signing specification and the viewer do, which `wacz_signature` states. `kid` is the RFC 7638 thumbprint.
 */
export interface WaczPublicJwk {
  readonly kty: "EC";
  readonly crv: "P-384";
  readonly x: string;
  readonly y: string;
  readonly kid: string;
  readonly alg: "ES384";
  readonly use: "sig";
  readonly key_ops: readonly ["verify"];
  readonly wacz_signature: typeof WACZ_SIGNATURE_FORM;
}

export const WACZ_SIGNATURE_FORM = "ECDSA P-384, SHA-256, IEEE P1363 (r||s), over the UTF-8 bytes of datapackage-digest.json's hash";

const DERIVATION_LABEL = "tollbooth wacz signing key (ECDSA P-384) v1";
/** The order of the P-384 group. */
const P384_ORDER = BigInt("0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973");
const derived = new Map<string, Promise<WaczKey>>();

/** The P-384 key derived from the evidence signing key (kept per key id for the process's life). */
export function waczKeyFor(signing: SigningKey): Promise<WaczKey> {
  let key = derived.get(signing.kid);
  if (!key) {
    key = deriveWaczKey(signing);
    derived.set(signing.kid, key);
    key.catch(() => derived.delete(signing.kid));
  }
  return key;
}

async function deriveWaczKey(signing: SigningKey): Promise<WaczKey> {
  // Ed25519 signatures are deterministic: only the holder of the evidence key can make this seed, and always the same one.
  const seed = new Uint8Array(await crypto.subtle.sign({ name: signing.key.algorithm.name }, signing.key, new TextEncoder().encode(DERIVATION_LABEL)));
  const material = Buffer.from(hkdfSync("sha384", seed, "tollbooth-wacz", DERIVATION_LABEL, 64));
  // 64 bytes reduced modulo n-1, plus one: a scalar in [1, n-1] with negligible bias.
  const scalar = (BigInt(`0x${material.toString("hex")}`) % (P384_ORDER - 1n)) + 1n;
  const d = Buffer.from(scalar.toString(16).padStart(96, "0"), "hex");
  const ecdh = createECDH("secp384r1");
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey();
  const key = createPrivateKey({
    format: "jwk",
    key: { kty: "EC", crv: "P-384", d: d.toString("base64url"), x: point.subarray(1, 49).toString("base64url"), y: point.subarray(49).toString("base64url") },
  });
  const x = point.subarray(1, 49).toString("base64url");
  const y = point.subarray(49).toString("base64url");
  const kid = await (await jose()).calculateJwkThumbprint({ kty: "EC", crv: "P-384", x, y });
  const jwk: WaczPublicJwk = { kty: "EC", crv: "P-384", x, y, kid, alg: "ES384", use: "sig", key_ops: ["verify"], wacz_signature: WACZ_SIGNATURE_FORM };
  return { key, publicKey: createPublicKey(key).export({ type: "spki", format: "der" }).toString("base64"), jwk };
}

/** What the JWKS publishes after the evidence keys: the current evidence key's package key (a retired key's cannot be derived: its private half is gone). */
export function publishedArchiveKeys(keys: Pick<EvidenceKeys, "current">): () => Promise<WaczPublicJwk[]> {
  return async () => [(await waczKeyFor(await keys.current())).jwk];
}

/** The spec's anonymous signedData for a datapackage.json hash ("sha256:<hex>"). */
export async function signWaczHash(hash: string, signing: SigningKey, software: string, created: Date = new Date()): Promise<WaczSignedData> {
  const { key, publicKey } = await waczKeyFor(signing);
  const signature = sign("sha256", Buffer.from(hash, "utf8"), { key, dsaEncoding: "ieee-p1363" }).toString("base64");
  return { hash, created: created.toISOString(), software, signature, publicKey };
}

/** Checks signedData as the viewer does (WebCrypto, ECDSA P-384, SHA-256); false on any malformed part. */
export async function verifyWaczSignedData(signed: Partial<WaczSignedData>): Promise<boolean> {
  if (typeof signed.hash !== "string" || typeof signed.signature !== "string" || typeof signed.publicKey !== "string") return false;
  try {
    const key = await crypto.subtle.importKey("spki", Buffer.from(signed.publicKey, "base64"), { name: "ECDSA", namedCurve: "P-384" }, false, ["verify"]);
    return await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, Buffer.from(signed.signature, "base64"), new TextEncoder().encode(signed.hash));
  } catch {
    return false;
  }
}
