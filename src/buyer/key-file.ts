/**
 * @module buyer/key-file — the buyer's private key, read from a file that only its owner may read:
 * a missing file, one that group or others may read, or one that holds no key of the paying
 * network's family is refused with a message, before anything is fetched or signed. What a key of
 * each family looks like is the family's (x402/evm/buyer.ts, x402/avm/buyer.ts).
 */
import { readFileSync, statSync } from "node:fs";
import { buyerFamily } from "../x402/buyer-families.ts";
import type { BuyerKey } from "../x402/buyer-family.ts";

export type { BuyerKey };

export class BuyerRefusal extends Error {
  override readonly name = "BuyerRefusal";
}

export function readBuyerKey(path: string | undefined, familyName = "evm"): BuyerKey {
  const family = buyerFamily(familyName);
  if (!path) throw new BuyerRefusal(`give --key-file FILE: a file (mode 0600) holding ${family.keyHint}`);
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new BuyerRefusal(`key file ${path} does not exist`);
  if (!stat.isFile()) throw new BuyerRefusal(`key file ${path} is not a file`);
  const mode = stat.mode & 0o777;
  if (mode & 0o077) throw new BuyerRefusal(`key file ${path} may be read by group or others (mode ${mode.toString(8)}); run chmod 600 ${path}`);
  const key = family.readKey(readFileSync(path, "utf8").trim());
  if (!key) throw new BuyerRefusal(`key file ${path} does not hold ${family.keyHint}`);
  return key;
}
