/**
 * How often the rules engine's failure window (src/logs/reduce.ts) holds the labelled failure
 * chunk of the LogChunks data set (Brandt et al., MSR 2020: 797 Travis CI logs of 80 repositories
 * in 29 languages), beside the reference "the last 30 lines" measured the same way in the same run.
 *
 *   bun scripts/bench/logchunks.ts --data DIR [--max-lines 40] [--show-misses N]
 *
 * DIR holds LogChunks' `build-failure-reason/` and `logs/` (see scripts/bench/logchunks.md).
 *
 * - overlaps: at least one line of the labelled chunk is inside the window (the issue's measure:
 *   the last 30 lines overlap 43.5 % of the chunks).
 * - contained: every line of the chunk is inside the window.
 * A chunk printed twice in its log (a runner's detail and its summary) scores if any occurrence
 * does; chunks that cannot be located in their log are left out of the shares and counted.
 * The repositories are split into two halves by a hash of their name: the reducer's rules were
 * written looking at half A only, so half B is the held-out figure.
 */
import { createHash } from "node:crypto";
import { diagnoseLog } from "../../src/logs/diagnose.ts";
import { option } from "./dev-set.ts";
import { type ChunkSpan, type LabelledLog, loadLogChunks } from "./logchunks-data.ts";

interface Score {
  n: number;
  contained: number;
  overlaps: number;
  tailContained: number;
  tailOverlaps: number;
  lines: number[];
}

const dataDir = option("data", "");
if (!dataDir) {
  console.error("usage: bun scripts/bench/logchunks.ts --data DIR   (DIR: the LogChunks folder; see scripts/bench/logchunks.md)");
  process.exit(2);
}
const maxLines = Number(option("max-lines", "40"));
const showMisses = Number(option("show-misses", "0"));
// Misses are listed from half A only unless asked otherwise, so that looking at them does not tune on the held-out half.
const missesHalf = option("misses-half", "A");

const started = performance.now();
const examples = loadLogChunks(dataDir);
const located = examples.filter((e) => e.spans.length > 0);

const half = (repository: string) => ((createHash("sha256").update(repository).digest()[0] as number) % 2 === 0 ? "A" : "B");
const empty = (): Score => ({ n: 0, contained: 0, overlaps: 0, tailContained: 0, tailOverlaps: 0, lines: [] });
const byLanguage = new Map<string, Score>();
const byHalf = new Map<string, Score>([["A", empty()], ["B", empty()]]);
const overall = empty();
const misses: { example: LabelledLog; from: number; to: number }[] = [];

const contains = (s: ChunkSpan, from: number, to: number) => s.from >= from && s.to <= to;
const overlaps = (s: ChunkSpan, from: number, to: number) => s.from <= to && s.to >= from;

let reduceMs = 0;
const families = new Map<string, number>();
for (const example of located) {
  const t0 = performance.now();
  const diagnosis = diagnoseLog(example.log, { maxLines });
  const window = diagnosis.failing_lines;
  families.set(diagnosis.family, (families.get(diagnosis.family) ?? 0) + 1);
  reduceMs += performance.now() - t0;
  const total = example.log.split("\n").length;
  // The reference: the last 30 lines that are not the trailing empty line of a final newline.
  const tailTo = example.log.endsWith("\n") ? total - 1 : total;
  const tailFrom = Math.max(1, tailTo - 29);
  const hit = {
    contained: example.spans.some((s) => contains(s, window.from, window.to)),
    overlaps: example.spans.some((s) => overlaps(s, window.from, window.to)),
    tailContained: example.spans.some((s) => contains(s, tailFrom, tailTo)),
    tailOverlaps: example.spans.some((s) => overlaps(s, tailFrom, tailTo)),
  };
  if (!hit.overlaps && half(example.repository) === missesHalf) misses.push({ example, from: window.from, to: window.to });
  const score = byLanguage.get(example.language) ?? empty();
  byLanguage.set(example.language, score);
  for (const s of [score, overall, byHalf.get(half(example.repository)) as Score]) {
    s.n++;
    if (hit.contained) s.contained++;
    if (hit.overlaps) s.overlaps++;
    if (hit.tailContained) s.tailContained++;
    if (hit.tailOverlaps) s.tailOverlaps++;
    s.lines.push(window.to - window.from + 1);
  }
}

const pct = (k: number, n: number) => (n === 0 ? "   -  " : `${((100 * k) / n).toFixed(1).padStart(5)}%`);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : (sorted[(sorted.length - 1) >> 1] as number);
};
const row = (name: string, s: Score) =>
  `${name.padEnd(14)} ${String(s.n).padStart(4)}  ${pct(s.overlaps, s.n)}  ${pct(s.contained, s.n)}  ${String(median(s.lines)).padStart(6)}   ${pct(s.tailOverlaps, s.n)}  ${pct(s.tailContained, s.n)}`;

console.log(`LogChunks: ${examples.length} labelled logs, ${located.length} chunks located in their log (${examples.length - located.length} not located, left out)`);
console.log(`window: diagnoseLog (src/logs), failing_lines, max ${maxLines} lines; reference: the last 30 lines\n`);
console.log(`${"language".padEnd(14)} ${"logs".padStart(4)}  overlaps contained  median   last-30 overlaps contained`);
console.log(`${"".padEnd(14)} ${"".padStart(4)}  ${"".padStart(17)}  lines`);
for (const [language, s] of [...byLanguage.entries()].sort(([a], [b]) => a.localeCompare(b))) console.log(row(language, s));
console.log("");
for (const [name, s] of byHalf) console.log(row(`half ${name}${name === "B" ? " (held out)" : ""}`, s));
console.log(row("overall", overall));
console.log(
  `\noverall counting the ${examples.length - located.length} unlocated chunks as misses: overlaps ${pct(overall.overlaps, examples.length)}, last-30 ${pct(overall.tailOverlaps, examples.length)}`,
);
console.log(`families named: ${[...families.entries()].sort(([, a], [, b]) => b - a).map(([f, n]) => `${f} ${n}`).join(", ")}`);
console.log(`diagnoseLog: ${(reduceMs / located.length).toFixed(2)} ms per log on average; whole run ${((performance.now() - started) / 1000).toFixed(1)} s`);
for (const miss of misses.slice(0, showMisses)) {
  const s = miss.example.spans.at(-1) as ChunkSpan;
  console.log(`miss ${miss.example.file}: window ${miss.from}-${miss.to}, chunk ${s.from}-${s.to} of ${miss.example.log.split("\n").length}`);
}
