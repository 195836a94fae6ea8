/** A loopback site for crawl tests: a binary tree of pages /p/0 … /p/(n-1), each linking to its two children, each with its own text. */
import { type SiteServer, startSiteServer } from "../support/site-server.ts";

export const treePage = (n: number, links: string[], extra = "") =>
  `<!doctype html><html><head><title>Page ${n}</title></head><body><nav>${links.map((l) => `<a href="${l}">${l}</a>`).join(" ")}</nav>
   <main><h1>Page ${n}</h1><p>This is page number ${n} of the crawl test site, with words that belong to page ${n} alone.</p>${extra}</main></body></html>`;

/** Pages /p/0 … /p/(count-1); `/` links to /p/0. */
export function startTreeSite(count: number, extraOn: Record<number, string> = {}, options: { delayMs?: number } = {}): SiteServer {
  const site = startSiteServer(options);
  site.set("/", treePage(-1, ["/p/0"]));
  for (let n = 0; n < count; n++) {
    const children = [2 * n + 1, 2 * n + 2].filter((c) => c < count).map((c) => `/p/${c}`);
    site.set(`/p/${n}`, treePage(n, children, extraOn[n] ?? ""));
  }
  return site;
}

/** Hits on every page path of the tree (robots.txt and the sitemap left out). */
export const pageHits = (site: SiteServer, count: number) => Array.from({ length: count }, (_, n) => site.hits(`/p/${n}`));
