/**
 * @module x402/avm/buyer — the Algorand family's buyer side (x402/buyer-family.ts). The key file holds
 * the account's 25-word mnemonic (what wallets export) or its 64-byte secret key (32-byte seed +
 * 32-byte public key) in base64, as @x402/avm's toClientAvmSigner takes it.
 */
import { toClientAvmSigner } from "@x402/avm";
import { ExactAvmScheme } from "@x402/avm/exact/client";
import algosdk from "algosdk";
import type { BuyerFamily } from "../buyer-family.ts";

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

export const avmBuyer: BuyerFamily = {
  name: "avm",
  keyHint: "the paying Algorand account's 25-word mnemonic (or its 64-byte secret key in base64)",
  readKey(text) {
    const account = algorandAccount(text);
    return account ? { family: "avm", address: account.addr.toString(), secret: Buffer.from(account.sk).toString("base64") } : undefined;
  },
  offerProblem(offer, payer) {
    if (!/^\d{1,20}$/.test(offer.asset)) return `the 402 asset "${offer.asset}" is not an Algorand asset id`;
    if (!algosdk.isValidAddress(offer.payTo)) return `the 402 payTo "${offer.payTo}" is not an Algorand address`;
    const feePayer = offer.extra?.feePayer;
    if (feePayer !== undefined && (typeof feePayer !== "string" || !algosdk.isValidAddress(feePayer))) return "the 402 offer's extra.feePayer is not an Algorand address";
    if (feePayer !== undefined && feePayer === payer) return "the 402 offer names the buyer's own account as fee payer (the buyer would sign the group's fee transaction too): refused";
    return undefined;
  },
  registerSigner(client, key, network, options) {
    client.register(network, new ExactAvmScheme(toClientAvmSigner(key.secret), options.algodUrl ? { algodUrl: options.algodUrl } : undefined) as never);
  },
};
