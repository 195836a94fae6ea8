/**
 * Builds the ir-research extraction sets (github.com/MSVCode/ir-research-data, Utomo & Leu: "Subject-Assisted
 * Extraction"), which no rule of the extractor was tuned on, from a snapshot of that repository:
 * - `big9`: Extraction/big5-{05,09,13,17}: 9 news sites (Arstechnica, BBC, CNN, Forbes, FoxNews, LATimes, NYMag,
 *   NYPost, Yahoo News), 10 pages each per year 2005, 2009, 2013, 2017 (360 pages; the year is the page's group).
 * - `chaos`: Extraction/chaos-all: 360 pages of about 240 sites found by 36 Google queries in 2017.
 * Gold is plain text written by hand: the headline, a blank line, the paragraphs. Gold files are UTF-8 or, most of
 * them, windows-1252 (curly quotes as 0x92); pages are decoded from their bytes as the fetcher decodes them
 * (src/web/fetch/decode.ts: BOM, <meta> charset, else UTF-8 when valid, else windows-1252), so a page that declares
 * iso-8859-1 but was saved as UTF-8 reads as the extractor would read it from the network.
 *
 * Written in the harness's format (html/<id>.html.gz in UTF-8 with its <meta> charset rewritten to utf-8,
 * ground-truth.json with a "source" and a "group" per page, SOURCE.txt with the snapshot's commit). Terms: research
 * only. Never commit or ship the pages or their text.
 *
 *   node_modules/.bin/bun scripts/bench/ir-research-set.ts --out .tmp/extraction/ir-research [--repo MIRROR]
 * --repo: a clone of the repository, bare or not (read with `git show`); default the fetched mirror's path.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { decodeText } from "../../src/web/fetch/decode.ts";
import { option } from "./dev-set.ts";

/** The snapshot the figures in docs/extraction-model.md were measured on. */
export const IR_RESEARCH_COMMIT = "cbb428c";

/** The set's folders under Extraction/, their source and group. */
export const IR_RESEARCH_FOLDERS = [
  { folder: "big5-05", source: "big9", group: "2005" },
  { folder: "big5-09", source: "big9", group: "2009" },
  { folder: "big5-13", source: "big9", group: "2013" },
  { folder: "big5-17", source: "big9", group: "2017" },
  { folder: "chaos-all", source: "chaos", group: "2017" },
] as const;

/** A page's id from its source, group and file name: "amd (10).htm" of big9 2005 → "big9-2005-amd-10". */
export function pageId(source: string, group: string, fileName: string): string {
  const base = fileName
    .replace(/\.html?$/i, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  return `${source}-${group}-${base}`;
}

/** A gold file's text: UTF-8 when valid, else windows-1252; a line per paragraph, whitespace collapsed, blank lines dropped. */
export function readGold(bytes: Uint8Array): string {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    text = new TextDecoder("windows-1252").decode(bytes);
  }
  return text
    .replace(/^\uFEFF/, "")
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/[\s\u00a0]+/g, " ").trim())
    .filter((line) => line !== "")
    .join("\n");
}

/** A page's HTML as the fetcher decodes its bytes, with its <meta> charset rewritten to the UTF-8 it is stored in; and the encoding used. */
export function readPage(bytes: Uint8Array): { html: string; encoding: string } {
  const { text, encoding } = decodeText(bytes, "html", undefined);
  return { html: text.replace(/^\uFEFF/, "").replace(/(<meta[^>]+charset\s*=\s*["']?\s*)[\w:.+-]+/gi, "$1utf-8"), encoding };
}

function build(repo: string, out: string): void {
  const git = (...args: string[]): Buffer => execFileSync("git", ["-C", repo, ...args], { maxBuffer: 64 << 20 });
  const list = (path: string): string[] => git("ls-tree", "--name-only", "-z", `HEAD:${path}`).toString("utf8").split("\0").filter(Boolean);
  const commit = git("rev-parse", "HEAD").toString("utf8").trim();
  mkdirSync(join(out, "html"), { recursive: true });
  const truth: Record<string, { articleBody: string; source: string; group: string; file: string }> = {};
  const encodings: Record<string, number> = {};
  const skipped: string[] = [];
  for (const { folder, source, group } of IR_RESEARCH_FOLDERS) {
    const golds = new Set(list(`Extraction/${folder}/gold`));
    for (const file of list(`Extraction/${folder}/html`)) {
      const goldFile = file.replace(/\.html?$/i, ".txt");
      const id = pageId(source, group, file);
      if (!golds.has(goldFile) || id in truth) {
        skipped.push(`${folder}/${file}`);
        continue;
      }
      const text = readGold(git("show", `HEAD:Extraction/${folder}/gold/${goldFile}`));
      if (text === "") {
        skipped.push(`${folder}/${file}`);
        continue;
      }
      const page = readPage(git("show", `HEAD:Extraction/${folder}/html/${file}`));
      encodings[page.encoding] = (encodings[page.encoding] ?? 0) + 1;
      writeFileSync(join(out, "html", `${id}.html.gz`), gzipSync(Buffer.from(page.html, "utf8")));
      truth[id] = { articleBody: text, source, group, file: `${folder}/${file}` };
    }
  }
  writeFileSync(join(out, "ground-truth.json"), JSON.stringify(truth, null, 1));
  const counts: Record<string, number> = {};
  for (const entry of Object.values(truth)) counts[`${entry.source} ${entry.group}`] = (counts[`${entry.source} ${entry.group}`] ?? 0) + 1;
  const summary = { commit, pages: Object.keys(truth).length, counts, encodings, skipped };
  writeFileSync(
    join(out, "SOURCE.txt"),
    `github.com/MSVCode/ir-research-data at ${commit}, Extraction/{big5-05,big5-09,big5-13,big5-17,chaos-all}\n` +
      `built by scripts/bench/ir-research-set.ts; research use only, never commit these pages\n${JSON.stringify(summary)}\n`,
  );
  console.log(JSON.stringify(summary));
}

if (import.meta.main) {
  const out = option("out", "");
  if (out === "") throw new Error("--out DIR is required");
  build(option("repo", "/work/.mirror/MSVCode+ir-research-data/repo"), out);
}
