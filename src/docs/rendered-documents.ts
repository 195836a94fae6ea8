/**
 * @module docs/rendered-documents — the text of a free document, rendered again only when what it
 * reads has changed. A route's `reusedWhile` names its live inputs as one key; while the key stays
 * the same the last text (and its ETag) is served. Routes without one render on every request.
 */
import { createHash } from "node:crypto";
import type { DocsContext } from "./docs-context.ts";
import type { FreeRoute } from "./free-routes.ts";

export interface RenderedDocument {
  readonly text: string;
  /** Strong ETag of the text, for routes with `cacheSeconds`. */
  readonly etag: string | undefined;
}

export function createDocumentRenderer(): (route: FreeRoute, docs: DocsContext) => Promise<RenderedDocument> {
  const kept = new Map<string, RenderedDocument & { key: string }>();
  return async (route, docs) => {
    const key = route.reusedWhile?.(docs);
    const last = kept.get(route.path);
    if (key !== undefined && last?.key === key) return last;
    const body = await route.render(docs);
    const text = route.contentType === "application/json" ? JSON.stringify(body) : String(body);
    const etag = route.cacheSeconds ? `"${createHash("sha256").update(text).digest("base64url").slice(0, 27)}"` : undefined;
    if (key !== undefined) kept.set(route.path, { key, text, etag });
    return { text, etag };
  };
}
