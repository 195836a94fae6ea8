/**
 * mupdf's own work alone, shaped as a readPdf for pdf-throughput.ts --bare: open the document, each page's structured
 * text with readPdf's options and asText, then free them. No layout, no cleanup, no annotations drawn, no hashes: the
 * ceiling our readPdf could reach on this mupdf build ("mupdf alone" in issue 21). Uses this tree's loader
 * (pdf-wasm.ts: console silenced, ICC off), so the mupdf settings are readPdf's.
 */
import { loadMupdf } from "../../src/web/pdf/pdf-wasm.ts";

export async function readPdf(bytes: Uint8Array): Promise<{ page_count: number; pages: { page: number; text: string }[] }> {
  const mupdf = await loadMupdf();
  const doc = mupdf.Document.openDocument(bytes, "application/pdf");
  try {
    const count = doc.countPages();
    const pages: { page: number; text: string }[] = [];
    for (let index = 0; index < count; index++) {
      const page = doc.loadPage(index);
      const stext = page.toStructuredText("");
      pages.push({ page: index + 1, text: stext.asText() });
      stext.destroy();
      page.destroy();
    }
    return { page_count: count, pages };
  } finally {
    doc.destroy();
  }
}
