/**
 * @module web/extract/content-head — the page's title, description, language and base URL from one pass
 * over the head's elements (a querySelector per meta name scans the whole document when the name
 * is absent, which is the common case).
 */
import type { ParsedPage } from "./content-parse.ts";
import { attributeOf, isTag, textOf, type Element } from "./dom.ts";
import { makeWellFormed } from "../text/text-output.ts";

export interface PageInfo {
  /** Empty when the page has neither a title nor og:title / twitter:title. */
  title: string;
  description: string;
  language: string;
  /** The URL relative links resolve against (`<base href>` or the page's URL). */
  base: string;
}

function oneLine(value: string | null | undefined): string {
  return makeWellFormed(value ?? "").replace(/\s+/g, " ").trim();
}

/** Meta keys we read, in order of preference within each field. */
const META_KEYS = [
  "name:description", "property:og:description", "name:twitter:description", "property:og:title", "name:twitter:title",
  "http-equiv:content-language", "name:language", "property:og:locale",
] as const;

function metaKey(element: Element): string | undefined {
  for (const attribute of ["name", "property", "http-equiv"] as const) {
    const value = attributeOf(element, attribute);
    if (value !== null) return `${attribute}:${value.trim().toLowerCase()}`;
  }
  return undefined;
}

function resolveBase(href: string | undefined, url: string): string {
  if (href) {
    try {
      return new URL(href, url).href;
    } catch {
      // an unusable <base> is ignored, as browsers do
    }
  }
  return url;
}

/** Reads title, description, language and base from the page's head (`url`: where the page came from). */
export function readPageInfo(page: ParsedPage, url: string): PageInfo {
  let title = "";
  let baseHref: string | undefined;
  const metas = new Map<string, string>();
  for (const element of page.head.children) {
    if (!isTag(element)) continue;
    switch (element.name) {
      case "title":
        if (title === "") title = oneLine(textOf(element));
        break;
      case "base":
        baseHref ??= attributeOf(element, "href") ?? undefined;
        break;
      case "meta": {
        const key = metaKey(element);
        if (key === undefined || metas.has(key)) break;
        const content = oneLine(attributeOf(element, "content"));
        if (content !== "") metas.set(key, content);
        break;
      }
    }
  }
  const first = (...keys: (typeof META_KEYS)[number][]) => keys.map((key) => metas.get(key)).find((value) => value !== undefined) ?? "";
  const root = page.root;
  let language = oneLine(attributeOf(root, "lang") ?? attributeOf(root, "xml:lang"));
  if (language === "") {
    const declared = first("http-equiv:content-language", "name:language");
    language = declared !== "" ? (declared.split(",")[0]?.trim() ?? "") : first("property:og:locale").replace("_", "-");
  }
  return {
    title: title !== "" ? title : first("property:og:title", "name:twitter:title"),
    description: first("name:description", "property:og:description", "name:twitter:description"),
    language,
    base: resolveBase(baseHref, url),
  };
}
