/**
 * The web/extract quality set: pages of the shared extraction benches whose own metadata names
 * the facts (og:title / twitter:title / JSON-LD headline, author, publication date, og:site_name).
 * That metadata is the truth; it is cut out of the HTML (the meta tags and JSON-LD blocks) before
 * the page is read, so a value can only come from what a reader of the page sees.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { decodeHTML } from "entities";

export interface Truth {
  headline: string;
  author?: string;
  published_date?: string;
  site_name?: string;
}

export interface BenchPage {
  readonly id: string;
  /** The page with its metadata removed. */
  readonly html: string;
  readonly truth: Truth;
  /** One property per fact the metadata gave. */
  readonly schema: Record<string, unknown>;
}

const META = /<meta\b[^>]*>/gi;
const ATTRIBUTE = /([a-zA-Z_:][\w:.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g;
const JSON_LD = /<script\b[^>]*type\s*=\s*["']?application\/ld\+json["']?[^>]*>([\s\S]*?)<\/script\s*>/gi;

const headlineKeys = ["og:title", "twitter:title"];
const authorKeys = ["author", "article:author", "byl", "dc.creator", "sailthru.author", "parsely-author"];
const dateKeys = ["article:published_time", "date", "pubdate", "publishdate", "dc.date", "dc.date.issued", "sailthru.date", "ptime", "datepublished", "og:published_time", "parsely-pub-date"];
const siteKeys = ["og:site_name"];
/** Every meta key cut out of the page: the truth's keys and their look-alikes. */
const cutPrefixes = ["og:", "twitter:", "article:", "dc.", "sailthru.", "parsely-"];
const cutKeys = new Set([...authorKeys, ...dateKeys, "title", "description", "keywords", "headline"]);

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(ATTRIBUTE)) out[m[1]!.toLowerCase()] = decodeHTML(m[2] ?? m[3] ?? m[4] ?? "").trim();
  return out;
}

const keyOf = (a: Record<string, string>) => (a.property ?? a.name ?? a.itemprop ?? "").toLowerCase();

function isoDate(value: string): string | undefined {
  const direct = /^(\d{4})-(\d{2})-(\d{2})/.exec(value.trim());
  if (direct) return `${direct[1]}-${direct[2]}-${direct[3]}`;
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) return undefined;
  const year = new Date(parsed).getUTCFullYear();
  return year >= 1995 && year <= 2030 ? new Date(parsed).toISOString().slice(0, 10) : undefined;
}

function cleanAuthor(value: string): string | undefined {
  const name = value.replace(/^by\s+/i, "").trim();
  if (name === "" || /^https?:|^www\.|@|\.com\b/i.test(name) || name.length > 80) return undefined;
  return name;
}

function fromJsonLd(html: string): Partial<Truth> {
  const found: Partial<Truth> = {};
  for (const m of html.matchAll(JSON_LD)) {
    let doc: unknown;
    try {
      doc = JSON.parse(m[1]!.trim());
    } catch {
      continue;
    }
    const nodes = (Array.isArray(doc) ? doc : [doc]).flatMap((d) => (d && typeof d === "object" && Array.isArray((d as { "@graph"?: unknown[] })["@graph"]) ? (d as { "@graph": unknown[] })["@graph"] : [d]));
    for (const node of nodes) {
      if (!node || typeof node !== "object") continue;
      const n = node as Record<string, unknown>;
      if (typeof n.headline === "string" && !found.headline) found.headline = decodeHTML(n.headline).trim();
      const author = Array.isArray(n.author) ? n.author[0] : n.author;
      const authorName = typeof author === "string" ? author : author && typeof author === "object" ? (author as { name?: unknown }).name : undefined;
      if (typeof authorName === "string" && !found.author) found.author = cleanAuthor(decodeHTML(authorName));
      if (typeof n.datePublished === "string" && !found.published_date) found.published_date = isoDate(n.datePublished);
    }
  }
  return found;
}

/** The truth a page's metadata gives, and the page without that metadata. */
export function pageFacts(raw: string): { truth: Partial<Truth>; html: string } {
  const truth: Partial<Truth> = fromJsonLd(raw);
  for (const m of raw.matchAll(META)) {
    const a = attributes(m[0]);
    const key = keyOf(a);
    const content = a.content ?? "";
    if (content === "") continue;
    if (headlineKeys.includes(key) && !truth.headline) truth.headline = content;
    else if (authorKeys.includes(key) && !truth.author) truth.author = cleanAuthor(content);
    else if (dateKeys.includes(key) && !truth.published_date) truth.published_date = isoDate(content);
    else if (siteKeys.includes(key) && !truth.site_name) truth.site_name = content;
  }
  const html = raw.replace(JSON_LD, "").replace(META, (tag) => {
    const key = keyOf(attributes(tag));
    return cutKeys.has(key) || cutPrefixes.some((p) => key.startsWith(p)) ? "" : tag;
  });
  return { truth, html };
}

const fields = {
  headline: { type: "string", description: "The headline of the page's article or main item." },
  author: { type: "string", description: "The name of the person who wrote it, as written on the page." },
  published_date: { type: "string", format: "date", description: "The date it was published, as YYYY-MM-DD." },
  site_name: { type: "string", description: "The name of the publication or website." },
} as const;

/** Pages with a headline in their metadata (and whatever else it gives), in id order; `limit` > 0 keeps the first. */
export function loadExtractSet(roots: readonly string[], limit = 0): BenchPage[] {
  const pages: BenchPage[] = [];
  for (const root of roots) {
    const dir = join(root, "html");
    for (const name of readdirSync(dir).filter((n) => n.endsWith(".html.gz")).sort()) {
      const raw = gunzipSync(readFileSync(join(dir, name))).toString("utf8");
      const { truth, html } = pageFacts(raw);
      if (!truth.headline) continue;
      const kept = Object.fromEntries(Object.entries(truth).filter(([, v]) => typeof v === "string" && v !== "")) as unknown as Truth;
      const properties = Object.fromEntries(Object.keys(kept).map((k) => [k, fields[k as keyof typeof fields]]));
      pages.push({ id: name.replace(/\.html\.gz$/, ""), html, truth: kept, schema: { type: "object", properties } });
    }
  }
  pages.sort((a, b) => a.id.localeCompare(b.id));
  return limit > 0 ? pages.slice(0, limit) : pages;
}
