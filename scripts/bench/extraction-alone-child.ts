/**
 * The process that only extracts, for extraction-alone.ts: bundled and minified as the binary is, run in its own
 * Bun process, it extracts pages on as many Worker threads as the server has extraction threads, and nothing
 * else. Its parent reads this process's CPU (every thread: the workers, JIT, collector) from /proc around the
 * timed part, as it reads the server's.
 *
 * Main thread: argv JOB_FILE THREADS. It starts the threads, tells its parent "warm" once each page has been
 * extracted once (the server's warm-up reads each page once too), waits for "go", then tells "done" when the
 * threads have made the job's `extractions`. The threads take the next extraction from one shared counter, as the
 * server's pool hands the next page to the thread that is free, without a message per page.
 */
import { readFileSync } from "node:fs";
import { extractHtmlSync } from "../../src/web/extract/extract.ts";

/** What the parent writes to JOB_FILE. */
export interface ExtractionJob {
  html: string[];
  urls: string[];
  markdown: boolean;
  /** Extractions in the timed part, in page order round and round (page k % pages), as the reads take them. */
  extractions: number;
}

interface ThreadStart {
  jobFile: string;
  /** [0]: next warm-up page; [1]: next timed extraction. */
  counters: SharedArrayBuffer;
}

type FromThread = "warm" | "done";

const WARM = 0;
const TIMED = 1;

function extractOne(job: ExtractionJob, page: number): void {
  try {
    extractHtmlSync({ html: job.html[page]!, url: job.urls[page]!, markdown: job.markdown });
  } catch {
    // A page the extractor refuses costs what it cost, as in the server.
  }
}

function runThread(): void {
  let job: ExtractionJob;
  let counters: Int32Array;
  self.onmessage = (event: MessageEvent<ThreadStart | "go">) => {
    if (event.data !== "go") {
      job = JSON.parse(readFileSync(event.data.jobFile, "utf8")) as ExtractionJob;
      counters = new Int32Array(event.data.counters);
      for (let page = Atomics.add(counters, WARM, 1); page < job.html.length; page = Atomics.add(counters, WARM, 1)) extractOne(job, page);
      postMessage("warm" satisfies FromThread);
      return;
    }
    for (let k = Atomics.add(counters, TIMED, 1); k < job.extractions; k = Atomics.add(counters, TIMED, 1)) extractOne(job, k % job.html.length);
    postMessage("done" satisfies FromThread);
  };
}

function runMain(): void {
  const [jobFile, threadCount] = [process.argv[2]!, Number(process.argv[3] ?? "1")];
  const counters = new SharedArrayBuffer(8);
  const threads = Array.from({ length: threadCount }, () => new Worker(import.meta.url, { type: "module" }));
  const allSaid = (word: FromThread) =>
    Promise.all(threads.map((thread) => new Promise<void>((resolve) => thread.addEventListener("message", (e) => e.data === word && resolve(), { once: false }))));
  const warm = allSaid("warm");
  for (const thread of threads) thread.postMessage({ jobFile, counters } satisfies ThreadStart);
  void warm.then(() => {
    process.send?.("warm");
    process.once("message", () => {
      const done = allSaid("done");
      for (const thread of threads) thread.postMessage("go");
      void done.then(() => process.send?.("done"));
    });
  });
}

if (Bun.isMainThread) runMain();
else runThread();
