/**
 * The import graph of src/: every relative import of every source file (type imports, `export … from`
 * and `import()` included), read with TypeScript's own pre-processor, and the circles in it.
 * test/import-graph.test.ts keeps it free of circles; scripts/layout/report.ts prints it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export const SRC = resolve(import.meta.dir, "..", "..", "src");

/** Source files of a folder, tests and declaration files left out. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** File (relative to src/) → the src/ files it imports (relative to src/). */
export function importGraph(root = SRC): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((name) => name.startsWith("./") || name.startsWith("../"))
      .map((name) => relative(root, resolve(dirname(file), name)));
    graph.set(relative(root, file), [...new Set(targets)]);
  }
  return graph;
}

/** Groups of files that import each other, directly or round about (Tarjan's strongly connected components). */
export function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(group.sort());
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** Imports from a folder of `from` into a folder of `to` (folders relative to src/, e.g. "http/"). */
export function arrows(graph: Map<string, string[]>, from: readonly string[], to: readonly string[]): string[] {
  const under = (file: string, folders: readonly string[]) => folders.some((folder) => file.startsWith(folder));
  return [...graph].flatMap(([file, targets]) =>
    under(file, from) ? targets.filter((target) => under(target, to)).map((target) => `${file} imports ${target}`) : [],
  );
}
