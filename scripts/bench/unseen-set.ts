/**
 * Builds extraction sets nothing was tuned on, from the mirror the wide set's sources came from
 * (github.com/j-szulc/html-cleaning-dataset-merged: <folder>/input/<name>.html and <folder>/GoldStandard/<name>.txt):
 * - `--source news`: L3S-GN1 (Kohlschütter et al., WSDM 2010: 621 Google News articles of 2008 from ~400 sites,
 *   folder page-signal-master). Its gold is the page with every text run wrapped in <span class="x-nc-selN">:
 *   1 headline, 2 full text, 3 supplemental (dates, bylines, captions), 4 user comments, 5 related content,
 *   0 not content. Truth here: headline and full text, in page order, a line per block.
 * - `--source dragnet`: the Dragnet pages (2012 news and blogs, folder dragnet_data) that neither the 150-page
 *   dev set nor the wide set took (the wide set took 300 of 1,381), nor near-copies of theirs (4-gram
 *   containment ≥ 0.5 with a truth of either). Truth: the gold text before its "!@#$%^&*()  COMMENTS" marker,
 *   as in the wide set.
 * Pages whose truth has under 50 tokens, whose bytes cannot be decoded, or whose truth is not in the page
 * (under 90 % of its tokens) are left out.
 *
 * Written in the harness's format (html/<id>.html.gz in UTF-8, ground-truth.json with a "source" per page) and
 * split in two halves by sha256 of the id: `<source>-a` pages may be read one by one to find what goes wrong;
 * `<source>-b` stays unread and only its figures are quoted, so a change found on one half is checked on pages
 * it was not found on. Licence: unstated or AGPLv3 (research data): never commit or ship the pages or their text.
 *
 *   node_modules/.bin/bun scripts/bench/unseen-set.ts --source news|dragnet --out DIR [--repo MIRROR]
 *   then, from /work/shared/bench/extraction: ./run.sh --data DIR --worker "..." --name X --out OUT -q
 *   and bun wide/by-source.ts --truth DIR/ground-truth.json OUT/predictions.json [...]
 * --repo: a clone of that mirror, bare or not (read with `git show`); default the fetched mirror's path.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Window } from "happy-dom";
import { DEV_SET_DIR, option } from "./dev-set.ts";

const repo = option("repo", "/work/.mirror/j-szulc+html-cleaning-dataset-merged/repo");
const source = option("source", "news");
const out = option("out", "");
if (out === "") throw new Error("--out DIR is required");
if (source !== "news" && source !== "dragnet") throw new Error("--source is news or dragnet");
const FOLDER = source === "news" ? "page-signal-master" : "dragnet_data";
const WIDE_SET_DIR = join(DEV_SET_DIR, "..", "wide");
const KEPT_LABELS = new Set(["x-nc-sel1", "x-nc-sel2"]);
const COMMENTS_MARKER = "!@#$%^&*()";
const MIN_TRUTH_TOKENS = 50;
const MIN_COVERAGE = 0.9;
const NEAR_COPY = 0.5;

const git = (...args: string[]): Buffer => execFileSync("git", ["-C", repo, ...args], { maxBuffer: 64 << 20 });
const show = (path: string): Buffer => git("show", `HEAD:${path}`);
const list = (path: string): string[] => git("ls-tree", "--name-only", `HEAD:${path}`).toString("utf8").split("\n").filter(Boolean);
const tokens = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];

/** The page's text as a browser would decode it: UTF-8 when valid, else its declared charset (windows-1252 by default). */
function decode(bytes: Buffer, declaredIn: Buffer): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const head = declaredIn.subarray(0, 4096).toString("latin1");
    const charset = /charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1]?.toLowerCase() ?? "windows-1252";
    try {
      return new TextDecoder(charset === "utf-8" || charset === "utf8" ? "windows-1252" : charset).decode(bytes);
    } catch {
      return undefined;
    }
  }
}

const BLOCK = /^(ADDRESS|ARTICLE|ASIDE|BLOCKQUOTE|BR|CAPTION|DD|DIV|DL|DT|FIELDSET|FIGCAPTION|FIGURE|FOOTER|FORM|H[1-6]|HEADER|HR|LI|MAIN|NAV|OL|P|PRE|SECTION|TABLE|TBODY|TD|TFOOT|TH|THEAD|TR|UL)$/;
const window = new Window({ url: "about:blank", settings: { disableJavaScriptEvaluation: true, disableJavaScriptFileLoading: true, disableCSSFileLoading: true, disableComputedStyleRendering: true } });

