/**
 * The README's readability-happydom-bun reference, for side-by-side speed on the same machine:
 *   bash /work/shared/bench/extraction/run.sh --worker 'node_modules/.bin/bun scripts/bench/extraction-baseline-worker.ts'
 */
import { readFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { readabilityText } from "./readability-reference.ts";

const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
for await (const line of lines) {
  if (line.trim() === "") continue;
  const { file, url } = JSON.parse(line) as { file: string; url?: string };
  try {
    const text = await readabilityText(await readFile(file, "utf8"), url);
    process.stdout.write(`${JSON.stringify({ text: text ?? "" })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ error: String(error) })}\n`);
  }
}
