/**
 * Writes a copy of a PDF with markup annotations on every page (three highlights, an ink stroke and a square, made
 * with mupdf's createAnnotation, whose appearances draw no text), to measure how readPdf reads annotated pages:
 *   bun scripts/bench/pdf-annotate.ts in.pdf out.pdf
 * then `pdf-ab.ts --ref REV --dir DIR` over a folder holding out.pdf and a manifest.json
 * (`{"files":[{"id":"x","expect":"ok","file":"data/x.pdf"}]}`).
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { PDFPage } from "mupdf";
import { loadMupdf } from "../../src/web/pdf/pdf-wasm.ts";
import { addMarkup } from "./pdf-markup.ts";

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error("usage: bun scripts/bench/pdf-annotate.ts in.pdf out.pdf");
  process.exit(2);
}
const mupdf = await loadMupdf();
const doc = mupdf.Document.openDocument(readFileSync(input), "application/pdf").asPDF();
if (!doc) throw new Error(`${input} is not a PDF`);
for (let index = 0; index < doc.countPages(); index++) {
  const page = doc.loadPage(index) as PDFPage;
  addMarkup(page, [0, 1, 2].map((k) => [72, 100 + k * 150, 400] as [number, number, number]), [50, 50, 150, 90], [1, 1, 0]);
  page.destroy();
}
const buffer = doc.saveToBuffer("compress");
writeFileSync(output, buffer.asUint8Array());
buffer.destroy();
doc.destroy();
