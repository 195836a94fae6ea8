/**
 * Extraction on two versions in one process, for changes too small for the read bench to show:
 * a revision (reference-tree.ts: its own src/, and its own happy-dom when it patches it
 * differently; revisions before the htmlparser2 tree extract on happy-dom) and the working tree take turns, one pass over the dev set each, `--blocks` times.
 * Each pass starts on a collected heap and paces its forced collections as an extraction thread
 * does (its own collection-pacing.ts), so each arm is charged its own garbage. Turns alternate
 * within a second or two, so the machine's drift falls on both arms alike. Prints each arm's CPU
 * per page (the process: this thread plus the engine's collector and JIT threads), the median over
 * passes and the ratio. Then the same pages page by page, the arms taking turns on each page: this
 * thread's CPU for extraction alone, the steadiest figure (forced collections are left out, so a
 * change in garbage shows only in the passes). First, how many pages extract differently.
 *
 *   node_modules/.bin/bun scripts/bench/extraction-ab.ts --ref REV [--blocks 8] [--data DIR]
 */
import { join } from "node:path";
import { DEV_SET_DIR, loadDevPages, median, option } from "./dev-set.ts";
import { threadCpuMs } from "./extraction-thread-clock.ts";
import { createReferenceTree, moduleIn } from "./reference-tree.ts";

const ref = option("ref", "");
const blocks = Number(option("blocks", "8"));
if (!ref) {
  console.error("usage: extraction-ab.ts --ref REV [--blocks 8] [--data DIR]");
  process.exit(2);
}

const root = join(import.meta.dir, "..", "..");

interface Arm {
  name: string;
  extract: (input: { html: string; url: string; markdown: boolean }) => unknown;
  budget: number;
  pacer: { before(weight: number): boolean; counted(weight: number): void; collected(): void };
  /** A page's weight for the arm's pacing, guessed before it is extracted. */
  weightBefore: (htmlLength: number) => number;
  /** The weight of the page just extracted (the revision's own measure). */
  weightAfter: (htmlLength: number) => number;
  processMs: number[];
  threadMs: number[];
}

async function loadArm(name: string, tree: string): Promise<Arm> {
  const extract = await import(moduleIn(tree, "src/web/extract/extract.ts"));
  const parse = await import(moduleIn(tree, "src/web/extract/content-parse.ts"));
  const pacing = await import(moduleIn(tree, "src/web/threads/collection-pacing.ts"));
  const pool = await import(moduleIn(tree, "src/web/threads/extract-pool.ts"));
  // Revisions before the htmlparser2 tree weighed a page by the characters happy-dom parsed; later ones by its HTML's length.
  const byCharsParsed = typeof pacing.pageWeight === "function" && typeof parse.takeCharsParsed === "function";
  return {
    name,
    extract: extract.extractHtmlSync,
    budget: pool.DEFAULT_COLLECT_BUDGET,
    pacer: new pacing.CollectionPacer(pool.DEFAULT_COLLECT_BUDGET),
    weightBefore: byCharsParsed ? pacing.estimatedPageWeight : (length) => length,
    weightAfter: byCharsParsed ? (length) => pacing.pageWeight(parse.takeCharsParsed(), length) : (length) => length,
    processMs: [],
    threadMs: [],
  };
}

const pages = loadDevPages(option("data", DEV_SET_DIR));
const reference = createReferenceTree(ref);
try {
  const arms = [await loadArm(`ref ${reference.name}`, reference.dir), await loadArm("working tree", root)];
  const [refArm, treeArm] = arms as [Arm, Arm];

  let differing = 0;
  for (const [i, html] of pages.entries()) {
    const input = { html, url: `https://example.com/${i}`, markdown: true };
    const outcome = (arm: Arm) => {
      try {
        return JSON.stringify(arm.extract(input));
      } catch (error) {
        return `error ${String((error as { code?: string }).code ?? error)}`;
      }
    };
    if (outcome(refArm) !== outcome(treeArm)) differing++;
  }
  console.log(`${pages.length} pages; ${differing} extract differently (text, markdown, headings, links, warnings)`);

  const pass = (arm: Arm) => {
    Bun.gc(true);
    arm.pacer.collected();
    arm.weightAfter(0);
    const cpu = process.cpuUsage();
    const thread = threadCpuMs();
    for (const [i, html] of pages.entries()) {
      if (arm.pacer.before(arm.weightBefore(html.length))) {
        Bun.gc(true);
        arm.pacer.collected();
      }
      arm.extract({ html, url: `https://example.com/${i}`, markdown: false });
      arm.pacer.counted(arm.weightAfter(html.length));
    }
    const used = process.cpuUsage(cpu);
    arm.processMs.push((used.user + used.system) / 1000 / pages.length);
    arm.threadMs.push((threadCpuMs() - thread) / pages.length);
  };
  // A warm-up pass each (JIT), then turns; the first arm of a turn alternates.
  for (const arm of arms) pass(arm);
  for (const arm of arms) arm.processMs.length = arm.threadMs.length = 0;
  for (let block = 0; block < blocks; block++) {
    const order = block % 2 === 0 ? arms : [...arms].reverse();
    for (const arm of order) pass(arm);
  }

  // Page by page, turns within milliseconds: this thread's CPU for the extraction alone (forced
  // collections run between pages, untimed, on both arms' garbage at once).
  const interleaved = new Map<Arm, number[]>(arms.map((arm) => [arm, []]));
  let sinceCollection = 0;
  for (let block = 0; block < blocks; block++) {
    for (const [i, html] of pages.entries()) {
      const order = (block + i) % 2 === 0 ? arms : [...arms].reverse();
      for (const arm of order) {
        const start = threadCpuMs();
        arm.extract({ html, url: `https://example.com/${i}`, markdown: false });
        (interleaved.get(arm) as number[]).push(threadCpuMs() - start);
        sinceCollection += arm.weightAfter(html.length);
      }
      if (sinceCollection > 2 * treeArm.budget) {
        Bun.gc(true);
        sinceCollection = 0;
      }
    }
  }

  console.log(`CPU ms per page, ${blocks} passes each (process: all threads; thread: this one, without the collector's helpers)`);
  for (const arm of arms) {
    console.log(
      `${arm.name.padEnd(15)} process ${median(arm.processMs).toFixed(2).padStart(6)}   thread ${median(arm.threadMs).toFixed(2).padStart(6)}   passes ${arm.processMs.map((ms) => ms.toFixed(1)).join(" ")}`,
    );
  }
  const ratio = (key: "processMs" | "threadMs") => median(treeArm[key]) / median(refArm[key]);
  console.log(`working tree / ref: process ${ratio("processMs").toFixed(3)}, thread ${ratio("threadMs").toFixed(3)}`);
  const total = (arm: Arm) => (interleaved.get(arm) as number[]).reduce((sum, ms) => sum + ms, 0);
  const perPage = (arm: Arm) => total(arm) / (interleaved.get(arm) as number[]).length;
  console.log(`page by page, turns alternating, extraction only (no forced collections), this thread's CPU:`);
  for (const arm of arms) console.log(`${arm.name.padEnd(15)} mean ${perPage(arm).toFixed(2).padStart(6)} ms per page`);
  console.log(`working tree / ref: ${(total(treeArm) / total(refArm)).toFixed(3)}`);
} finally {
  reference.remove();
}
