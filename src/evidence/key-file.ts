/**
 * @module evidence/key-file — the Ed25519 signing keys of evidence, kept in one JSON file in the
 * data folder (mode 0600, refused when group or others may read it). The file holds the current
 * key with its private half and every retired key's public half only: `tollbooth keys rotate`
 * makes a new current key and drops the old private key, so old statements still verify and no
 * new one can be signed with a retired key. A running server notices a rotation within a second.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createPrivateKey, type KeyObject } from "node:crypto";
import { join } from "node:path";
import type { JWK } from "jose";
import { jose } from "./jose-lazy.ts";

export const evidenceKeyFileName = "evidence-keys.json";
const fileFormat = "tollbooth-evidence-keys/1";
const recheckMs = 1000;

export class EvidenceKeyError extends Error {
  override readonly name = "EvidenceKeyError";
}

/** A public key as the JWKS publishes it. */
export interface PublicJwk {
  readonly kty: "OKP";
  readonly crv: "Ed25519";
  readonly x: string;
  readonly kid: string;
  readonly alg: "EdDSA";
  readonly use: "sig";
}

/** One key as kept: the file's entries and the database's rows alike. */
export interface StoredKey {
  readonly kid: string;
  readonly created_at: string;
  readonly retired_at?: string;
  readonly public: PublicJwk;
  /** Only on the current key. */
  readonly private?: JWK;
}

interface KeyFile {
  readonly format: typeof fileFormat;
  readonly current: string;
  readonly keys: readonly StoredKey[];
}

export interface SigningKey {
  readonly kid: string;
  readonly key: CryptoKey;
  /**
   * The same private key for node:crypto's synchronous `sign`: an evidence signature then costs a third of
   * the CPU it took through WebCrypto's promise and jose's checks (scripts/bench/evidence-signing.ts).
   */
  readonly privateKey: KeyObject;
}

export interface EvidenceKeys {
  /** The key that signs now (re-read when the file changed, at most once a second). */
  current(): Promise<SigningKey>;
  /** Every published public key, current first. */
  jwks(): Promise<{ keys: PublicJwk[] }>;
}

export function evidenceKeyPath(dataDir: string): string {
  return join(dataDir, evidenceKeyFileName);
}

/** A fresh Ed25519 key, named by its JWK thumbprint, with its private half. */
export async function newEvidenceKey(now: Date): Promise<StoredKey> {
  const { calculateJwkThumbprint, exportJWK, generateKeyPair } = await jose();
  const pair = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const publicJwk = await exportJWK(pair.publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const privateJwk = await exportJWK(pair.privateKey);
  return {
    kid,
    created_at: now.toISOString(),
    public: { kty: "OKP", crv: "Ed25519", x: publicJwk.x!, kid, alg: "EdDSA", use: "sig" },
    private: { kty: "OKP", crv: "Ed25519", x: privateJwk.x!, d: privateJwk.d! },
  };
}

function writeKeyFile(path: string, file: KeyFile): void {
  const partial = `${path}.partial-${process.pid}`;
  writeFileSync(partial, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  chmodSync(partial, 0o600);
  renameSync(partial, path);
}

function readKeyFile(path: string): KeyFile {
  const mode = statSync(path).mode & 0o777;
  if (mode & 0o077) {
    throw new EvidenceKeyError(`${path} may be read by group or others (mode ${mode.toString(8)}): it holds the evidence signing key; run chmod 600 ${path}`);
  }
  let file: KeyFile;
  try {
    file = JSON.parse(readFileSync(path, "utf8")) as KeyFile;
  } catch (error) {
    throw new EvidenceKeyError(`${path} is not a readable evidence key file: ${(error as Error).message}`);
  }
  const current = file?.keys?.find((k) => k.kid === file.current);
  if (file?.format !== fileFormat || !current?.private) throw new EvidenceKeyError(`${path} is not an evidence key file of this version (${fileFormat}) with a current private key`);
  return file;
}

/** The signing key of a stored key that still has its private half. */
export async function signingKeyFrom(stored: StoredKey): Promise<SigningKey> {
  const key = await (await jose()).importJWK(stored.private!, "EdDSA");
  return { kid: stored.kid, key: key as CryptoKey, privateKey: createPrivateKey({ key: stored.private as JsonWebKey, format: "jwk" }) };
}

const signingKeyOf = (file: KeyFile) => signingKeyFrom(file.keys.find((k) => k.kid === file.current)!);

const jwksOf = (file: KeyFile) => ({ keys: [...file.keys].sort((a, b) => Number(b.kid === file.current) - Number(a.kid === file.current)).map((k) => k.public) });

/** Opens the data folder's keys, making the first one when there is none; `:memory:` keeps one key in memory. */
export async function openEvidenceKeys(dataDir: string, now: () => Date = () => new Date()): Promise<EvidenceKeys> {
  if (dataDir === ":memory:") {
    const stored = await newEvidenceKey(now());
    const file: KeyFile = { format: fileFormat, current: stored.kid, keys: [stored] };
    const signing = await signingKeyOf(file);
    return { current: async () => signing, jwks: async () => jwksOf(file) };
  }
  const path = evidenceKeyPath(dataDir);
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true });
    const stored = await newEvidenceKey(now());
    writeKeyFile(path, { format: fileFormat, current: stored.kid, keys: [stored] });
  }
  let file = readKeyFile(path);
  let signing = await signingKeyOf(file);
  let seen = fileVersion(path);
  let checkedAt = Date.now();
  const fresh = async () => {
    if (Date.now() - checkedAt < recheckMs) return;
    checkedAt = Date.now();
    const version = fileVersion(path);
    if (version === undefined || version === seen) return;
    // A rotation: take the new file whole, or keep signing with the old key if it cannot be read.
    const next = readKeyFile(path);
    signing = await signingKeyOf(next);
    file = next;
    seen = version;
  };
  return {
    current: async () => {
      await fresh().catch(() => undefined);
      return signing;
    },
    jwks: async () => {
      await fresh().catch(() => undefined);
      return jwksOf(file);
    },
  };
}

/** The keys of the data folder's file, private half of the current one included (`tollbooth keys import`). */
export function readEvidenceKeyFile(dataDir: string): { readonly current: string; readonly keys: readonly StoredKey[] } {
  const path = evidenceKeyPath(dataDir);
  if (!existsSync(path)) throw new EvidenceKeyError(`no evidence key file at ${path}`);
  const { current, keys } = readKeyFile(path);
  return { current, keys };
}

/** `tollbooth keys rotate`: a new current key; the old one keeps only its public half. */
export async function rotateEvidenceKeys(dataDir: string, now = new Date()): Promise<{ retired: string; current: string; path: string }> {
  const path = evidenceKeyPath(dataDir);
  if (!existsSync(path)) throw new EvidenceKeyError(`no evidence key file at ${path}: the server makes one on first start`);
  const file = readKeyFile(path);
  const fresh = await newEvidenceKey(now);
  const keys = file.keys.map((k): StoredKey => (k.kid === file.current ? { kid: k.kid, created_at: k.created_at, retired_at: now.toISOString(), public: k.public } : k));
  writeKeyFile(path, { format: fileFormat, current: fresh.kid, keys: [fresh, ...keys] });
  return { retired: file.current, current: fresh.kid, path };
}

/** What tells a rewritten key file from the one read: its modification time alone can stay the same when a rotation follows within the kernel's timestamp tick. */
function fileVersion(path: string): string | undefined {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat ? `${stat.mtimeMs}:${stat.size}:${stat.ino}` : undefined;
}
