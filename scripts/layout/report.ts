/**
 * The layout of src/ in figures: files per folder, the import circles, the largest files.
 *   bun scripts/layout/report.ts [--largest N] [--src DIR]
 * --src reads another copy of src/ (e.g. `git archive REV src | tar -x -C /tmp/rev` then --src /tmp/rev/src).
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { arrows, circles, importGraph, SRC, sourceFiles } from "./import-graph.ts";

const { values } = parseArgs({ options: { largest: { type: "string", default: "10" }, src: { type: "string" } } });
const root = values.src ? resolve(values.src) : SRC;
const graph = importGraph(root);
const files = sourceFiles(root).map((path) => path.slice(root.length + 1));

const perFolder = new Map<string, number>();
for (const file of files) perFolder.set(dirname(file), (perFolder.get(dirname(file)) ?? 0) + 1);
console.log(`source files (tests and .d.ts left out): ${files.length}`);
for (const [folder, count] of [...perFolder].sort()) console.log(`  ${String(count).padStart(3)}  src/${folder === "." ? "" : `${folder}/`}`);

const found = circles(graph);
console.log(`import circles (type imports included): ${found.length}`);
for (const group of found) console.log(`  ${group.join(" ↔ ")}`);

const lines = files.map((file) => ({ file, lines: readFileSync(join(root, file), "utf8").split("\n").length }));
console.log(`largest files:`);
for (const { file, lines: count } of lines.sort((a, b) => b.lines - a.lines).slice(0, Number(values.largest))) console.log(`  ${String(count).padStart(5)}  src/${file}`);

const forbidden = arrows(graph, ["http/", "web/", "capital/"], ["jobs/"]);
console.log(`forbidden arrows (http/, web/, capital/ → jobs/): ${forbidden.length}`);
for (const arrow of forbidden) console.log(`  ${arrow}`);

// Rooms (first folder under src/; a file directly in src/ is a room of its own) that import each other round about.
const roomOf = (file: string) => (file.includes("/") ? `${file.split("/")[0]}/` : file);
const rooms = new Map<string, string[]>();
for (const [file, targets] of graph) {
  const from = roomOf(file);
  rooms.set(from, [...new Set([...(rooms.get(from) ?? []), ...targets.map(roomOf).filter((to) => to !== from)])]);
}
const roomCircles = circles(rooms);
console.log(`rooms importing each other round about (not yet enforced): ${roomCircles.length} group${roomCircles.length === 1 ? "" : "s"}`);
for (const group of roomCircles) console.log(`  ${group.join(" ")}`);
