/**
 * Builds an extraction set nothing was tuned on: L3S-GN1 (Kohlschütter et al., WSDM 2010: 621 Google News
 * articles of 2008 from ~400 sites, every text run of each page labelled by hand), from the mirror the wide
 * set's other sources came from (github.com/j-szulc/html-cleaning-dataset-merged, folder page-signal-master:
 * input/<id>.html and GoldStandard/<id>.txt, the same page with each text run wrapped in
 * <span class="x-nc-selN">). Labels: 1 headline, 2 full text, 3 supplemental (dates, bylines, captions),
 * 4 user comments, 5 related content, 0 not content. Truth here: headline and full text, in page order, a
 * line per block.
 *
 * The set is written in the harness's format (html/<id>.html.gz in UTF-8, ground-truth.json with a
 * "source" per page) and split in two halves by sha256 of the id: `news-a` pages may be read one by one
 * to find what goes wrong; `news-b` stays unread and only its figures are quoted, so a change found on
 * news-a is checked on pages it was not found on. Licence: unstated (research data): never commit or ship
 * the pages or their text.
 *
 *   node_modules/.bin/bun scripts/bench/news-set.ts --repo /work/.mirror/j-szulc+html-cleaning-dataset-merged/repo --out DIR
 *   then, from /work/shared/bench/extraction: ./run.sh --data DIR --worker "..." --name X --out OUT -q
 *   and bun wide/by-source.ts --truth DIR/ground-truth.json OUT/predictions.json [...]
 * --repo: a clone of that mirror, bare or not (read with `git show`).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Window } from "happy-dom";
import { option } from "./dev-set.ts";

const repo = option("repo", "/work/.mirror/j-szulc+html-cleaning-dataset-merged/repo");
const out = option("out", "");
if (out === "") throw new Error("--out DIR is required");
const FOLDER = "page-signal-master";
const KEPT_LABELS = new Set(["x-nc-sel1", "x-nc-sel2"]);
const MIN_TRUTH_TOKENS = 50;

const git = (...args: string[]): Buffer => execFileSync("git", ["-C", repo, ...args], { maxBuffer: 64 << 20 });
const show = (path: string): Buffer => git("show", `HEAD:${path}`);
const list = (path: string): string[] => git("ls-tree", "--name-only", `HEAD:${path}`).toString("utf8").split("\n").filter(Boolean);

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

/** The text of the runs labelled as kept, in page order, a line per block. */
function truthOf(goldHtml: string): string {
  const document = new window.DOMParser().parseFromString(goldHtml, "text/html");
  const parts: string[] = [];
  const walk = (node: Node, label: string | undefined): void => {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType === 3) {
        const text = child.textContent ?? "";
        // Space between labelled runs is often outside them ("<span>young</span> <span>child</span>").
        if (label !== undefined && KEPT_LABELS.has(label)) parts.push(text);
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
  walk((document.body ?? document.documentElement) as unknown as Node, undefined);
  return parts
    .join("")
    .split("\n")
    .map((line) => line.replace(/[ \t\r\f\u00a0]+/g, " ").trim())
    .filter((line) => line !== "")
    .join("\n");
}

const half = (id: string): "a" | "b" => ((createHash("sha256").update(`news:${id}`).digest()[0] as number) % 2 === 0 ? "a" : "b");

mkdirSync(join(out, "html"), { recursive: true });
const truth: Record<string, { articleBody: string; source: string }> = {};
const skipped: Record<string, number> = {};
const skip = (why: string) => (skipped[why] = (skipped[why] ?? 0) + 1);
for (const name of list(`${FOLDER}/GoldStandard`)) {
  if (!name.endsWith(".txt")) continue;
  const base = name.slice(0, -4);
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
  if ((text.match(/\w+/gu)?.length ?? 0) < MIN_TRUTH_TOKENS) {
    skip(`truth < ${MIN_TRUTH_TOKENS} tokens`);
    continue;
  }
  const id = `news-${half(base)}-${base}`;
  const utf8Page = page.replace(/(<meta[^>]+charset\s*=\s*["']?)[\w-]+/gi, "$1utf-8");
  writeFileSync(join(out, "html", `${id}.html.gz`), gzipSync(Buffer.from(utf8Page, "utf8")));
  truth[id] = { articleBody: text, source: `news-${half(base)}` };
}
writeFileSync(join(out, "ground-truth.json"), JSON.stringify(truth, null, 1));
const counts = Object.values(truth).reduce<Record<string, number>>((acc, t) => ((acc[t.source] = (acc[t.source] ?? 0) + 1), acc), {});
console.log(JSON.stringify({ pages: Object.keys(truth).length, ...counts, skipped }));
await window.happyDOM.close();
