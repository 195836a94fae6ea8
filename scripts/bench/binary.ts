/**
 * Size of dist/tollbooth and its time to first response (spawn → first 200 from /health),
 * next to `bun src/main.ts` (the reference) in the same run. Median of N starts each.
 * Usage: bun scripts/bench/binary.ts [N]   (run `npm run build` first)
 */
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startProcess } from "../../test/support/spawn-binary.ts";

const root = join(import.meta.dir, "../..");
const runs = Number(process.argv[2] ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(cmd: string[]): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const cwd = mkdtempSync(join(tmpdir(), "tb-bench-"));
    const started = await startProcess([...cmd, "serve", "--port", "0", "--data", join(cwd, "data")], { cwd });
    times.push(started.firstResponseMs);
    await started.stop();
  }
  return times;
}

const binary = join(root, "dist/tollbooth");
const size = statSync(binary).size;
const bin = await measure([binary]);
const dev = await measure([process.execPath, join(root, "src/main.ts")]);
console.log(`binary size: ${(size / 1024 / 1024).toFixed(1)} MiB`);
console.log(`time to first response (median of ${runs}): dist/tollbooth ${median(bin).toFixed(0)} ms | bun src/main.ts ${median(dev).toFixed(0)} ms`);
