/**
 * The layout of src/ in figures: files per folder, the import circles, the largest files.
 *   bun scripts/layout/report.ts [--largest N]
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { arrows, circles, importGraph, SRC, sourceFiles } from "./import-graph.ts";

const { values } = parseArgs({ options: { largest: { type: "string", default: "10" } } });
const files = sourceFiles(SRC).map((path) => path.slice(SRC.length + 1));

const perFolder = new Map<string, number>();
for (const file of files) perFolder.set(dirname(file), (perFolder.get(dirname(file)) ?? 0) + 1);
console.log(`source files (tests and .d.ts left out): ${files.length}`);
for (const [folder, count] of [...perFolder].sort()) console.log(`  ${String(count).padStart(3)}  src/${folder === "." ? "" : `${folder}/`}`);

const found = circles(importGraph());
console.log(`import circles (type imports included): ${found.length}`);
for (const group of found) console.log(`  ${group.join(" ↔ ")}`);

const lines = files.map((file) => ({ file, lines: readFileSync(join(SRC, file), "utf8").split("\n").length }));
console.log(`largest files:`);
for (const { file, lines: count } of lines.sort((a, b) => b.lines - a.lines).slice(0, Number(values.largest))) console.log(`  ${String(count).padStart(5)}  src/${file}`);

const forbidden = arrows(importGraph(), ["http/", "web/", "capital/"], ["jobs/"]);
console.log(`forbidden arrows (http/, web/, capital/ → jobs/): ${forbidden.length}`);
for (const arrow of forbidden) console.log(`  ${arrow}`);
