/**
 * The read bench (web-read-throughput.ts) on two versions of the server, alternating: a reference
 * revision and the working tree, `--pairs` times each, then each arm's medians. On a machine whose
 * speed drifts by a quarter from one run to the next, one run per version says little; alternating
 * pairs and medians are how a change's effect on reads/s, CPU per read and peak RSS is claimed.
 *
 * The reference runs from a temporary git worktree of `--ref` with this tree's node_modules linked
 * (so the same dependencies and happy-dom patch) and this tree's scripts/bench copied in (so the same
 * bench): only src/ differs.
 *
 *   node_modules/.bin/bun scripts/bench/read-ab.ts --ref REV [--pairs 3] [--reads 2000]
 */
import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { option } from "./dev-set.ts";

const ref = option("ref", "");
const pairs = Number(option("pairs", "3"));
const reads = option("reads", "2000");
if (!ref) {
  console.error("usage: read-ab.ts --ref REV [--pairs 3] [--reads 2000]");
  process.exit(2);
}

const root = join(import.meta.dir, "..", "..");

interface RunFigures {
  readsPerSecond: number;
  cpuMsPerRead: number;
  workerMsPerRead: number;
  peakRssMb: number;
  gaugeMs: number;
}

function figure(output: string, pattern: RegExp): number {
  const match = pattern.exec(output);
  if (!match) throw new Error(`bench output without ${pattern}:\n${output}`);
  return Number(match[1]);
}

function readFigures(output: string): RunFigures {
  return {
    readsPerSecond: figure(output, /throughput\s+([\d.]+) reads\/s/),
    cpuMsPerRead: figure(output, /server CPU\s+([\d.]+) ms per read/),
    workerMsPerRead: figure(output, /by thread\s+.*?Worker ([\d.]+)/),
    peakRssMb: figure(output, /peak RSS\s+([\d.]+) MB/),
    gaugeMs: figure(output, /median ([\d.]+) ms a page/),
  };
}

async function runBench(tree: string): Promise<RunFigures> {
  const child = Bun.spawn([process.execPath, join(tree, "scripts", "bench", "web-read-throughput.ts"), "--reads", reads], {
    cwd: tree,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [output, errors, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`bench in ${tree} exited with ${code}:\n${errors}`);
  return readFigures(output);
}

function git(...args: string[]): string {
  const run = Bun.spawnSync(["git", ...args], { cwd: root, stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr.toString()}`);
  return run.stdout.toString().trim();
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

const refTree = join(mkdtempSync(join(tmpdir(), "tb-read-ab-")), "ref");
git("worktree", "add", "--detach", refTree, ref);
try {
  symlinkSync(join(root, "node_modules"), join(refTree, "node_modules"));
  cpSync(join(root, "scripts", "bench"), join(refTree, "scripts", "bench"), { recursive: true });
  const arms = [
    { name: `ref ${git("rev-parse", "--short", ref)}`, tree: refTree, runs: [] as RunFigures[] },
    { name: "working tree", tree: root, runs: [] as RunFigures[] },
  ];
  console.log(`read bench, ${reads} reads a run, ${pairs} alternating pairs`);
  console.log("arm             reads/s  CPU ms/read  Worker ms/read  peak RSS MB  gauge ms");
  const row = (name: string, f: RunFigures) =>
    console.log(
      `${name.padEnd(15)} ${f.readsPerSecond.toFixed(1).padStart(7)}  ${f.cpuMsPerRead.toFixed(1).padStart(11)}  ${f.workerMsPerRead.toFixed(1).padStart(14)}  ${f.peakRssMb.toFixed(1).padStart(11)}  ${f.gaugeMs.toFixed(1).padStart(8)}`,
    );
  for (let pair = 0; pair < pairs; pair++) {
    for (const arm of arms) {
      const figures = await runBench(arm.tree);
      arm.runs.push(figures);
      row(arm.name, figures);
    }
  }
  console.log("medians");
  for (const arm of arms) {
    const pick = (key: keyof RunFigures) => median(arm.runs.map((run) => run[key]));
    row(arm.name, {
      readsPerSecond: pick("readsPerSecond"),
      cpuMsPerRead: pick("cpuMsPerRead"),
      workerMsPerRead: pick("workerMsPerRead"),
      peakRssMb: pick("peakRssMb"),
      gaugeMs: pick("gaugeMs"),
    });
  }
} finally {
  git("worktree", "remove", "--force", refTree);
  rmSync(join(refTree, ".."), { recursive: true, force: true });
}
