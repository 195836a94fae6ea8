/** The fixed logs of test/fixtures/logs and a finder for the original line number of a text in them. */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const FIXTURE_DIR = join(import.meta.dir, "..", "fixtures", "logs");

export function fixtureLog(name: string): string {
  return readFileSync(join(FIXTURE_DIR, name), "utf8");
}

/** 1-based number of the first raw line of `log` that contains `text` (fails the test when absent). */
export function lineOf(log: string, text: string): number {
  const index = log.split("\n").findIndex((line) => line.includes(text));
  if (index < 0) throw new Error(`fixture has no line containing ${JSON.stringify(text)}`);
  return index + 1;
}
