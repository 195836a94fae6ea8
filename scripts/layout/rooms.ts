/**
 * The rooms of src/ in layers (docs/layout.md, "Rooms in layers"): a room is a top folder of src/ or
 * a file directly in src/. A room imports only rooms of lower layers; an import of its own layer or of
 * a higher one runs back up, and test/layout-rooms.test.ts fails on it (none is left: issue 39).
 */
import { importGraph } from "./import-graph.ts";

/** Bottom first. */
export const LAYERS: readonly (readonly string[])[] = [
  ["brief", "json-depth.ts", "log.ts", "logs", "module-errors.generated.ts", "runtime", "store"],
  ["deploy", "errors.ts", "memory-valve.ts"],
  ["module", "x402"],
  ["plugin", "refunds", "evidence", "fetch-identity"],
  ["paid-call", "web"],
  ["http", "search", "llm", "x402-payments.ts"],
  ["config.ts"],
  ["configured-payments.ts", "log-output.ts", "crawl", "jobs"],
  ["a2a", "buyer"],
  ["docs"],
  ["directory", "mcp"],
  ["capital", "quotes", "grounding"],
  ["modules.generated.ts", "module-tables.generated.ts"],
  ["database.ts"],
  ["admin", "app.ts", "sdk.ts"],
  ["serve.ts"],
  ["loader"],
  ["doctor"],
  ["boot.ts"],
  ["cli"],
  ["command.ts"],
  ["main.ts"],
];

/** `capital/board.ts` → "capital"; `app.ts` → "app.ts". */
export function roomOf(file: string): string {
  return file.includes("/") ? (file.split("/")[0] as string) : file;
}

export const layerOf: ReadonlyMap<string, number> = new Map(LAYERS.flatMap((rooms, layer) => rooms.map((room) => [room, layer] as const)));

/** Every import of a room of the same or a higher layer ("a/x.ts imports b/y.ts"), and the rooms no layer holds. */
export function roomArrows(graph = importGraph()): { backUp: string[]; unplaced: string[] } {
  const backUp: string[] = [];
  const unplaced = new Set<string>();
  for (const [file, targets] of graph) {
    const from = roomOf(file);
    const fromLayer = layerOf.get(from);
    if (fromLayer === undefined) unplaced.add(from);
    for (const target of targets) {
      const to = roomOf(target);
      // Outside src/ (a script it runs by path) or inside its own room.
      if (to === ".." || to === from) continue;
      const toLayer = layerOf.get(to);
      if (toLayer === undefined) unplaced.add(to);
      else if (fromLayer !== undefined && toLayer >= fromLayer) backUp.push(`${file} imports ${target}`);
    }
  }
  return { backUp: backUp.sort(), unplaced: [...unplaced].sort() };
}
