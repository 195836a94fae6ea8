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

const MARKUP = /<[a-z][^>]*>/i;
const ENTITY = /&(#\d+|#x[\da-f]+|[a-z]+\d*);/i;

/**
 * Every `articleBody` string among the items of the page's JSON-LD scripts, each as plain text: entities decoded
 * (some publishers escape the article's markup, "&lt;p&gt;"), markup read as text.
 */
export function readArticleBodies(jsonLd: readonly unknown[]): string[] {
  return jsonLd.flatMap(articleBodies).map((body) => plainText(!MARKUP.test(body) && ENTITY.test(body) ? textOf(parseHtml(body)) : body));
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
  const text = MARKUP.test(body) ? blockText(body) : body;
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

/** Types whose stated parts are the page's main content, and the keys that hold those parts. */
const STATED_PART_KEYS: Record<string, readonly string[]> = {
  Recipe: ["recipeIngredient", "ingredients", "recipeInstructions"],
  HowTo: ["supply", "tool", "step"],
  DiscussionForumPosting: ["articleBody", "text"],
};

/** What a page states as its main content: its parts, and whether they are a forum thread's first post. */
export interface StatedParts {
  parts: string[];
  thread: boolean;
}

/**
 * The parts of the page's main content that its JSON-LD states, one string a part: a Recipe's ingredients and
 * the lines or steps of its method, a HowTo's supplies and steps, the lines of a forum thread's first post
 * (DiscussionForumPosting). Lines of a text written as one string are parts each. No parts when the page states
 * no such item.
 */
export function readStatedParts(jsonLd: readonly unknown[]): StatedParts {
  const parts: string[] = [];
  let thread = false;
  for (const data of jsonLd) {
    const stack: unknown[] = [data];
    for (let visited = 0; stack.length > 0 && visited < MAX_ITEMS; visited++) {
      const value = stack.pop();
      if (Array.isArray(value)) stack.push(...value);
      else if (value !== null && typeof value === "object") {
        const item = value as Record<string, unknown>;
        const keys = typesOf(item).flatMap((type) => STATED_PART_KEYS[type] ?? []);
        for (const key of keys) collectTexts(item[key], parts);
        if (typesOf(item).includes("DiscussionForumPosting")) thread = true;
        for (const [key, inner] of Object.entries(item)) if (!keys.includes(key) && typeof inner === "object") stack.push(inner);
      }
    }
  }
  return { parts: parts.flatMap((part) => plainText(part).split("\n")).filter((part) => part.length >= 3), thread };
}

function typesOf(item: Record<string, unknown>): string[] {
  const type = item["@type"];
  return (Array.isArray(type) ? type : [type]).filter((t): t is string => typeof t === "string");
}

/** The texts in a stated part: a string, or items (HowToStep, HowToSection, HowToSupply) with text or name, nested. */
function collectTexts(value: unknown, into: string[], depth = 0): void {
  if (depth > 4 || into.length >= MAX_ITEMS) return;
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const inner of value) collectTexts(inner, into, depth + 1);
  else if (value !== null && typeof value === "object") {
    const item = value as Record<string, unknown>;
    if (item.itemListElement !== undefined) collectTexts(item.itemListElement, into, depth + 1);
    else if (typeof item.text === "string") into.push(item.text);
    else if (typeof item.name === "string") into.push(item.name);
  }
}

/** The parsed JSON of each of the page's JSON-LD scripts (bounded; a malformed script is left out). */
export function readJsonLd(html: string): unknown[] {
  if (!/application\/ld\+json/i.test(html)) return [];
  const found: unknown[] = [];
  const open = new RegExp(JSON_LD_OPEN.source, "gi");
  const close = /<\/script/gi;
  let scripts = 0;
  for (let match = open.exec(html); match !== null && scripts < MAX_SCRIPTS; match = open.exec(html), scripts++) {
    const start = match.index + match[0].length;
    close.lastIndex = start;
    const end = close.exec(html)?.index ?? -1;
    if (end < 0 || end - start > MAX_SCRIPT_CHARS) continue;
    const parsed = parseJsonLd(html.slice(start, end));
    if (parsed !== undefined) found.push(parsed);
  }
  return found;
}

/**
 * One script's JSON, or undefined when malformed. Two faults seen on news pages (trafilatura's sets) are
 * repaired: a CDATA wrapper around the JSON, and raw line breaks or tabs inside its strings (a CMS pasting the
 * article's text as it is).
 */
function parseJsonLd(source: string): unknown {
  try {
    return JSON.parse(source);
  } catch {
    try {
      return JSON.parse(escapeControlsInStrings(source.replace(/^\s*(\/\/\s*)?<!\[CDATA\[/, "").replace(/(\/\/\s*)?\]\]>\s*$/, "")));
    } catch {
      return undefined; // a malformed script states nothing
    }
  }
}

/** The JSON text with control characters inside its strings escaped (\n, \t, or \u00XX). */
function escapeControlsInStrings(source: string): string {
  let out = "";
  let inString = false;
  let from = 0;
  for (let i = 0; i < source.length; i++) {
    const code = source.charCodeAt(i);
    if (code === 0x5c && inString) i++; // a backslash escapes the next character
    else if (code === 0x22) inString = !inString;
    else if (code < 0x20 && inString) {
      out += source.slice(from, i) + (code === 0x0a ? "\\n" : code === 0x09 ? "\\t" : `\\u${code.toString(16).padStart(4, "0")}`);
      from = i + 1;
    }
  }
  return out + source.slice(from);
}
