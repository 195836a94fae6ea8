/**
 * How scripts/test.ts (`npm test`) splits the suite into lanes: which files a command line selects,
 * how long each took last time, a balanced split of them, and what each lane's JUnit report says.
 *
 * Much of the suite waits on sockets, timers and child processes (anvil, Chromium, the binary,
 * searx), so two `bun test` processes side by side overlap well even on two cores. Each file runs
 * whole in one lane, as it would alone; the lanes share only the run's fixtures (PostgreSQL, the
 * binary build), which take any number of files at once.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";

/** What bun test takes for a test file (https://bun.sh/docs/cli/test: *.test.*, *_test.*, *.spec.*, *_spec.*). */
const testFile = new Bun.Glob("**/*{.test,_test,.spec,_spec}.{ts,tsx,js,jsx,mts,cts,mjs,cjs}");

/** Every test file under `root` (not node_modules nor a hidden folder), relative to it, sorted. */
export function allTestFiles(root: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    if (entry.isDirectory()) {
      for (const file of testFile.scanSync({ cwd: join(root, entry.name) })) {
        if (!file.split("/").some((part) => part === "node_modules" || part.startsWith("."))) files.push(`${entry.name}/${file}`);
      }
    } else if (testFile.match(entry.name)) files.push(entry.name);
  }
  return files.sort();
}

/**
 * The files `bun test ARGS` would run, or undefined when the arguments hold a flag (`-t NAME`,
 * `--bail`…): those go to one lane as they are. A word selects the files whose path contains it, as
 * bun's own filters do (`test/flows`, `./test/x.test.ts`, `paid`).
 */
export function selectedFiles(root: string, args: readonly string[]): string[] | undefined {
  if (args.some((arg) => arg.startsWith("-"))) return undefined;
  const all = allTestFiles(root);
  if (args.length === 0) return all;
  const filters = args.map((arg) => (isAbsolute(arg) ? relative(root, arg) : arg).replace(/^(\.\/)+/, "").replace(/\/+$/, ""));
  return all.filter((file) => filters.some((filter) => file.includes(filter)));
}

/** Seconds each file took, from the last run (under node_modules/.cache) over the committed table. */
export function fileTimes(committed: string, cached: string): Map<string, number> {
  const times = new Map<string, number>();
  for (const path of [committed, cached]) {
    if (!existsSync(path)) continue;
    try {
      for (const [file, took] of Object.entries(JSON.parse(readFileSync(path, "utf8")) as Record<string, number>)) times.set(file, took);
    } catch {
      // a torn cache is only a worse split
    }
  }
  return times;
}

/**
 * Files into `lanes` lanes of about equal time: longest first, each to the lane with the least so
 * far. A file with no recorded time counts as the median one.
 */
export function splitFiles(files: readonly string[], times: ReadonlyMap<string, number>, lanes: number): string[][] {
  const known = files.map((f) => times.get(f)).filter((t): t is number => t !== undefined).sort((a, b) => a - b);
  const median = known.length > 0 ? known[Math.floor(known.length / 2)]! : 1;
  const weighted = files.map((file) => ({ file, took: times.get(file) ?? median })).sort((a, b) => b.took - a.took || a.file.localeCompare(b.file));
  const split = Array.from({ length: Math.max(1, Math.min(lanes, files.length)) }, () => ({ files: [] as string[], took: 0 }));
  for (const { file, took } of weighted) {
    const lane = split.reduce((least, lane) => (lane.took < least.took ? lane : least));
    lane.files.push(file);
    lane.took += took;
  }
  return split.map((lane) => lane.files.sort());
}

export interface FileResult {
  readonly tests: number;
  readonly failures: number;
  readonly skipped: number;
  /** Seconds. */
  readonly took: number;
}

/** Each file's counts and time, from the top-level <testsuite> of each file in bun's JUnit report. */
export function resultsByFile(xml: string): Map<string, FileResult> {
  const results = new Map<string, FileResult>();
  for (const [, attributes] of xml.matchAll(/<testsuite ([^>]*)>/g)) {
    if (/\bline="/.test(attributes!)) continue;
    const file = /\bfile="([^"]*)"/.exec(attributes!)?.[1] ?? /\bname="([^"]*)"/.exec(attributes!)?.[1];
    if (!file) continue;
    const count = (name: string) => Number(new RegExp(`\\b${name}="([\\d.]+)"`).exec(attributes!)?.[1] ?? 0);
    results.set(file, { tests: count("tests"), failures: count("failures") + count("errors"), skipped: count("skipped"), took: count("time") });
  }
  return results;
}

/** Records this run's per-file times for the next split (files not run keep their old time). */
export function recordTimes(cached: string, previous: ReadonlyMap<string, number>, results: ReadonlyMap<string, FileResult>): void {
  const times = Object.fromEntries(previous);
  for (const [file, result] of results) times[file] = Math.round(result.took * 100) / 100;
  writeFileSync(cached, `${JSON.stringify(times, Object.keys(times).sort(), 1)}\n`);
}
