/**
 * @module crawl/sitemap-read — one sitemap, sitemap index, RSS or Atom file → the URLs it lists,
 * under sitemaps.org's limits: at most 50,000 URLs and 50 MiB uncompressed per file. Hostile files
 * are refused, not survived: a gzip body that inflates past 50 MiB (a gzip bomb) and a file that
 * declares a DOCTYPE or entities (billion laughs, external entities) end the call with a clear
 * code. The XML is read by htmlparser2's tokenizer, which expands no declared entity anyway.
 */
import { gunzipSync } from "node:zlib";
import { Parser } from "htmlparser2";
import { ApiError } from "../errors.ts";

/** sitemaps.org: per file. */
export const MAX_SITEMAP_URLS = 50_000;
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;

export interface ListedUrl {
  readonly url: string;
  readonly lastmod?: string;
}

export type SitemapFile =
  | { readonly kind: "index"; readonly sitemaps: readonly string[] }
  | { readonly kind: "urlset" | "feed"; readonly urls: readonly ListedUrl[] }
  | { readonly kind: "other" };

const isGzip = (bytes: Uint8Array) => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

/** The file's text: gunzipped when it is gzip (a sitemap.xml.gz), at most 50 MiB either way. */
export function sitemapText(bytes: Uint8Array, where: string): string {
  let plain = bytes;
  if (isGzip(bytes)) {
    try {
      plain = gunzipSync(bytes, { maxOutputLength: MAX_SITEMAP_BYTES });
    } catch (error) {
      if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" || error instanceof RangeError) {
        throw new ApiError("SITEMAP_TOO_LARGE", { message: `${where} inflates past ${MAX_SITEMAP_BYTES / 1024 / 1024} MiB (a sitemap's limit): refused as a gzip bomb.` });
      }
      throw new ApiError("SITEMAP_INVALID", { message: `${where} is not valid gzip.` });
    }
  }
  if (plain.length > MAX_SITEMAP_BYTES) throw new ApiError("SITEMAP_TOO_LARGE", { message: `${where} is larger than ${MAX_SITEMAP_BYTES / 1024 / 1024} MiB (a sitemap's limit).` });
  return new TextDecoder("utf-8").decode(plain);
}

/** What a sitemap, index or feed lists; throws ApiError SITEMAP_TOO_LARGE or SITEMAP_XML_REFUSED. */
export function readSitemap(text: string, where: string): SitemapFile {
  let root: string | undefined;
  const sitemaps: string[] = [];
  const urls: ListedUrl[] = [];
  // The element whose text is being read (loc, lastmod, link, updated…), and the entry it belongs to.
  let field: string | undefined;
  let value = "";
  let entry: { url?: string; lastmod?: string } | undefined;
  let refused: ApiError | undefined;
  const tooMany = () =>
    new ApiError("SITEMAP_TOO_LARGE", { message: `${where} lists more than ${MAX_SITEMAP_URLS} URLs (a sitemap's limit).` });
  const add = (target: { url?: string; lastmod?: string } | undefined) => {
    if (!target?.url) return;
    if (root === "sitemapindex") sitemaps.push(target.url);
    else urls.push({ url: target.url, ...(target.lastmod ? { lastmod: target.lastmod } : {}) });
    if (sitemaps.length + urls.length > MAX_SITEMAP_URLS) refused ??= tooMany();
  };
  const parser = new Parser(
    {
      onprocessinginstruction(name) {
        // <!DOCTYPE …> and <!ENTITY …>: no sitemap or feed needs them; entity tricks start there.
        if (/^!(doctype|entity|element|attlist)/i.test(name)) {
          refused ??= new ApiError("SITEMAP_XML_REFUSED", { message: `${where} declares a DOCTYPE or entities, which no sitemap or feed needs: refused (entity expansion is never done).` });
        }
      },
      onopentag(name, attributes) {
        const tag = name.toLowerCase().replace(/^.*:/, "");
        root ??= tag;
        if (tag === "url" || tag === "sitemap" || tag === "item" || tag === "entry") entry = {};
        else if (entry && (tag === "loc" || tag === "lastmod" || tag === "link" || tag === "updated" || tag === "pubdate")) {
          field = tag;
          value = "";
          // Atom: <link href="…" rel="alternate"/> (the entry's page; other rels are not).
          if (tag === "link" && attributes.href && (attributes.rel ?? "alternate") === "alternate") entry.url ??= attributes.href.trim();
        }
      },
      ontext(text) {
        if (field) value += text;
      },
      onclosetag(name) {
        const tag = name.toLowerCase().replace(/^.*:/, "");
        if (field === tag && entry) {
          const text = value.trim();
          if ((tag === "loc" || tag === "link") && text) entry.url ??= text;
          else if ((tag === "lastmod" || tag === "updated" || tag === "pubdate") && text) entry.lastmod ??= text;
          field = undefined;
        }
        if (entry && (tag === "url" || tag === "sitemap" || tag === "item" || tag === "entry")) {
          add(entry);
          entry = undefined;
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  // Fed in slices so a refusal stops the reading early.
  for (let at = 0; at < text.length && !refused; at += 1 << 20) parser.write(text.slice(at, at + (1 << 20)));
  if (!refused) parser.end();
  if (refused) throw refused;
  if (root === "sitemapindex") return { kind: "index", sitemaps };
  if (root === "urlset") return { kind: "urlset", urls };
  if (root === "rss" || root === "feed" || root === "rdf") return { kind: "feed", urls };
  return { kind: "other" };
}
