/**
 * @module web/extract/content-declared — whether the publisher declares the page an article: OpenGraph's
 * `og:type` "article" or an `article:published_time` meta, a JSON-LD item typed as schema.org's Article family
 * (NewsArticle, BlogPosting, ReportageNewsArticle, …), or microdata with such an `itemtype`. Modern news pages
 * say so; the older and non-news pages of the public sets (Dragnet's and CleanEval's 2006-2011 crawls) mostly do
 * not. The learned block filter may be limited to declared pages (block-filter.ts BlockModel.pages).
 */
import { attributeOf, isTag, type Element } from "./dom.ts";

/** Where a page declares itself an article. */
export type ArticleDeclaration = "og-type" | "published-time" | "json-ld" | "microdata";

/** schema.org's Article and the types under it that publishers use for a story or a post. */
const ARTICLE_TYPES = new Set([
  "article", "newsarticle", "reportagenewsarticle", "analysisnewsarticle", "opinionnewsarticle", "reviewnewsarticle",
  "backgroundnewsarticle", "askpublicnewsarticle", "blogposting", "liveblogposting", "socialmediaposting", "report",
  "techarticle", "scholarlyarticle", "advertisercontentarticle", "satiricalarticle",
]);
const MICRODATA_ARTICLE = new RegExp(`itemtype\\s*=\\s*["']?https?://schema\\.org/(${[...ARTICLE_TYPES].join("|")})["'\\s/>]`, "i");
/** Most JSON-LD items looked at (a page's @graph holds tens). */
const MAX_ITEMS = 2_000;

/** Whether a JSON-LD @type (a string, a URL, or a list of them) names an article type. */
function isArticleType(type: unknown): boolean {
  if (Array.isArray(type)) return type.some(isArticleType);
  return typeof type === "string" && ARTICLE_TYPES.has(type.replace(/^https?:\/\/schema\.org\//i, "").toLowerCase());
}

/** Whether an item of the page's JSON-LD (arrays, @graph and nested items alike) is typed as an article. */
function statesArticle(jsonLd: readonly unknown[]): boolean {
  const stack: unknown[] = [...jsonLd];
  for (let visited = 0; stack.length > 0 && visited < MAX_ITEMS; visited++) {
    const value = stack.pop();
    if (Array.isArray(value)) stack.push(...value);
    else if (value !== null && typeof value === "object") {
      if (isArticleType((value as Record<string, unknown>)["@type"])) return true;
      for (const inner of Object.values(value)) if (typeof inner === "object") stack.push(inner);
    }
  }
  return false;
}

/**
 * Every way the page declares itself an article: `head` the parsed page's head, `jsonLd` its parsed JSON-LD
 * (content-structured.ts readJsonLd), `html` its source (for microdata, which may sit anywhere in the body).
 */
export function articleDeclarations(head: Element, jsonLd: readonly unknown[], html: string): ArticleDeclaration[] {
  const found = new Set<ArticleDeclaration>();
  for (const element of head.children) {
    if (!isTag(element) || element.name !== "meta") continue;
    const key = (attributeOf(element, "property") ?? attributeOf(element, "name") ?? "").trim().toLowerCase();
    if (key === "og:type" && (attributeOf(element, "content") ?? "").trim().toLowerCase().startsWith("article")) found.add("og-type");
    else if (key === "article:published_time" && (attributeOf(element, "content") ?? "").trim() !== "") found.add("published-time");
  }
  if (statesArticle(jsonLd)) found.add("json-ld");
  if (MICRODATA_ARTICLE.test(html)) found.add("microdata");
  return [...found];
}

/**
 * The pages a learned model runs on: "all"; "declared", pages declaring themselves an article in any way; "stated",
 * pages declaring it in schema.org terms or with a publication time (og:type "article" alone is not enough: blog
 * engines set it on every post); "json-ld", pages stating it in JSON-LD, as today's publishers do (none of the
 * 2006-2012 crawls of Dragnet, CleanEval, L3S-GN1 and the portal set does).
 */
export type PageGate = "all" | "declared" | "stated" | "json-ld";

/** Whether a page declaring itself in `ways` (articleDeclarations) passes `gate`. */
export function passesPageGate(gate: PageGate, ways: readonly ArticleDeclaration[]): boolean {
  if (gate === "all") return true;
  if (gate === "json-ld") return ways.includes("json-ld");
  return gate === "declared" ? ways.length > 0 : ways.some((way) => way !== "og-type");
}
