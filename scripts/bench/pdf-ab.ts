/**
 * A revision's readPdf and the working tree's in one process, taking turns document by document over the PDF
 * bench's readable files: the way to claim a PDF change's cost on a machine whose speed drifts (separate runs of
 * pdf-throughput.ts swing by a fifth here). Prints each side's total time and the ratio, and how many pages read
 * differently.
 *   bun scripts/bench/pdf-ab.ts --ref REV [--rounds 8] [--dir /work/shared/bench/pdf]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { option } from "./dev-set.ts";
import { createReferenceTree, moduleIn } from "./reference-tree.ts";

const ref = option("ref", "HEAD");
const rounds = Number(option("rounds", "8"));
const dir = option("dir", "/work/shared/bench/pdf");
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { files: { id: string; file?: string; expect: string }[] } | { id: string; expect: string }[];
const entries = (Array.isArray(manifest) ? manifest : manifest.files).filter((f) => f.expect === "ok");
const docs = entries.map((f) => new Uint8Array(readFileSync(join(dir, "data", `${f.id}.pdf`))));

type ReadPdf = (bytes: Uint8Array) => Promise<{ pages: { text: string }[] }>;
const tree = createReferenceTree(ref);
try {
  const before = (await import(moduleIn(tree.dir, "src/web/pdf/pdf.ts"))).readPdf as ReadPdf;
  const after = (await import(join(import.meta.dir, "../../src/web/pdf/pdf.ts"))).readPdf as ReadPdf;
  const ms = { ref: 0, tree: 0 };
  let differ = 0;
  for (let round = 0; round <= rounds; round++) {
    for (const doc of docs) {
      const order: ["ref" | "tree", ReadPdf][] = round % 2 ? [["ref", before], ["tree", after]] : [["tree", after], ["ref", before]];
      const texts: Record<string, string[]> = {};
      for (const [side, read] of order) {
        const started = performance.now();
        texts[side] = (await read(doc)).pages.map((p) => p.text);
        // Round 0 warms both sides up.
        if (round > 0) ms[side] += performance.now() - started;
      }
      if (round === 0) differ += (texts.ref ?? []).filter((t, i) => t !== texts.tree?.[i]).length;
    }
  }
  console.log(`${docs.length} documents, ${rounds} rounds, turns by document`);
  console.log(`${tree.name}: ${ms.ref.toFixed(0)} ms   working tree: ${ms.tree.toFixed(0)} ms   ratio ${(ms.tree / ms.ref).toFixed(3)}   pages read differently: ${differ}`);
} finally {
  tree.remove();
}