/** Lines of a node's text, a line per block; with `kept`, only the text nodes whose nearest label it accepts. */
function blockText(root: Node, kept?: (label: string | undefined) => boolean): string {
  const parts: string[] = [];
  const walk = (node: Node, label: string | undefined): void => {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType === 3) {
        const text = child.textContent ?? "";
        if (!kept || kept(label)) parts.push(text);
        // Space between labelled runs is often outside them ("<span>young</span> <span>child</span>").
        else if (text.trim() === "" && text !== "") parts.push(" ");
      } else if (child.nodeType === 1) {
        const element = child as unknown as Element;
        if (element.tagName === "SCRIPT" || element.tagName === "STYLE") continue;
        const own = /x-nc-sel\d/.exec(element.getAttribute("class") ?? "")?.[0];
        const block = BLOCK.test(element.tagName);
        if (block) parts.push("\n");
        walk(child as unknown as Node, own ?? label);
        if (block) parts.push("\n");
      }
    }
  };
  walk(root, undefined);
  return parts
    .join("")
    .split("\n")
    .map((line) => line.replace(/[ \t\r\f\u00a0]+/g, " ").trim())
    .filter((line) => line !== "")
    .join("\n");
}

/** The whole document: a page without a <body> tag keeps its text in <head> (content-parse.ts). */
function parse(html: string): Node {
  return new window.DOMParser().parseFromString(html, "text/html").documentElement as unknown as Node;
}

function truthOf(gold: string): string {
  if (source === "news") return blockText(parse(gold), (label) => label !== undefined && KEPT_LABELS.has(label));
  const at = gold.indexOf(COMMENTS_MARKER);
  return (at < 0 ? gold : gold.slice(0, at))
    .split("\n")
    .map((line) => line.replace(/\s+/g, " ").trim())
    .filter((line) => line !== "")
    .join("\n");
}

/** Token 4-grams of a text, for near-copy checks. */
function shingles(text: string): Set<string> {
  const words = tokens(text);
  const set = new Set<string>();
  for (let i = 0; i + 4 <= words.length; i++) set.add(words.slice(i, i + 4).join(" "));
  return set;
}

function containment(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const gram of a.size <= b.size ? a : b) if ((a.size <= b.size ? b : a).has(gram)) shared++;
  return shared / Math.min(a.size, b.size);
}

/** Ids and truths of the sets already used for tuning (dev and wide), to leave them and their near-copies out. */
function usedSets(): { ids: Set<string>; truths: Set<string>[] } {
  const ids = new Set<string>();
  const truths: Set<string>[] = [];
  for (const dir of [DEV_SET_DIR, WIDE_SET_DIR]) {
    const truth = JSON.parse(readFileSync(join(dir, "ground-truth.json"), "utf8")) as Record<string, { articleBody: string }>;
    for (const [id, entry] of Object.entries(truth)) {
      ids.add(id);
      if (id.startsWith("dragnet-")) truths.push(shingles(entry.articleBody));
    }
  }
  return { ids, truths };
}

const half = (id: string): "a" | "b" => ((createHash("sha256").update(`${source}:${id}`).digest()[0] as number) % 2 === 0 ? "a" : "b");

mkdirSync(join(out, "html"), { recursive: true });
const used = source === "dragnet" ? usedSets() : { ids: new Set<string>(), truths: [] };
const truth: Record<string, { articleBody: string; source: string }> = {};
const skipped: Record<string, number> = {};
const skip = (why: string) => (skipped[why] = (skipped[why] ?? 0) + 1);
for (const name of list(`${FOLDER}/GoldStandard`)) {
  if (!name.endsWith(".txt")) continue;
  const base = name.slice(0, -4);
  if (used.ids.has(`dragnet-${base}`)) {
    skip("in the dev or wide set");
    continue;
  }
  let pageBytes: Buffer;
  try {
    pageBytes = show(`${FOLDER}/input/${base}.html`);
  } catch {
    skip("no page");
    continue;
  }
  const page = decode(pageBytes, pageBytes);
  const gold = decode(show(`${FOLDER}/GoldStandard/${name}`), pageBytes);
  if (page === undefined || gold === undefined) {
    skip("undecodable");
    continue;
  }
  const text = truthOf(gold);
  const truthTokens = tokens(text);
  if (truthTokens.length < MIN_TRUTH_TOKENS) {
    skip(`truth < ${MIN_TRUTH_TOKENS} tokens`);
    continue;
  }
  const pageTokens = new Set(tokens(blockText(parse(page))));
  if (truthTokens.filter((token) => pageTokens.has(token)).length < MIN_COVERAGE * truthTokens.length) {
    skip("truth not in the page");
    continue;
  }
  if (used.truths.length > 0) {
    const own = shingles(text);
    if (used.truths.some((other) => containment(own, other) >= NEAR_COPY)) {
      skip("near-copy of a dev or wide page");
      continue;
    }
  }
  const id = `${source}-${half(base)}-${base}`;
  const utf8Page = page.replace(/(<meta[^>]+charset\s*=\s*["']?)[\w-]+/gi, "$1utf-8");
  writeFileSync(join(out, "html", `${id}.html.gz`), gzipSync(Buffer.from(utf8Page, "utf8")));
  truth[id] = { articleBody: text, source: `${source}-${half(base)}` };
}
writeFileSync(join(out, "ground-truth.json"), JSON.stringify(truth, null, 1));
const counts = Object.values(truth).reduce<Record<string, number>>((acc, t) => ((acc[t.source] = (acc[t.source] ?? 0) + 1), acc), {});
console.log(JSON.stringify({ pages: Object.keys(truth).length, ...counts, skipped }));
await window.happyDOM.close();
