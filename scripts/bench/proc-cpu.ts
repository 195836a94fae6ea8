/** CPU time of a process and of its threads by name, from Linux /proc: what the web/read benches compare. */
import { readdirSync, readFileSync } from "node:fs";

/** CPU time (user + system) in milliseconds from a /proc stat line (100 ticks/s). */
function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time (all threads) a process has used, in milliseconds. */
export function readCpuMs(pid: number): number {
  return statCpuMs(readFileSync(`/proc/${pid}/stat`, "utf8"));
}

/** CPU time of a process's live threads, summed by thread name (e.g. "Worker", "HeapHelper", "JITWorker"). */
export function readThreadCpuMs(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended
    }
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    // Linux keeps 15 characters of a thread's name; WebKit keeps the end of a longer one.
    const name = comm === "ollector Thread" ? "Collector Thread" : comm;
    byName.set(name, (byName.get(name) ?? 0) + statCpuMs(stat));
  }
  return byName;
}

/** Each thread name's CPU in ms per read between two readings, largest first (names under 0.005 ms left out); two decimals, so a change of the server's own thread (~0.5 ms) shows. */
export function threadCpuPerRead(before: Map<string, number>, after: Map<string, number>, reads: number): string {
  return [...after]
    .map(([name, ms]) => [name, (ms - (before.get(name) ?? 0)) / reads] as const)
    .filter(([, perRead]) => perRead >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .map(([name, perRead]) => `${name} ${perRead.toFixed(2)}`)
    .join(", ");
}
