/** Run as its own process by test/web/pdf-thread.test.ts: reads one PDF through the PDF thread and says whether mupdf got loaded on this (the caller's) thread. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createPdfThread } from "../../src/web/threads/pdf-thread.ts";

const thread = createPdfThread();
const result = await thread.read(new Uint8Array(readFileSync(join(import.meta.dir, "../fixtures/pdf/multi-page.pdf"))));
const mupdfLoadedHere = Object.keys(require.cache).some((path) => /node_modules\/mupdf\/dist\/mupdf\.js$/.test(path));
await thread.close();
console.log(JSON.stringify({ pageCount: result.page_count, mupdfLoadedHere }));
