/**
 * @module web/extract/content-structured — the article text a page states about itself in its structured data:
 * the `articleBody` of a JSON-LD item (schema.org Article, NewsArticle, BlogPosting, …). Pages rendered by
 * script, and paywalled pages, ship the whole text there while their HTML holds a teaser or an empty shell.
 * Read from the raw source: extraction parses the page with its scripts cut out (content-parse).
 */
import { elementChildrenOf, parseHtml, textOf, type Element } from "./dom.ts";

const JSON_LD_OPEN = /<script\b[^>]*\btype\s*=\s*["']?application\/ld\+json["']?[^>]*>/gi;
/** Most JSON-LD scripts read on a page, and most characters of one: a page's structured data is a few kilobytes. */
const MAX_SCRIPTS = 20;
const MAX_SCRIPT_CHARS = 2_000_000;
/** Most items visited in one script's JSON (a page's @graph holds tens). */
const MAX_ITEMS = 2_000;

/** The longest `articleBody` string among the items of the page's JSON-LD scripts, as plain text; "" when none. */
export function readArticleBody(html: string): string {
  if (!/application\/ld\+json/i.test(html)) return "";
  let longest = "";
  JSON_LD_OPEN.lastIndex = 0;
  let scripts = 0;
  for (let open = JSON_LD_OPEN.exec(html); open !== null && scripts < MAX_SCRIPTS; open = JSON_LD_OPEN.exec(html), scripts++) {
    const start = open.index + open[0].length;
    const end = html.toLowerCase().indexOf("</script", start);
    if (end < 0 || end - start > MAX_SCRIPT_CHARS) continue;
    let data: unknown;
    try {
      data = JSON.parse(html.slice(start, end));
    } catch {
      continue; // a malformed script states nothing
    }
    for (const body of articleBodies(data)) if (body.length > longest.length) longest = body;
  }
  return plainText(longest);
}

/** Every `articleBody` string in a parsed JSON value (arrays, @graph and nested items alike). */
function articleBodies(data: unknown): string[] {
  const found: string[] = [];
  const stack: unknown[] = [data];
  for (let visited = 0; stack.length > 0 && visited < MAX_ITEMS; visited++) {
    const value = stack.pop();
    if (Array.isArray(value)) stack.push(...value);
    else if (value !== null && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) {
        if (key === "articleBody" && typeof inner === "string") found.push(inner);
        else if (typeof inner === "object") stack.push(inner);
      }
    }
  }
  return found;
}

/** The text of a body that may be written as HTML (some publishers put the article's markup in it), lines kept. */
function plainText(body: string): string {
  const text = /<[a-z][^>]*>/i.test(body) ? blockText(body) : body;
  return text
    .split(/\n/)
    .map((line) => line.replace(/\s+/g, " ").trim())
    .filter((line) => line !== "")
    .join("\n");
}

function blockText(markup: string): string {
  return textOf(parseHtml(markup.replace(/<\/(p|div|h[1-6]|li|blockquote)>|<br\s*\/?>/gi, "$&\n")));
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/** A <div> with one paragraph a line of `text`, to stand as the page's content element. */
export function paragraphsElement(text: string): Element {
  const markup = text
    .split("\n")
    .map((line) => `<p>${line.replace(/[&<>]/g, (c) => ESCAPES[c] as string)}</p>`)
    .join("");
  return elementChildrenOf(parseHtml(`<div>${markup}</div>`))[0] as Element;
}
