/** Signs the payer's proof (x402 Sign-In-With-X, src/x402/payer-proof.ts) as a buyer's wallet does, for a resource URL. */
import { randomBytes } from "node:crypto";
import algosdk from "algosdk";
import { createSIWxMessage, encodeSIWxHeader } from "@x402/extensions/sign-in-with-x";
import { privateKeyToAccount } from "viem/accounts";
import { algorandProofMessage } from "../../src/x402/payer-proof.ts";

/** What a test may bend: the URI signed, the network, when it was issued and for how long, the nonce. */
export interface ProofFields {
  readonly uri?: string;
  readonly chainId?: string;
  readonly issuedAt?: Date;
  readonly expiresInMs?: number;
  readonly nonce?: string;
}

function fieldsOf(url: string, f: ProofFields, chainId: string) {
  const issued = f.issuedAt ?? new Date();
  return {
    domain: new URL(url).host,
    uri: f.uri ?? url,
    statement: "Prove you are the payer.",
    version: "1",
    chainId: f.chainId ?? chainId,
    nonce: f.nonce ?? randomBytes(12).toString("hex"),
    issuedAt: issued.toISOString(),
    expirationTime: new Date(issued.getTime() + (f.expiresInMs ?? 240_000)).toISOString(),
  };
}

/** An EVM wallet's proof (SIWE message, EIP-191 signature), as the SIGN-IN-WITH-X header carries it. */
export async function evmProof(key: `0x${string}`, url: string, network: string, f: ProofFields = {}): Promise<string> {
  const account = privateKeyToAccount(key);
  const info = { ...fieldsOf(url, f, network), type: "eip191" as const };
  const signature = await account.signMessage({ message: createSIWxMessage(info, account.address) });
  return encodeSIWxHeader({ ...info, address: account.address, signature });
}

/** An Algorand account's proof (the CAIP-122 message, Ed25519 signBytes signature in base64). */
export function algorandProof(account: algosdk.Account, url: string, network: string, f: ProofFields = {}): string {
  const info = { ...fieldsOf(url, f, network), type: "ed25519" as const, address: account.addr.toString() };
  const signature = Buffer.from(algosdk.signBytes(new TextEncoder().encode(algorandProofMessage(info)), account.sk)).toString("base64");
  return encodeSIWxHeader({ ...info, signature });
}
