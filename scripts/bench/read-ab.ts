/**
 * The read bench (web-read-throughput.ts) on two versions of the server, alternating: a reference
 * revision and the working tree, `--pairs` times each, then each arm's medians. On a machine whose
 * speed drifts by a quarter from one run to the next, one run per version says little; alternating
 * pairs and medians are how a change's effect on reads/s, CPU per read and peak RSS is claimed.
 *
 * The reference runs from a temporary git worktree of `--ref` with this tree's node_modules linked
 * (so the same dependencies) and this tree's scripts/bench copied in (so the same bench): only src/
 * differs, and the happy-dom patch when `--ref` has another one. Then the reference gets its own
 * copy of happy-dom, with this tree's patch (as installed) reversed and the reference's applied.
 *
 *   node_modules/.bin/bun scripts/bench/read-ab.ts --ref REV [--pairs 3] [--reads 2000] [--bench read|thread]
 * `--bench thread` runs extraction-thread-memory.ts instead (one extraction thread, 4 rounds of the
 * dev set): CPU per page and the thread's memory, for changes inside extraction.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { option } from "./dev-set.ts";

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

/** Applies (or with `reverse`, takes back) a patch-package patch to the tree at `dir`. */
function applyPatch(dir: string, patch: string, reverse: boolean): void {
  const run = Bun.spawnSync(["patch", "-p1", "--quiet", "--forward", ...(reverse ? ["-R"] : [])], {
    cwd: dir,
    stdin: new TextEncoder().encode(patch),
    stderr: "pipe",
    stdout: "pipe",
  });
  if (run.exitCode !== 0) throw new Error(`patch ${reverse ? "-R " : ""}in ${dir}: ${run.stdout.toString()}${run.stderr.toString()}`);
}

/**
 * The reference's node_modules: this tree's, linked, unless the reference patches a dependency
 * differently. Then every other package is linked and each patched one is a copy with this tree's
 * patch reversed and the reference's applied.
 */
function linkDependencies(refTree: string): string[] {
  const patchDir = (tree: string) => join(tree, "patches");
  const patchFiles = (tree: string) => (existsSync(patchDir(tree)) ? readdirSync(patchDir(tree)).filter((f) => f.endsWith(".patch")) : []);
  const packageOf = (file: string) => file.slice(0, file.lastIndexOf("+")).replace("+", "/");
  const changed = [...new Set([...patchFiles(root), ...patchFiles(refTree)])].filter((file) => {
    const read = (tree: string) => (existsSync(join(patchDir(tree), file)) ? readFileSync(join(patchDir(tree), file), "utf8") : "");
    return read(root) !== read(refTree);
  });
  const modules = join(refTree, "node_modules");
  if (changed.length === 0) {
    symlinkSync(join(root, "node_modules"), modules);
    return [];
  }
  const copied = new Set(changed.map(packageOf));
  mkdirSync(modules);
  for (const entry of readdirSync(join(root, "node_modules"))) {
    const scoped = entry.startsWith("@") && [...copied].some((name) => name.startsWith(`${entry}/`));
    if (scoped) {
      mkdirSync(join(modules, entry));
      for (const inner of readdirSync(join(root, "node_modules", entry))) {
        if (!copied.has(`${entry}/${inner}`)) symlinkSync(join(root, "node_modules", entry, inner), join(modules, entry, inner));
      }
    } else if (!copied.has(entry)) {
      symlinkSync(join(root, "node_modules", entry), join(modules, entry));
    }
  }
  for (const name of copied) cpSync(join(root, "node_modules", name), join(modules, name), { recursive: true, dereference: true });
  for (const file of changed) {
    if (existsSync(join(patchDir(root), file))) applyPatch(refTree, readFileSync(join(patchDir(root), file), "utf8"), true);
    if (existsSync(join(patchDir(refTree), file))) applyPatch(refTree, readFileSync(join(patchDir(refTree), file), "utf8"), false);
  }
  return [...copied];
}

const refTree = join(mkdtempSync(join(tmpdir(), "tb-read-ab-")), "ref");
git("worktree", "add", "--detach", refTree, ref);
try {
  const ownCopies = linkDependencies(refTree);
  if (ownCopies.length > 0) console.log(`the reference patches ${ownCopies.join(", ")} differently: it runs on its own copy`);
  cpSync(join(root, "scripts", "bench"), join(refTree, "scripts", "bench"), { recursive: true });
  const arms = [
    { name: `ref ${git("rev-parse", "--short", ref)}`, tree: refTree, runs: [] as number[][] },
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
  git("worktree", "remove", "--force", refTree);
  rmSync(join(refTree, ".."), { recursive: true, force: true });
}
