/**
 * readPdf against pdftotext (poppler, default mode: the PDF bench's reference) on any folder of PDFs, page by page,
 * with the PDF bench's own token F1 (NFKC, line-end hyphens joined, lower case, CJK per character): how the public
 * test corpora (pdf.js's test/pdfs, pdfplumber's tests/pdfs, read from snapshots) were searched for weaknesses.
 *   bun scripts/bench/pdf-corpus.ts DIR [--pages 20] [--out OUTDIR] [--worst 30]
 * Files pdftotext cannot read, or that readPdf refuses, are counted apart; pages where both sides have no token are
 * skipped, as the bench does. Prints the mean page F1 per file, the worst pages, and the macro mean over files.
 * --out writes each file's pages, ours and pdftotext's, as OUTDIR/<name>.ours.txt and .ref.txt (pages split by \f).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readPdf } from "../../src/web/pdf/pdf.ts";
import { option } from "./dev-set.ts";

const dir = process.argv[2];
if (!dir || dir.startsWith("--")) {
  console.error("usage: bun scripts/bench/pdf-corpus.ts DIR [--pages 20] [--out OUTDIR] [--worst 30]");
  process.exit(2);
}
const maxPages = Number(option("pages", "20"));
const out = option("out", "");
const worst = Number(option("worst", "30"));
if (out) mkdirSync(out, { recursive: true });

// The PDF bench's tokens (score.mjs), so figures here and there mean the same.
const TOKEN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}\p{M}]+/gu;
export function tokens(text: string): string[] {
  const folded = text
    .normalize("NFKC")
    .replace(/(\p{L})[-\u00AD\u2010]\s*\n\s*(\p{L})/gu, "$1$2")
    .toLowerCase();
  return folded.match(TOKEN) ?? [];
}

export function f1(reference: string[], ours: string[]): number {
  if (reference.length === 0 && ours.length === 0) return 1;
  if (reference.length === 0 || ours.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const t of reference) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of ours) {
    const left = counts.get(t);
    if (left) {
      common++;
      counts.set(t, left - 1);
    }
  }
  const p = common / ours.length;
  const r = common / reference.length;
  return p + r > 0 ? (2 * p * r) / (p + r) : 0;
}

function pdftotextPages(file: string, pages: number): string[] | undefined {
  const run = Bun.spawnSync(["pdftotext", "-l", String(pages), file, "-"], { stdout: "pipe", stderr: "pipe", timeout: 30_000 });
  if (run.exitCode !== 0) return undefined;
  const text = run.stdout.toString();
  const split = text.split("\f");
  // pdftotext ends every page with a form feed: the last piece is what follows the last page.
  if (split.length > 1 && split[split.length - 1] === "") split.pop();
  return split;
}

const names = readdirSync(dir)
  .filter((f) => f.toLowerCase().endsWith(".pdf"))
  .sort();
const perFile: { name: string; f1: number; pages: number }[] = [];
const pagesScored: { name: string; page: number; f1: number; refTokens: number; ourTokens: number }[] = [];
const refused: string[] = [];
let unreadable = 0;
for (const name of names) {
  const file = join(dir, name);
  const reference = pdftotextPages(file, maxPages);
  if (reference === undefined) {
    unreadable++;
    continue;
  }
  let ours: string[];
  try {
    const result = await readPdf(new Uint8Array(readFileSync(file)), { maxPages: 100_000, maxChars: 10_000_000, maxBytes: 1 << 30 });
    ours = result.pages.map((p) => p.text);
  } catch (error) {
    if (reference.some((p) => tokens(p).length > 0)) refused.push(`${name}: ${(error as Error).message.slice(0, 120)}`);
    continue;
  }
  if (out) {
    writeFileSync(join(out, `${name}.ours.txt`), ours.slice(0, maxPages).join("\f"));
    writeFileSync(join(out, `${name}.ref.txt`), reference.join("\f"));
  }
  let sum = 0;
  let n = 0;
  for (let i = 0; i < Math.min(maxPages, reference.length); i++) {
    const a = tokens(reference[i] ?? "");
    const b = tokens(ours[i] ?? "");
    if (a.length === 0 && b.length === 0) continue;
    const score = f1(a, b);
    pagesScored.push({ name, page: i + 1, f1: score, refTokens: a.length, ourTokens: b.length });
    sum += score;
    n++;
  }
  if (n > 0) perFile.push({ name, f1: sum / n, pages: n });
}

pagesScored.sort((a, b) => a.f1 - b.f1);
console.log(`# worst ${worst} pages (file page f1 ref_tokens our_tokens)`);
for (const p of pagesScored.slice(0, worst)) console.log(p.name, p.page, p.f1.toFixed(3), p.refTokens, p.ourTokens);
console.log(`# refused by readPdf although pdftotext finds words: ${refused.length}`);
for (const r of refused) console.log(`  ${r}`);
const mean = perFile.reduce((s, f) => s + f.f1, 0) / Math.max(1, perFile.length);
const pageMean = pagesScored.reduce((s, p) => s + p.f1, 0) / Math.max(1, pagesScored.length);
console.log(
  `SUMMARY files=${perFile.length} pages=${pagesScored.length} file_f1=${mean.toFixed(4)} page_f1=${pageMean.toFixed(4)} refused=${refused.length} pdftotext_failed=${unreadable}`,
);
