/**
 * No import circles in src/, type imports included, and none of the arrows the layout forbids
 * (docs/layout.md). The graph is read with TypeScript's own pre-processor (scripts/layout/import-graph.ts).
 */
import { afterAll, describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arrows, circles, importGraph } from "../scripts/layout/import-graph.ts";

/**
 * A paid web read or a capital commit never climbs into the job worker's room, and the refund
 * ledger and payer serve jobs and capital alike without knowing either.
 */
const FORBIDDEN: readonly { readonly from: readonly string[]; readonly to: readonly string[] }[] = [
  { from: ["http/", "web/", "capital/"], to: ["jobs/"] },
  { from: ["refunds/"], to: ["jobs/", "capital/"] },
];

describe("src/ import graph", () => {
  const graph = importGraph();

  it("has no circle", () => {
    expect(circles(graph).map((group) => group.join(" ↔ "))).toEqual([]);
  });

  it("has none of the forbidden arrows", () => {
    expect(FORBIDDEN.flatMap(({ from, to }) => arrows(graph, from, to))).toEqual([]);
  });

  it("keeps each payment family's chain code in its folder: nothing outside x402/ imports x402/evm/ or x402/avm/", () => {
    const outside = [...graph.keys()].filter((file) => !file.startsWith("x402/"));
    expect(arrows(graph, outside, ["x402/evm/", "x402/avm/"])).toEqual([]);
  });
});

describe("the import graph reader", () => {
  const root = mkdtempSync(join(tmpdir(), "tb-import-graph-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write("a/one.ts", 'import type { Two } from "../b/two.ts";\nexport type One = Two;\n');
  write("b/two.ts", 'export type Two = string;\nexport const load = () => import("../c/three.ts");\n');
  write("c/three.ts", 'export { type One } from "../a/one.ts";\n');
  write("c/alone.ts", 'import "node:fs";\nimport { x } from "some-package";\nexport const y = x;\n');
  write("c/alone.test.ts", 'import "../a/one.ts";\n');

  it("sees type imports, import() and export … from, and finds the circle they close", () => {
    const graph = importGraph(root);
    expect([...graph.keys()].sort()).toEqual(["a/one.ts", "b/two.ts", "c/alone.ts", "c/three.ts"]);
    expect(circles(graph)).toEqual([["a/one.ts", "b/two.ts", "c/three.ts"]]);
  });

  it("names an arrow between folders", () => {
    expect(arrows(importGraph(root), ["a/"], ["b/"])).toEqual(["a/one.ts imports b/two.ts"]);
  });
});
