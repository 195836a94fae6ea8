/**
 * Worker for /work/shared/bench/extraction/run.sh --worker: one JSON line {"id","file","url"} in,
 * one JSON line {"text"} or {"error"} out, using the web engine's extraction (no fetch).
 *   bash /work/shared/bench/extraction/run.sh --worker 'node_modules/.bin/bun scripts/bench/extraction-worker.ts'
 */
import { readFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { extractHtml } from "../../src/web/extract/extract.ts";

const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
for await (const line of lines) {
  if (line.trim() === "") continue;
  try {
    const { file, url } = JSON.parse(line) as { file: string; url?: string };
    const html = await readFile(file, "utf8");
    const result = await extractHtml({ html, url: url ?? "https://example.com/", markdown: false });
    process.stdout.write(`${JSON.stringify({ text: result.text })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ error: String(error) })}\n`);
  }
}
