/**
 * PDF extraction speed and memory: our readPdf (mupdf WASM under Bun) beside `pdftotext` (Debian poppler-utils)
 * on the same files in the same run.
 *   bun scripts/bench/pdf-throughput.ts [--dir /work/shared/bench/pdf] [--rounds 5] [--warmup 1] [--docs 200] [--ref REV] [--bare]
 * --ref REV: a revision's readPdf takes its turn beside ours and pdftotext's in the warm passes, so a change is
 *   claimed against pdftotext and against the revision in one run. Then both readPdf sides run on threads of their
 *   own (pdf-ab-side.ts: each its own mupdf instance, timed there). The readPdf sides take turns at each place in
 *   the order from round to round, pdftotext last: whichever reads first reads right after a pdftotext process,
 *   with the caches it left (the ref side always did, before).
 * --bare: mupdf alone (pdf-bare.ts: open, each page's structured text and asText, nothing of ours) takes its turn
 *   too, on a thread of its own: the ceiling readPdf could reach on this mupdf build, measured in the same passes.
 * Files: the bench manifest's "ok" entries (readable PDFs within the limits).
 * - cold: a fresh process per document: `bun` that loads mupdf (WASM start) and reads one file, against one
 *   `pdftotext` process (which is always cold). Median per document, from spawn to exit.
 * - warm: in this process after `warmup` warm-up passes (one by default), `rounds` passes over the files. mupdf's
 *   WASM is still being compiled to its faster tier in the first passes (a pass costs about a third more CPU at the
 *   second pass than at the tenth): --warmup 10 measures a thread that has read a hundred documents, as a
 *   running server's has (it keeps compiling for some hundreds more: see compiler threads). pdftotext runs as a process
 *   per document (its only mode), with the files in the page cache. Pages per second over all passes, and the
 *   median per-document time.
 * - CPU: the same warm passes counted in CPU time, which the machine's other load disturbs far less than wall time:
 *   pdftotext's process (user and system, from its resource usage), and the thread that reads for readPdf (its
 *   own CPU time; without --ref or --bare, this process's, which also holds the engine's compiler and collector
 *   threads).
 * - compiler threads: the CPU JavaScriptCore's compiler threads (JITWorker; "Wasm Worklist Helper Thread", which
 *   moves mupdf's hot WASM functions to the optimizing tier) used during the warm passes, per pass, and how far
 *   readPdf's wall time runs above its thread's CPU time. On this 2-core machine the compiler threads compete with
 *   the reading thread; each thread (side) compiles its own copy of mupdf's WASM. Linux only (/proc/self/task).
 *   The readPdf sides' CPU is their thread's clock (extraction-thread-clock.ts): process.threadCpuUsage moves in
 *   scheduler ticks here and read a warm pass 10-20 % low, which made readPdf's CPU ratio look that much better.
 * - peak RSS: a fresh process reads `docs` documents one after another (cycling the files) and reports the
 *   largest resident set size it saw (sampled after each document, and the kernel's maxrss).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createReferenceTree, moduleIn, type ReferenceTree } from "./reference-tree.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? (args[at + 1] ?? fallback) : fallback;
};

if (args[0] === "--child-one") await childReadOne(args[1] ?? "");
else if (args[0] === "--child-rss") await childRss(Number(args[1]), args.slice(2));
else await main();

async function loadReadPdf(): Promise<typeof import("../../src/web/pdf/pdf.ts").readPdf> {
  return (await import("../../src/web/pdf/pdf.ts")).readPdf;
}

/** One document in a fresh process: what a cold start costs (Bun start, WASM instantiation, extraction). */
async function childReadOne(file: string): Promise<void> {
  const readPdf = await loadReadPdf();
  const result = await readPdf(new Uint8Array(readFileSync(file)));
  console.log(JSON.stringify({ pages: result.pages.length }));
}

