/**
 * The layout holds (docs/layout.md): src/web/'s rooms depend downwards only, and src/store/ knows no
 * feature. Reads every import of src/ and fails on one against the tables below, so a new file cannot
 * quietly undo the layout.
 */
import { describe, expect, it } from "bun:test";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { importGraph, SRC } from "../scripts/layout/import-graph.ts";

/** What each room may import besides itself. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  text: [],
  fetch: [],
  extract: ["text"],
  pdf: ["text"],
  compare: ["text"],
  filters: ["extract", "text"],
  threads: ["extract", "fetch", "filters", "pdf", "text"],
  render: ["fetch"],
  archive: ["render"],
};

/** The files of a room that code outside it may import (its doors); everything else is its inside. */
const DOORS: Record<string, readonly string[]> = {
  text: ["canonical-text.ts", "text-output.ts"],
  fetch: ["fetch-guard.ts", "target-guard.ts", "robots.ts", "decode.ts", "challenge.ts", "http-connector.ts", "resolver.ts"],
  extract: ["extract.ts", "source-text.ts", "content-parse.ts", "caller-selectors.ts"],
  pdf: ["pdf.ts", "pdf-schema.ts"],
  compare: ["compare.ts", "compare-schema.ts"],
  filters: ["ignore-selectors.ts", "line-patterns.ts", "line-filter.ts"],
  threads: ["extract-pool.ts", "pdf-thread.ts"],
  render: ["contract.ts", "renderer.ts", "render-config.ts", "browser-doctor.ts"],
  archive: ["warc-records.ts", "wacz-package.ts"],
};

/** Imports inside a room by a room that may not see it (render uses only fetch's guard). */
const NARROWER: Record<string, Record<string, readonly string[]>> = {
  render: { fetch: ["target-guard.ts"] },
  archive: { render: ["contract.ts"] },
  // An extraction thread decodes and checks the page's bytes it is handed (web/threads/extract-page.ts).
  threads: { extract: ["extract.ts", "content-parse.ts"], fetch: ["decode.ts", "challenge.ts"] },
};

/** `web/<room>/…` → room; `web/<file>` → "front"; outside web → undefined. */
function roomOf(path: string): string | undefined {
  const parts = path.split("/");
  if (parts[0] !== "web") return undefined;
  return parts.length > 2 ? (parts[1] as string) : "front";
}

function violations(): string[] {
  const found: string[] = [];
  for (const [file, targets] of importGraph()) {
    const from = roomOf(file);
    for (const target of targets) {
      const to = roomOf(target);
      if (to === undefined || to === from) continue;
      const where = `${file} imports ${target}`;
      const name = target.split("/").pop() as string;
      if (to === "front") {
        if (from !== undefined) found.push(`${where}: a room never imports web/'s front door`);
        continue;
      }
      if (!(to in MAY_IMPORT)) {
        found.push(`${where}: web/${to}/ is no room of the table`);
        continue;
      }
      if (from !== undefined && from !== "front" && !(MAY_IMPORT[from] ?? []).includes(to)) {
        found.push(`${where}: ${from}/ may not import ${to}/`);
        continue;
      }
      const doors = (from ? NARROWER[from]?.[to] : undefined) ?? DOORS[to] ?? [];
      if (from !== "front" && !doors.includes(name)) found.push(`${where}: not one of ${to}/'s doors (${doors.join(", ")})`);
    }
  }
  return found;
}

/** src/store/ holds the core tables and knows no feature: a feature's tables join in src/database.ts. */
function storeViolations(): string[] {
  const found: string[] = [];
  for (const [file, targets] of importGraph()) {
    if (!file.startsWith("store/")) continue;
    for (const target of targets) {
      if (!target.startsWith("store/") && !["errors.ts", "log.ts"].includes(target)) found.push(`${file} imports ${target}`);
    }
  }
  return found;
}

describe("src/store", () => {
  it("imports no feature module", () => {
    expect(storeViolations()).toEqual([]);
  });
});

describe("src/web layout", () => {
  it("has rooms that import only downwards, and only through each other's doors", () => {
    expect(violations()).toEqual([]);
  });

  it("knows every room it finds", () => {
    const rooms = readdirSync(join(SRC, "web")).filter((name) => statSync(join(SRC, "web", name)).isDirectory());
    expect(rooms.sort()).toEqual(Object.keys(MAY_IMPORT).sort());
  });
});
