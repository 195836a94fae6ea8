/**
 * @module buyer/key-file — the buyer's private key, read from a file that only its owner may read:
 * a missing file, one that group or others may read, or one that holds no key of the paying
 * network's family is refused with a message, before anything is fetched or signed.
 *
 * EVM: 0x and 64 hex digits. Algorand: the account's 25-word mnemonic (what wallets export), or
 * its 64-byte secret key (32-byte seed + 32-byte public key) in base64, as @x402/avm's
 * toClientAvmSigner takes it.
 */
import { readFileSync, statSync } from "node:fs";
import algosdk from "algosdk";

export class BuyerRefusal extends Error {
  override readonly name = "BuyerRefusal";
}

export type BuyerKey =
  | { readonly family: "evm"; readonly privateKey: `0x${string}` }
  | { readonly family: "avm"; readonly address: string; /** 64-byte secret key, base64. */ readonly secretKey: string };

const hint = {
  evm: "the paying wallet's private key as 0x-prefixed hex",
  avm: "the paying Algorand account's 25-word mnemonic (or its 64-byte secret key in base64)",
} as const;

export function readBuyerKey(path: string | undefined, family: "evm" | "avm" = "evm"): BuyerKey {
  if (!path) throw new BuyerRefusal(`give --key-file FILE: a file (mode 0600) holding ${hint[family]}`);
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new BuyerRefusal(`key file ${path} does not exist`);
  if (!stat.isFile()) throw new BuyerRefusal(`key file ${path} is not a file`);
  const mode = stat.mode & 0o777;
  if (mode & 0o077) throw new BuyerRefusal(`key file ${path} may be read by group or others (mode ${mode.toString(8)}); run chmod 600 ${path}`);
  const text = readFileSync(path, "utf8").trim();
  if (family === "evm") {
    if (!/^0x[0-9a-fA-F]{64}$/.test(text)) throw new BuyerRefusal(`key file ${path} does not hold a private key (0x and 64 hex digits)`);
    return { family, privateKey: text as `0x${string}` };
  }
  const account = algorandAccount(text);
  if (!account) throw new BuyerRefusal(`key file ${path} does not hold ${hint.avm}`);
  return { family, address: account.addr.toString(), secretKey: Buffer.from(account.sk).toString("base64") };
}

function algorandAccount(text: string): algosdk.Account | undefined {
  const words = text.split(/\s+/);
  try {
    if (words.length === 25) return algosdk.mnemonicToSecretKey(words.join(" "));
    if (!/^[A-Za-z0-9+/]{86}={0,2}$/.test(text)) return undefined;
    const sk = new Uint8Array(Buffer.from(text, "base64"));
    if (sk.length !== 64) return undefined;
    // The mnemonic holds the seed only: the round trip derives the public half, which must match the file's.
    const derived = algosdk.mnemonicToSecretKey(algosdk.secretKeyToMnemonic(sk));
    return Buffer.from(derived.sk).equals(Buffer.from(sk)) ? derived : undefined;
  } catch {
    return undefined;
  }
}
