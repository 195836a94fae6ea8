/**
 * @module buyer/key-file — the buyer's EVM private key, read from a file that only its owner may
 * read: a missing file, one that group or others may read, or one that holds no key is refused
 * with a message, before anything is fetched or signed.
 */
import { readFileSync, statSync } from "node:fs";

export class BuyerRefusal extends Error {
  override readonly name = "BuyerRefusal";
}

export function readBuyerKey(path: string | undefined): `0x${string}` {
  if (!path) throw new BuyerRefusal("give --key-file FILE: a file (mode 0600) holding the paying wallet's private key as 0x-prefixed hex");
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new BuyerRefusal(`key file ${path} does not exist`);
  if (!stat.isFile()) throw new BuyerRefusal(`key file ${path} is not a file`);
  const mode = stat.mode & 0o777;
  if (mode & 0o077) throw new BuyerRefusal(`key file ${path} may be read by group or others (mode ${mode.toString(8)}); run chmod 600 ${path}`);
  const key = readFileSync(path, "utf8").trim();
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new BuyerRefusal(`key file ${path} does not hold a private key (0x and 64 hex digits)`);
  return key as `0x${string}`;
}
