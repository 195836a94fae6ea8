/**
 * What reading order costs per page: mupdf's own text (`asText`) against our `readPageText` (line boxes, column
 * detection, and on multi-column pages a rebuild from `asJSON`), on the same structured text, beside the time to
 * build that structured text (mupdf layout, paid either way).
 *   bun scripts/bench/pdf-layout.ts [--dir /work/shared/bench/pdf] [--rounds 5] [extra.pdf ...]
 * Files: the bench manifest's "ok" entries plus any given. Pages are split into those left as mupdf wrote them
 * and those read column by column; the median and mean per page of each, over `rounds` passes after a warm-up.
 * Reading order, which the bench's bag-of-tokens F1 cannot see: per file with a reference (`refs/<id>.json`,
 * pdftotext's own reading order), the F1 of consecutive token pairs (bigrams) of each page, mupdf's text against ours.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readPageText } from "../../src/web/pdf/pdf-page-text.ts";
import { loadMupdf } from "../../src/web/pdf/pdf-wasm.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? (args[at + 1] ?? fallback) : fallback;
};
const dir = option("dir", "/work/shared/bench/pdf");
const rounds = Number(option("rounds", "5"));
const extra = args.filter((a, i) => a.endsWith(".pdf") && !args[i - 1]?.startsWith("--"));
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { files: { id: string; expect: string; file?: string }[] };
const files = [...manifest.files.filter((f) => f.expect === "ok" && f.file).map((f) => join(dir, f.file as string)), ...extra];

const mupdf = await loadMupdf();
interface Sample {
  stextMs: number;
  asTextMs: number;
  readMs: number;
}
const kept: Sample[] = [];
const reordered: Sample[] = [];
const reorderedPages = new Map<string, number[]>();
/** Per file: [bigram F1 of asText, of readPageText] per page, from the warm-up pass. */
const orderScores = new Map<string, [number, number][]>();

for (let round = 0; round <= rounds; round++) {
  for (const file of files) {
    const doc = mupdf.Document.openDocument(new Uint8Array(readFileSync(file)), "application/pdf");
    try {
      for (let i = 0; i < Math.min(doc.countPages(), 20); i++) {
        const page = doc.loadPage(i);
        const list = page.toDisplayList(true);
        let t = performance.now();
        const stext = list.toStructuredText("");
        const stextMs = performance.now() - t;
        t = performance.now();
        const raw = stext.asText();
        const asTextMs = performance.now() - t;
        t = performance.now();
        const text = readPageText(stext);
        const readMs = performance.now() - t;
        stext.destroy();
        list.destroy();
        page.destroy();
        if (round === 0) {
          if (text !== raw) reorderedPages.set(file, [...(reorderedPages.get(file) ?? []), i + 1]);
          const reference = referencePages(file)?.[i];
          if (reference !== undefined) {
            orderScores.set(file, [...(orderScores.get(file) ?? []), [scoreBigrams(raw, reference), scoreBigrams(text, reference)]]);
          }
          continue; // warm-up
        }
        (text === raw ? kept : reordered).push({ stextMs, asTextMs, readMs });
      }
    } finally {
      doc.destroy();
    }
  }
}

function referencePages(file: string): string[] | undefined {
  const id = file.split("/").pop()?.replace(/\.pdf$/, "") ?? "";
  try {
    return (JSON.parse(readFileSync(join(dir, "refs", `${id}.json`), "utf8")) as { pages: string[] }).pages;
  } catch {
    return undefined;
  }
}

function scoreBigrams(text: string, reference: string): number {
  const bigrams = (t: string): Map<string, number> => {
    const tokens = t.normalize("NFKC").split(/\s+/).filter((w) => w !== "");
    const counts = new Map<string, number>();
    for (let k = 1; k < tokens.length; k++) {
      const pair = `${tokens[k - 1]} ${tokens[k]}`;
      counts.set(pair, (counts.get(pair) ?? 0) + 1);
    }
    return counts;
  };
  const ours = bigrams(text);
  const theirs = bigrams(reference);
  let common = 0;
  for (const [pair, n] of ours) common += Math.min(n, theirs.get(pair) ?? 0);
  const total = [...ours.values()].reduce((a, b) => a + b, 0) + [...theirs.values()].reduce((a, b) => a + b, 0);
  return total === 0 ? 1 : (2 * common) / total;
}

const stat = (xs: number[]): string => {
  const sorted = [...xs].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const mean = xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return `p50 ${median.toFixed(3)} mean ${mean.toFixed(3)}`;
};
const report = (name: string, samples: Sample[]): void => {
  console.log(
    `${name.padEnd(10)} ${String(samples.length / rounds).padStart(4)} pages  asText ${stat(samples.map((s) => s.asTextMs))} ms  ` +
      `readPageText ${stat(samples.map((s) => s.readMs))} ms  (structured text ${stat(samples.map((s) => s.stextMs))} ms)`,
  );
};
console.log(`files: ${files.length}; rounds ${rounds}; bun ${Bun.version}`);
for (const [file, pages] of reorderedPages) console.log(`read by columns: ${file.split("/").pop()} pages ${pages.join(",")}`);
report("unchanged", kept);
report("columns", reordered);
for (const [file, scores] of orderScores) {
  const mean = (k: 0 | 1): string => (scores.reduce((a, s) => a + s[k], 0) / scores.length).toFixed(3);
  console.log(`order (bigram F1 against pdftotext): ${file.split("/").pop()} asText ${mean(0)} readPageText ${mean(1)}`);
}
const extraMs = (samples: Sample[]): number => samples.reduce((a, s) => a + s.readMs - s.asTextMs, 0) / Math.max(1, samples.length);
console.log(
  `SUMMARY pages_unchanged=${kept.length / rounds} pages_by_columns=${reordered.length / rounds} ` +
    `extra_ms_per_page_unchanged=${extraMs(kept).toFixed(3)} extra_ms_per_page_columns=${extraMs(reordered).toFixed(3)}`,
);
