/**
 * Times compareText on 60,000-character texts (reordered lines; completely different lines) next to fast-diff
 * in line mode on the same inputs, the ordered-diff reference:
 *   bun scripts/bench/compare.ts [runs]
 */
import diff from "fast-diff";
import { compareText } from "../../src/web/compare/compare.ts";

const runs = Number(process.argv[2] ?? 5);
const SIZE = 60_000;

/** 60,000 characters of distinct ~40-character lines. */
function makeText(tag: string, seed: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let i = 0; length < SIZE; i++) {
    const line = `${tag} ${i} ${((i * 2654435761 + seed) >>> 0).toString(36)} ${"text ".repeat(5)}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n").slice(0, SIZE);
}

function shuffle(text: string): string {
  const lines = text.split("\n");
  let state = 42;
  for (let i = lines.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) >>> 0;
    const j = state % (i + 1);
    [lines[i], lines[j]] = [lines[j] as string, lines[i] as string];
  }
  return lines.join("\n");
}

/** fast-diff on lines: each distinct line mapped to one character, as its line mode is used. */
function lineDiff(a: string, b: string): number {
  const ids = new Map<string, string>();
  const encode = (text: string): string =>
    text
      .split("\n")
      .map((line) => {
        let id = ids.get(line);
        if (id === undefined) {
          id = String.fromCodePoint(0x100 + ids.size);
          ids.set(line, id);
        }
        return id;
      })
      .join("");
  return diff(encode(a), encode(b)).length;
}

function time(fn: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((x, y) => x - y);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

const base = makeText("line", 1);
const cases = { reordered: [base, shuffle(base)], different: [base, makeText("other", 2)] } as const;
console.log(`runtime=${typeof Bun === "undefined" ? `node ${process.version}` : `bun ${Bun.version}`} runs=${runs} chars=${SIZE}`);
for (const [name, [previous, current]] of Object.entries(cases)) {
  const ours = time(() => compareText({ currentText: current, previousText: previous, diffSummary: true, maxChars: SIZE }));
  const reference = time(() => lineDiff(previous, current));
  const { comparison } = compareText({ currentText: current, previousText: previous, diffSummary: true, maxChars: SIZE });
  console.log(
    `${name.padEnd(10)} compareText_ms=${ours.toFixed(2)} fastdiff_line_ms=${reference.toFixed(2)} ` +
      `added=${comparison.added_lines} removed=${comparison.removed_lines}`,
  );
}
