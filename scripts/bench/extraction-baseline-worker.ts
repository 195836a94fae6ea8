/**
 * The README's readability-happydom-bun reference, for side-by-side speed on the same machine:
 *   bash /work/shared/bench/extraction/run.sh --worker 'node_modules/.bin/bun scripts/bench/extraction-baseline-worker.ts'
 */
import { readFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { Readability } from "@mozilla/readability";
import { Window } from "happy-dom";

const settings = { disableJavaScriptEvaluation: true, disableJavaScriptFileLoading: true, disableCSSFileLoading: true, disableIframePageLoading: true };
const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
for await (const line of lines) {
  if (line.trim() === "") continue;
  const { file, url } = JSON.parse(line) as { file: string; url?: string };
  const window = new Window({ url: url ?? "https://example.com/", settings });
  try {
    window.document.write(await readFile(file, "utf8"));
    const article = new Readability(window.document as unknown as Document).parse();
    process.stdout.write(`${JSON.stringify({ text: article?.textContent ?? "" })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ error: String(error) })}\n`);
  } finally {
    await window.happyDOM.close();
  }
}
