/**
 * A revision's readPdf and the working tree's in one process, taking turns document by document over the PDF
 * bench's readable files: the way to claim a PDF change's cost on a machine whose speed drifts (separate runs of
 * pdf-throughput.ts swing by a fifth here). Prints each side's total time and the ratio, and how many pages read
 * differently, and how many documents' whole results differ (warnings, counts, hashes, error codes; all but
 * extraction_ms), over the bench's files (every one, readable or not) and test/fixtures/pdf/. Each side reads on
 * a thread of its own (pdf-ab-side.ts), with its own mupdf instance.
 *   bun scripts/bench/pdf-ab.ts --ref REV [--rounds 8] [--dir /work/shared/bench/pdf]
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { option } from "./dev-set.ts";
import { createReferenceTree, moduleIn } from "./reference-tree.ts";

const ref = option("ref", "HEAD");
const rounds = Number(option("rounds", "8"));
const dir = option("dir", "/work/shared/bench/pdf");
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { files: { id: string; file?: string; expect: string }[] } | { id: string; expect: string }[];
const entries = (Array.isArray(manifest) ? manifest : manifest.files).filter((f) => f.expect === "ok");
const docs = entries.map((f) => new Uint8Array(readFileSync(join(dir, "data", `${f.id}.pdf`))));

// Compared once, untimed: every PDF of the bench's data and of the test fixtures.
const checked = [join(dir, "data"), join(import.meta.dir, "../../test/fixtures/pdf")].flatMap((folder) =>
  readdirSync(folder)
    .filter((f) => f.endsWith(".pdf"))
    .sort()
    .map((f) => ({ name: f, bytes: new Uint8Array(readFileSync(join(folder, f))) })),
);

type Reply = { ms: number; pages: string[]; result: string };

/** A side: its own thread and mupdf instance (pdf-ab-side.ts), reading one document at a time. */
async function startSide(module: string): Promise<{ read(bytes: Uint8Array): Promise<Reply>; stop(): void }> {
  const worker = new Worker(join(import.meta.dir, "pdf-ab-side.ts"));
  let answer: ((reply: unknown) => void) | undefined;
  worker.onmessage = (event) => answer?.(event.data);
  worker.onerror = (event) => {
    console.error(`side ${module}: ${event.message}`);
    process.exit(1);
  };
  const ask = <T>(message: unknown): Promise<T> =>
    new Promise((resolve) => {
      answer = resolve as (reply: unknown) => void;
      worker.postMessage(message);
    });
  await ask({ module });
  return { read: (bytes) => ask<Reply>({ bytes }), stop: () => worker.terminate() };
}

const tree = createReferenceTree(ref);
try {
  const before = await startSide(moduleIn(tree.dir, "src/web/pdf/pdf.ts"));
  const after = await startSide(join(import.meta.dir, "../../src/web/pdf/pdf.ts"));
  type Side = typeof before;
  const ms = { ref: 0, tree: 0 };
  let differ = 0;
  for (let round = 0; round <= rounds; round++) {
    for (const doc of docs) {
      const order: ["ref" | "tree", Side][] = round % 2 ? [["ref", before], ["tree", after]] : [["tree", after], ["ref", before]];
      const texts: Record<string, string[]> = {};
      for (const [side, reader] of order) {
        const reply = await reader.read(doc);
        texts[side] = reply.pages;
        // Round 0 warms both sides up.
        if (round > 0) ms[side] += reply.ms;
      }
      if (round === 0) differ += (texts.ref ?? []).filter((t, i) => t !== texts.tree?.[i]).length;
    }
  }
  const differing: string[] = [];
  for (const { name, bytes } of checked) {
    if ((await before.read(bytes)).result !== (await after.read(bytes)).result) differing.push(name);
  }
  before.stop();
  after.stop();
  console.log(`${docs.length} documents, ${rounds} rounds, turns by document, each side on its own thread`);
  console.log(`${tree.name}: ${ms.ref.toFixed(0)} ms   working tree: ${ms.tree.toFixed(0)} ms   ratio ${(ms.tree / ms.ref).toFixed(3)}   pages read differently: ${differ}`);
  console.log(`whole results compared on ${checked.length} PDFs (bench and fixtures): ${differing.length} differ${differing.length > 0 ? ` (${differing.join(" ")})` : ""}`);
} finally {
  tree.remove();
}