async function childRss(docs: number, files: string[]): Promise<void> {
  const readPdf = await loadReadPdf();
  const bytes = files.map((f) => new Uint8Array(readFileSync(f)));
  let peak = process.memoryUsage().rss;
  const start = peak;
  for (let i = 0; i < docs; i++) {
    await readPdf(bytes[i % bytes.length] as Uint8Array);
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  const end = process.memoryUsage().rss;
  const maxRssKb = process.resourceUsage().maxRSS;
  console.log(JSON.stringify({ startMb: start / 2 ** 20, peakMb: peak / 2 ** 20, endMb: end / 2 ** 20, maxRssMb: maxRssKb / 1024 }));
}

async function main(): Promise<void> {
  const dir = option("dir", "/work/shared/bench/pdf");
  const rounds = Number(option("rounds", "5"));
  const warmup = Math.max(1, Number(option("warmup", "1")));
  const docs = Number(option("docs", "200"));
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { files: { id: string; expect: string; file?: string; pages?: number }[] };
  const entries = manifest.files.filter((f) => f.expect === "ok" && f.file).map((f) => ({ id: f.id, path: join(dir, f.file as string) }));
  const readPdf = await loadReadPdf();
  const refName = option("ref", "");
  const refTree: ReferenceTree | undefined = refName ? createReferenceTree(refName) : undefined;
  try {
    await measure(rounds, warmup, docs, entries, readPdf, refTree, args.includes("--bare"));
  } finally {
    refTree?.remove();
  }
}

/** Wall and CPU milliseconds of one read. */
interface Timed {
  ms: number;
  cpuMs: number;
}

/** A readPdf module on a thread of its own (pdf-ab-side.ts): the wall and thread CPU time it reports for each document. */
async function startSide(module: string): Promise<{ read(bytes: Uint8Array): Promise<Timed>; stop(): void }> {
  const worker = new Worker(join(import.meta.dir, "pdf-ab-side.ts"));
  let answer: ((reply: Timed) => void) | undefined;
  worker.onmessage = (event) => answer?.(event.data);
  const ask = (message: unknown): Promise<Timed> =>
    new Promise((resolve) => {
      answer = resolve;
      worker.postMessage(message);
    });
  await ask({ module });
  return {
    read: async (bytes) => {
      const { ms, cpuMs } = await ask({ bytes });
      return { ms, cpuMs };
    },
    stop: () => worker.terminate(),
  };
}

async function measure(
  rounds: number,
  warmup: number,
  docs: number,
  entries: { id: string; path: string }[],
  readPdf: Awaited<ReturnType<typeof loadReadPdf>>,
  refTree: ReferenceTree | undefined,
  bare: boolean,
): Promise<void> {
  const refSide = refTree ? await startSide(moduleIn(refTree.dir, "src/web/pdf/pdf.ts")) : undefined;
  const bareSide = bare ? await startSide(join(import.meta.dir, "pdf-bare.ts")) : undefined;
  const ourSide = refTree || bare ? await startSide(join(import.meta.dir, "../../src/web/pdf/pdf.ts")) : undefined;
  const timeOurs = async (doc: Uint8Array): Promise<Timed> => {
    if (ourSide) return ourSide.read(doc);
    const t = performance.now();
    const cpu = process.cpuUsage();
    await readPdf(doc);
    const used = process.cpuUsage(cpu);
    return { ms: performance.now() - t, cpuMs: (used.user + used.system) / 1000 };
  };
  const pdftotextVersion = Bun.spawnSync(["pdftotext", "-v"], { stderr: "pipe" }).stderr.toString().split("\n")[0];
  console.log(`files: ${entries.map((e) => e.id).join(" ")} (${entries.length}); ${pdftotextVersion}; bun ${Bun.version}; rounds ${rounds}; warm-up passes ${warmup}`);

  const pagesOf = new Map<string, number>();
  for (let pass = 0; pass < warmup; pass++) {
    for (const e of entries) pagesOf.set(e.id, (await readPdf(new Uint8Array(readFileSync(e.path)))).page_count); // also the warm-up passes
  }
  const totalPages = [...pagesOf.values()].reduce((a, b) => a + b, 0);
  /** pdftotext's CPU milliseconds (user and system) for the file. */
  const runPdftotext = (path: string): number => {
    const run = Bun.spawnSync(["pdftotext", "-enc", "UTF-8", path, "-"], { stdout: "pipe", stderr: "ignore" });
    if (run.exitCode !== 0) throw new Error(`pdftotext failed on ${path}`);
    return Number(run.resourceUsage.cpuTime.total) / 1000;
  };
  for (const e of entries) runPdftotext(e.path);
  const bytes = new Map(entries.map((e) => [e.id, new Uint8Array(readFileSync(e.path))]));
  const others = [
    ...(refSide && refTree ? [{ name: `readPdf at ${refTree.name}`, key: "ref", side: refSide }] : []),
    ...(bareSide ? [{ name: "mupdf alone", key: "bare", side: bareSide }] : []),
  ].map((o) => {
    const totals = { ms: 0, cpuMs: 0, perDoc: [] as number[] };
    /** Reads the document on this side and adds its times to the side's totals. */
    const read = async (doc: Uint8Array): Promise<void> => {
      const { ms, cpuMs } = await o.side.read(doc);
      totals.ms += ms;
      totals.cpuMs += cpuMs;
      totals.perDoc.push(ms);
    };
    return Object.assign(totals, o, { read });
  });
  for (let pass = 0; pass < warmup; pass++) {
    for (const e of entries) {
      for (const o of others) await o.side.read(bytes.get(e.id) as Uint8Array);
      await ourSide?.read(bytes.get(e.id) as Uint8Array);
    }
  }

  // cold: one fresh process per document, each engine
  const coldOurs: number[] = [];
  const coldPoppler: number[] = [];
  for (const e of entries) {
    let t = performance.now();
    const child = Bun.spawnSync([process.execPath, import.meta.path, "--child-one", e.path], { stdout: "pipe", stderr: "pipe" });
    coldOurs.push(performance.now() - t);
    if (child.exitCode !== 0) throw new Error(`cold read failed on ${e.id}: ${child.stderr.toString()}`);
    t = performance.now();
    runPdftotext(e.path);
    coldPoppler.push(performance.now() - t);
  }

  // warm: interleave the engines per round so that machine noise hits both alike
  const perDocOurs: number[] = [];
  const perDocPoppler: number[] = [];
  let oursMs = 0;
  let popplerMs = 0;
  const cpu = { ours: 0, poppler: 0 };
  const readOurs = async (doc: Uint8Array): Promise<void> => {
    const { ms, cpuMs } = await timeOurs(doc);
    cpu.ours += cpuMs;
    oursMs += ms;
    perDocOurs.push(ms);
  };
  const compilersBefore = compilerThreadsMs();
  for (let r = 0; r < rounds; r++) {
    for (const e of entries) {
      const doc = bytes.get(e.id) as Uint8Array;
      // The readPdf sides take turns at each place in the order, the first one reading right after the previous
      // document's pdftotext process (which leaves the caches cold): side k of n goes first in rounds k, k + n, ...
      const order = [readOurs, ...others.map((o) => o.read)];
      for (let k = 0; k < order.length; k++) await (order[(k + r) % order.length] as (doc: Uint8Array) => Promise<void>)(doc);
      const t = performance.now();
      cpu.poppler += runPdftotext(e.path);
      const poppler = performance.now() - t;
      popplerMs += poppler;
      perDocPoppler.push(poppler);
    }
  }
  const compilersAfter = compilerThreadsMs();
  for (const o of others) o.side.stop();
  ourSide?.stop();
  const pages = totalPages * rounds;

  const rss = Bun.spawnSync([process.execPath, import.meta.path, "--child-rss", String(docs), ...entries.map((e) => e.path)], { stdout: "pipe", stderr: "pipe" });
  if (rss.exitCode !== 0) throw new Error(`rss child failed: ${rss.stderr.toString()}`);
  const memory = JSON.parse(rss.stdout.toString()) as { startMb: number; peakMb: number; endMb: number; maxRssMb: number };

  const row = (name: string, cold: number[], perDoc: number[], ms: number): string =>
    `${name.padEnd(18)} ${(pages / (ms / 1000)).toFixed(0).padStart(7)} ${median(perDoc).toFixed(1).padStart(14)} ${percentile(perDoc, 0.95).toFixed(1).padStart(11)} ${median(cold).toFixed(1).padStart(13)}`;
  console.log(`\n${totalPages} pages per pass, ${pages} pages warm`);
  console.log(`${"engine".padEnd(18)} ${"pages/s".padStart(7)} ${"warm ms/doc p50".padStart(14)} ${"warm ms p95".padStart(11)} ${"cold ms/doc p50".padStart(13)}`);
  console.log(row("readPdf (mupdf)", coldOurs, perDocOurs, oursMs));
  console.log(row("pdftotext", coldPoppler, perDocPoppler, popplerMs));
  for (const o of others) console.log(`${o.name.padEnd(18)} ${(pages / (o.ms / 1000)).toFixed(0).padStart(7)} ${median(o.perDoc).toFixed(1).padStart(14)} ${percentile(o.perDoc, 0.95).toFixed(1).padStart(11)}             -`);
  const perCpuSecond = (ms: number): string => (pages / (ms / 1000)).toFixed(0);
  console.log(
    `\npages per CPU second (warm passes): readPdf ${perCpuSecond(cpu.ours)}, pdftotext ${perCpuSecond(cpu.poppler)}` +
      others.map((o) => `, ${o.name} ${perCpuSecond(o.cpuMs)}`).join("") +
      (ourSide ? " (readPdf sides: their threads' CPU)" : " (readPdf: this process's CPU)"),
  );
  const compilerMs = compilersAfter === undefined || compilersBefore === undefined ? undefined : (compilersAfter - compilersBefore) / rounds;
  if (compilerMs !== undefined) {
    console.log(
      `compiler threads (JITWorker, Wasm tier-up) during the warm passes: ${compilerMs.toFixed(1)} ms CPU per pass` +
        (ourSide ? `; readPdf's wall time is ${((oursMs / cpu.ours - 1) * 100).toFixed(0)}% above its thread's CPU time` : ""),
    );
  }
  console.log(
    `peak RSS over ${docs} documents (fresh process): ${memory.peakMb.toFixed(0)} MB sampled, ${memory.maxRssMb.toFixed(0)} MB maxrss; ` +
      `${memory.startMb.toFixed(0)} MB after loading, ${memory.endMb.toFixed(0)} MB at the end`,
  );
  const summaryOf = (key: string, ms: number, cpuMs: number): string =>
    `${key}_pages_per_s=${(pages / (ms / 1000)).toFixed(0)} ${key}_ratio_to_pdftotext=${(popplerMs / ms).toFixed(2)} ${key}_cpu_ratio_to_pdftotext=${(cpu.poppler / cpuMs).toFixed(2)} `;
  console.log(
    `SUMMARY warm_pages_per_s=${(pages / (oursMs / 1000)).toFixed(0)} pdftotext_pages_per_s=${(pages / (popplerMs / 1000)).toFixed(0)} ` +
      `warm_ms_p50=${median(perDocOurs).toFixed(1)} pdftotext_ms_p50=${median(perDocPoppler).toFixed(1)} ` +
      `ratio_to_pdftotext=${(popplerMs / oursMs).toFixed(2)} cpu_ratio_to_pdftotext=${(cpu.poppler / cpu.ours).toFixed(2)} ` +
      others.map((o) => summaryOf(o.key, o.ms, o.cpuMs)).join("") +
      (compilerMs === undefined ? "" : `compiler_ms_per_pass=${compilerMs.toFixed(1)} `) +
      `cold_ms_p50=${median(coldOurs).toFixed(1)} pdftotext_cold_ms_p50=${median(coldPoppler).toFixed(1)} peak_rss_mb=${Math.max(memory.peakMb, memory.maxRssMb).toFixed(0)}`,
  );
}

/**
 * CPU milliseconds used so far by this process's compiler threads, from /proc (undefined off Linux). Linux keeps a
 * thread name's first 15 characters, and JavaScriptCore sets the last 15 of a longer one: "Wasm Worklist Helper
 * Thread" reads "t Helper Thread".
 */
function compilerThreadsMs(): number | undefined {
  const ticksPerSecond = 100; // USER_HZ, the unit of /proc's utime and stime
  try {
    let ms = 0;
    for (const task of readdirSync("/proc/self/task")) {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      if (name !== "JITWorker" && name !== "t Helper Thread") continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ms += ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
    }
    return ms;
  } catch {
    return undefined;
  }
}

function median(xs: number[]): number {
  return percentile(xs, 0.5);
}

function percentile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}
