/**
 * @module crawl/page-links — what a site's start page offers a map: its links with their anchor
 * text, and the RSS/Atom feeds it announces (<link rel="alternate" type="application/rss+xml">).
 */
import { Parser } from "htmlparser2";

export interface PageLink {
  readonly url: string;
  /** The anchor text (whitespace collapsed). */
  readonly text: string;
}

export interface PageOffers {
  readonly links: readonly PageLink[];
  readonly feeds: readonly string[];
}

const FEED_TYPES = new Set(["application/rss+xml", "application/atom+xml", "application/feed+json", "application/rdf+xml"]);

/** Absolute http(s) URL of `href` against `base`, or undefined. */
function resolveHref(href: string | undefined, base: string): string | undefined {
  if (!href) return undefined;
  try {
    const url = new URL(href.trim(), base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

export function pageOffers(html: string, pageUrl: string): PageOffers {
  const links: PageLink[] = [];
  const feeds: string[] = [];
  let base = pageUrl;
  let open: { url: string; text: string } | undefined;
  const parser = new Parser({
    onopentag(name, attributes) {
      if (name === "base") base = resolveHref(attributes.href, pageUrl) ?? base;
      else if (name === "a") {
        const url = resolveHref(attributes.href, base);
        open = url ? { url, text: "" } : undefined;
      } else if (name === "link" && /(^|\s)alternate(\s|$)/i.test(attributes.rel ?? "") && FEED_TYPES.has((attributes.type ?? "").toLowerCase())) {
        const url = resolveHref(attributes.href, base);
        if (url) feeds.push(url);
      }
    },
    ontext(text) {
      if (open && open.text.length < 300) open.text += text;
    },
    onclosetag(name) {
      if (name === "a" && open) {
        links.push({ url: open.url, text: open.text.replace(/\s+/g, " ").trim() });
        open = undefined;
      }
    },
  });
  parser.write(html);
  parser.end();
  return { links, feeds };
}
