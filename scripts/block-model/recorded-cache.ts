/**
 * Every public source's pages recorded once (training.ts recordPage: today's text, the leaf blocks and their
 * features and labels), kept in .tmp/extraction/recorded.bin so that trying training choices (loso-proxy.ts) and
 * retraining (scripts/train-block-model.ts --cached) need not extract 3,100 pages again. The cache is used only
 * while the extraction code it was recorded with (every file of src/web/extract/, features included) is this
 * code; the pages' HTML is not kept.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { NUMERIC_FEATURES } from "../../src/web/extract/block-features.ts";
import { option } from "../bench/dev-set.ts";
import { loadSources, type SourceDirs } from "../bench/extraction-sources.ts";
import { recordPage, type RecordedPage } from "./training.ts";

const repoRoot = join(import.meta.dir, "..", "..");
/** The cache file; `--cache FILE` names another (a worktree whose .tmp/extraction is shared keeps its own). */
export const RECORDED_CACHE = option("cache", join(repoRoot, ".tmp/extraction/recorded.bin"));

/** The default source folders (docs/extraction-model.md says how to build them). */
export function defaultSourceDirs(wide: string): SourceDirs {
  return {
    wide,
    news: join(repoRoot, ".tmp/extraction/news"),
    trafeval: join(repoRoot, ".tmp/extraction/trafeval"),
    trafevalCurrent: join(repoRoot, ".tmp/extraction/trafeval-2026"),
    irResearch: join(repoRoot, ".tmp/extraction/ir-research"),
  };
}

/** The recorded pages of `dirs`: from the cache when it holds this code's features and these folders' pages, and `fresh` is not set. */
export function recordedPages(dirs: SourceDirs, fresh = false): { pages: RecordedPage[]; cached: boolean } {
  const extractDir = join(repoRoot, "src/web/extract");
  const code = createHash("sha256");
  for (const file of readdirSync(extractDir).sort()) if (file.endsWith(".ts")) code.update(file).update(readFileSync(join(extractDir, file)));
  // Which sources were found, not where: a worktree linking another checkout's folders reads the same cache.
  const found = Object.entries(dirs).filter(([, dir]) => dir !== undefined && existsSync(dir)).map(([name]) => name);
  const features = `${NUMERIC_FEATURES.join(",")} ${code.digest("hex")} ${found.join(",")}`;
  if (!fresh && existsSync(RECORDED_CACHE)) {
    const cached = deserialize(readFileSync(RECORDED_CACHE)) as { features: string; recorded: RecordedPage[] };
    if (cached.features === features) return { pages: cached.recorded, cached: true };
  }
  const pages = loadSources(dirs).map(recordPage).map((page) => ({ ...page, page: { ...page.page, html: "" } }));
  writeFileSync(RECORDED_CACHE, serialize({ features, recorded: pages }));
  return { pages, cached: false };
}
