/**
 * Page by page between extraction runs of the shared harness (run.sh --out DIR): pages below F1 0.5 by
 * source, and what changed from one run to the next (each page's F1 before and after, with a reference run's
 * beside it), so a change's wins and losses are visible by source. The source of a page is the "source" field
 * of the wide set's ground truth, else the id's prefix.
 *
 *   node_modules/.bin/bun scripts/bench/extraction-compare.ts AFTER_DIR [--before DIR] [--ref DIR] [--truth ground-truth.json]
 */
import { readFileSync } from "node:fs";
import { option } from "./dev-set.ts";

interface PageRow {
  id: string;
  f1?: number;
  precision?: number;
  recall?: number;
}

const after = process.argv.slice(2).find((arg, i, all) => !arg.startsWith("--") && !(all[i - 1] ?? "").startsWith("--"));
if (!after) {
  console.error("usage: extraction-compare.ts AFTER_DIR [--before DIR] [--ref DIR] [--truth ground-truth.json]");
  process.exit(2);
}
const before = option("before", "");
const ref = option("ref", "");
const truthPath = option("truth", "/work/shared/bench/extraction/wide/ground-truth.json");
let truth: Record<string, { source?: string }> = {};
try {
  truth = JSON.parse(readFileSync(truthPath, "utf8"));
} catch {
  // sources then come from the id's prefix
}
const sourceOf = (id: string) => truth[id]?.source ?? id.split("-")[0] ?? id;
const load = (dir: string) =>
  new Map(readFileSync(`${dir}/pages.jsonl`, "utf8").trim().split("\n").map((line) => JSON.parse(line) as PageRow).map((row) => [row.id, row]));
const f3 = (row: PageRow | undefined) => (row?.f1 ?? 0).toFixed(3);

const now = load(after);
const reference = ref ? load(ref) : undefined;
const low = new Map<string, string[]>();
for (const [id, row] of now) if ((row.f1 ?? 0) < 0.5) low.set(sourceOf(id), [...(low.get(sourceOf(id)) ?? []), id]);
for (const source of [...low.keys()].sort()) {
  const ids = low.get(source) ?? [];
  console.log(`below 0.5, ${source}: ${ids.length}  ${ids.map((id) => `${id} ${f3(now.get(id))}${reference ? ` (ref ${f3(reference.get(id))})` : ""}`).join(", ")}`);
}
if (before) {
  const then = load(before);
  const changes = [...now.keys()]
    .map((id) => ({ id, delta: (now.get(id)?.f1 ?? 0) - (then.get(id)?.f1 ?? 0) }))
    .filter((change) => Math.abs(change.delta) > 0.005)
    .sort((a, b) => a.delta - b.delta);
  const bySource = new Map<string, number>();
  for (const { id, delta } of changes) bySource.set(sourceOf(id), (bySource.get(sourceOf(id)) ?? 0) + delta);
  console.log(`${changes.length} pages change; sum of F1 changes by source: ${[...bySource].map(([source, sum]) => `${source} ${sum >= 0 ? "+" : ""}${sum.toFixed(3)}`).join(", ")}`);
  for (const { id, delta } of changes) {
    const row = now.get(id);
    console.log(`${delta >= 0 ? "+" : ""}${delta.toFixed(3)} ${id} ${f3(then.get(id))} -> ${f3(row)}${reference ? `  ref ${f3(reference.get(id))}` : ""}  P ${(row?.precision ?? 0).toFixed(2)} R ${(row?.recall ?? 0).toFixed(2)}`);
  }
}
