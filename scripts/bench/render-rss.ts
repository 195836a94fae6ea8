/**
 * Resident memory of a process tree (the process and every descendant), read from /proc.
 * Linux only; used by the render benchmark to include Chromium's children.
 */
import { readdirSync, readFileSync } from "node:fs";

const PAGE_BYTES = 4096;

function readParent(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 4 (ppid) follows the parenthesised command name, which may hold spaces.
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

function readRssBytes(pid: number): number {
  try {
    const statm = readFileSync(`/proc/${pid}/statm`, "utf8").split(" ");
    return Number(statm[1] ?? 0) * PAGE_BYTES;
  } catch {
    return 0;
  }
}

function readPssBytes(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** Pids of `root` and all its descendants. */
export function listProcessTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const parent = readParent(pid);
    if (parent === undefined) continue;
    children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const tree: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    tree.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** Sum of RSS over the tree (shared pages counted once per process, so an upper bound). */
export function readTreeRssBytes(root: number): { bytes: number; pssBytes: number; processes: number } {
  const tree = listProcessTree(root);
  return {
    bytes: tree.reduce((sum, pid) => sum + readRssBytes(pid), 0),
    // Proportional set size: shared pages split between the processes sharing them.
    pssBytes: tree.reduce((sum, pid) => sum + readPssBytes(pid), 0),
    processes: tree.length,
  };
}

/** What a process is, for the breakdown: Chromium's `--type=` (renderer, zygote, utility…), else "browser" or the executable's name. */
function describeProcess(pid: number): string {
  try {
    // Chromium rewrites its command line with spaces instead of NULs.
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
    const type = /--type=([a-z-]+)/.exec(cmdline)?.[1];
    if (type) return type;
    const exe = cmdline.split(/[\0 ]/)[0] ?? "";
    return /chrom/.test(exe) ? "browser" : (exe.split("/").pop() ?? "?");
  } catch {
    return "?";
  }
}

export interface TreePeak {
  peakBytes: number;
  peakPssBytes: number;
  peakProcesses: number;
  /** RSS per process at the moment of the RSS peak, e.g. "browser 250 MiB". */
  peakBreakdown: string[];
  /** What was running at the RSS peak (the last `phase` named before it). */
  peakPhase: string;
  /** The root process's own peak RSS (the service: Bun and its threads), whenever it came. */
  rootPeakBytes: number;
}

/** Samples the tree every `intervalMs`; `phase` names what runs from now on, and the peak says during which phase it came. */
export function sampleTreeRss(root: number, intervalMs = 50): { phase(name: string): void; stop(): TreePeak } {
  let phase = "";
  let peakPhase = "";
  let peakBytes = 0;
  let rootPeakBytes = 0;
  let peakPssBytes = 0;
  let peakProcesses = 0;
  let peakBreakdown: string[] = [];
  const sample = () => {
    const tree = listProcessTree(root);
    const rss = tree.map((pid) => readRssBytes(pid));
    const bytes = rss.reduce((sum, value) => sum + value, 0);
    rootPeakBytes = Math.max(rootPeakBytes, rss[tree.indexOf(root)] ?? 0);
    if (bytes > peakBytes) {
      peakBytes = bytes;
      peakBreakdown = tree.map((pid, i) => `${describeProcess(pid)} ${((rss[i] ?? 0) / 1024 / 1024).toFixed(0)} MiB`);
      peakPhase = phase;
    }
    peakPssBytes = Math.max(peakPssBytes, tree.reduce((sum, pid) => sum + readPssBytes(pid), 0));
    peakProcesses = Math.max(peakProcesses, tree.length);
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    phase(name) {
      sample();
      phase = name;
    },
    stop() {
      clearInterval(timer);
      sample();
      return { peakBytes, peakPssBytes, peakProcesses, peakBreakdown, peakPhase, rootPeakBytes };
    },
  };
}

/** RSS and PSS summed over `root`'s descendants only (for the service: the browser's tree, the service itself left out), and each one's RSS/PSS. */
export function readDescendantsBytes(root: number): { bytes: number; pssBytes: number; processes: number; breakdown: string[] } {
  const tree = listProcessTree(root).filter((pid) => pid !== root);
  const rss = tree.map(readRssBytes);
  const pss = tree.map(readPssBytes);
  const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
  return {
    bytes: rss.reduce((sum, value) => sum + value, 0),
    pssBytes: pss.reduce((sum, value) => sum + value, 0),
    processes: tree.length,
    breakdown: tree.map((pid, i) => `${describeProcess(pid)} ${mib(rss[i]!)}/${mib(pss[i]!)}`),
  };
}

/** CPU time (user + system, ms) of `root`'s tree, children that have exited and been waited for included. */
export function readTreeCpuMs(root: number): number {
  let ticks = 0;
  for (const pid of listProcessTree(root)) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // utime, stime, cutime, cstime (fields 14-17; 12-15 after the command name and state).
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // Gone meanwhile.
    }
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}
