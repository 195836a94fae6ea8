/**
 * @module web/archive/wacz-package — the WACZ 1.1.1 package (a zip written by fflate): the WARC under
 * archive/, its CDXJ index under indexes/, pages/pages.jsonl, datapackage.json naming every file's
 * SHA-256 and size, and datapackage-digest.json holding datapackage.json's hash and, when a signer is
 * given, its signature (evidence/wacz-signing.ts). Entries are stored uncompressed, so a reader can
 * seek into the WARC (its records are gzipped one by one already).
 */
import { createHash } from "node:crypto";
import { zipSync } from "fflate";
import type { WaczSignedData } from "../../evidence/wacz-signing.ts";
import { type BuiltWarc, WARC_NAME } from "./warc-records.ts";

export const WACZ_VERSION = "1.1.1";
export const WACZ_MEDIA_TYPE = "application/wacz";

export interface WaczPage {
  url: string;
  /** ISO 8601: when the page was fetched. */
  ts: string;
  title: string;
}

export interface WaczInput {
  warc: BuiltWarc;
  page: WaczPage;
  software: string;
  created: Date;
  /** Signs datapackage.json's hash ("sha256:<hex>"); without it the digest file carries no signedData. */
  sign?: (hash: string) => Promise<WaczSignedData | undefined>;
}

export interface BuiltWacz {
  wacz: Uint8Array;
  /** "sha256:<hex>" of datapackage.json: what the package signature signs. */
  datapackageHash: string;
  signedData?: WaczSignedData;
}

const sha256 = (bytes: Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
const utf8 = (text: string) => new TextEncoder().encode(text);

export async function buildWacz(input: WaczInput): Promise<BuiltWacz> {
  const { page } = input;
  const pagesJsonl = [
    JSON.stringify({ format: "json-pages-1.0", id: "pages", title: "All Pages" }),
    JSON.stringify({ id: createHash("sha256").update(`${page.ts} ${page.url}`).digest("hex").slice(0, 32), url: page.url, ts: page.ts, title: page.title }),
    "",
  ].join("\n");
  const files: Record<string, Uint8Array> = {
    [`archive/${WARC_NAME}`]: input.warc.warc,
    "indexes/index.cdx": utf8(input.warc.cdxj),
    "pages/pages.jsonl": utf8(pagesJsonl),
  };
  const datapackage = {
    profile: "data-package",
    wacz_version: WACZ_VERSION,
    title: page.title || page.url,
    software: input.software,
    created: input.created.toISOString(),
    mainPageURL: page.url,
    mainPageDate: page.ts,
    resources: Object.entries(files).map(([path, bytes]) => ({ name: path.slice(path.lastIndexOf("/") + 1), path, hash: sha256(bytes), bytes: bytes.length })),
  };
  const datapackageBytes = utf8(JSON.stringify(datapackage, null, 2));
  const datapackageHash = sha256(datapackageBytes);
  const signedData = input.sign ? await input.sign(datapackageHash) : undefined;
  const digest = { path: "datapackage.json", hash: datapackageHash, ...(signedData ? { signedData } : {}) };
  const entries = { ...files, "datapackage.json": datapackageBytes, "datapackage-digest.json": utf8(JSON.stringify(digest, null, 2)) };
  const mtime = input.created;
  const wacz = zipSync(Object.fromEntries(Object.entries(entries).map(([path, bytes]) => [path, [bytes, { level: 0, mtime }]])));
  return { wacz, datapackageHash, ...(signedData ? { signedData } : {}) };
}
