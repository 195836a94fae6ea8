/**
 * The read bench (web-read-throughput.ts) on two versions of the server, alternating: a reference
 * revision and the working tree, `--pairs` times each, then each arm's medians. On a machine whose
 * speed drifts by a quarter from one run to the next, one run per version says little; alternating
 * pairs and medians are how a change's effect on reads/s, CPU per read and peak RSS is claimed.
 *
 * The reference runs from a temporary git worktree of `--ref` (reference-tree.ts: same dependencies
 * and bench files; only src/ differs, and the happy-dom patch when `--ref` has another one).
 *
 *   node_modules/.bin/bun scripts/bench/read-ab.ts --ref REV [--pairs 3] [--reads 2000] [--bench read|thread]
 * `--bench thread` runs extraction-thread-memory.ts instead (one extraction thread, 4 rounds of the
 * dev set): CPU per page and the thread's memory, for changes inside extraction.
 */
import { join } from "node:path";
import { median, option } from "./dev-set.ts";
import { createReferenceTree } from "./reference-tree.ts";

const ref = option("ref", "");
const pairs = Number(option("pairs", "3"));
const reads = option("reads", "2000");
const benchName = option("bench", "read");
if (!ref || (benchName !== "read" && benchName !== "thread")) {
  console.error("usage: read-ab.ts --ref REV [--pairs 3] [--reads 2000] [--bench read|thread]");
  process.exit(2);
}

const root = join(import.meta.dir, "..", "..");

/** A bench both arms run, and the figures read from its output (each arm's median is printed). */
interface Bench {
  script: string;
  args: string[];
  figures: { label: string; pattern: RegExp }[];
}

const BENCHES: Record<string, Bench> = {
  read: {
    script: "web-read-throughput.ts",
    args: ["--reads", reads],
    figures: [
      { label: "reads/s", pattern: /throughput\s+([\d.]+) reads\/s/ },
      { label: "CPU ms/read", pattern: /server CPU\s+([\d.]+) ms per read/ },
      { label: "Worker ms/read", pattern: /by thread\s+.*?Worker ([\d.]+)/ },
      { label: "peak RSS MB", pattern: /peak RSS\s+([\d.]+) MB/ },
      { label: "gauge ms", pattern: /median ([\d.]+) ms a page/ },
    ],
  },
  // One extraction thread, pages one at a time: CPU per page is far steadier than reads/s.
  thread: {
    script: "extraction-thread-memory.ts",
    args: ["--rounds", "4"],
    figures: [
      { label: "CPU ms/page", pattern: /CPU ([\d.]+) ms per page/ },
      { label: "high-water MiB", pattern: /idle 1 s.*high-water\s+(\d+) MiB/ },
      { label: "idle MiB", pattern: /idle 1 s.*RSS\s+(\d+) MiB/ },
    ],
  },
};
const bench = BENCHES[benchName] as Bench;

function readFigures(output: string): number[] {
  return bench.figures.map(({ pattern }) => {
    const match = pattern.exec(output);
    if (!match) throw new Error(`bench output without ${pattern}:\n${output}`);
    return Number(match[1]);
  });
}

async function runBench(tree: string): Promise<number[]> {
  const child = Bun.spawn([process.execPath, join(tree, "scripts", "bench", bench.script), ...bench.args], {
    cwd: tree,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [output, errors, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`bench in ${tree} exited with ${code}:\n${errors}`);
  return readFigures(output);
}


const reference = createReferenceTree(ref);
const refTree = reference.dir;
try {
  const arms = [
    { name: `ref ${reference.name}`, tree: refTree, runs: [] as number[][] },
    { name: "working tree", tree: root, runs: [] as number[][] },
  ];
  console.log(`${bench.script} ${bench.args.join(" ")}, ${pairs} alternating pairs`);
  const widths = bench.figures.map(({ label }) => Math.max(label.length, 7));
  console.log(`${"arm".padEnd(15)} ${bench.figures.map(({ label }, i) => label.padStart(widths[i] as number)).join("  ")}`);
  const row = (name: string, values: number[]) =>
    console.log(`${name.padEnd(15)} ${values.map((value, i) => value.toFixed(1).padStart(widths[i] as number)).join("  ")}`);
  for (let pair = 0; pair < pairs; pair++) {
    for (const arm of arms) {
      const figures = await runBench(arm.tree);
      arm.runs.push(figures);
      row(arm.name, figures);
    }
  }
  console.log("medians");
  for (const arm of arms) row(arm.name, bench.figures.map((_, i) => median(arm.runs.map((run) => run[i] as number))));
} finally {
  reference.remove();
}
