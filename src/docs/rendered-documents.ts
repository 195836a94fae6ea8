/**
 * @module docs/rendered-documents — the text of a free document, rendered again only when what it
 * reads has changed. A route's `reusedWhile` names its live inputs as one key; while the key stays
 * the same the last text (and its ETag) is served, as the same ready bytes. Routes without one
 * render on every request.
 */
import { createHash } from "node:crypto";
import type { DocsContext } from "./docs-context.ts";
import type { FreeRoute } from "./free-routes.ts";

export interface RenderedDocument {
  readonly text: string;
  /** Strong ETag of the text, for routes with `cacheSeconds` and routes whose text is reused (made once per rendering). */
  readonly etag: string | undefined;
}

const bodies = new WeakMap<RenderedDocument, Blob>();

/**
 * The document's UTF-8 bytes, encoded once per rendering: a reused document is answered from the
 * same immutable Blob, not encoded again per request (a 15 KB capabilities text cost more to encode
 * per answer than the rest of the route).
 */
export function documentBody(document: RenderedDocument): Blob {
  let body = bodies.get(document);
  if (!body) bodies.set(document, (body = new Blob([document.text])));
  return body;
}

/** Renders a route's document; synchronous unless the route reads the store (then a Promise). */
export function createDocumentRenderer(): (route: FreeRoute, docs: DocsContext) => RenderedDocument | Promise<RenderedDocument> {
  const kept = new Map<string, { readonly key: string; readonly document: RenderedDocument }>();
  const finish = (route: FreeRoute, key: string | undefined, body: unknown): RenderedDocument => {
    const text = route.contentType === "application/json" ? JSON.stringify(body) : String(body);
    const etag = route.cacheSeconds || key !== undefined ? `"${createHash("sha256").update(text).digest("base64url").slice(0, 27)}"` : undefined;
    const document = { text, etag };
    if (key !== undefined) kept.set(route.path, { key, document });
    return document;
  };
  return (route, docs) => {
    const key = route.reusedWhile?.(docs);
    const last = kept.get(route.path);
    if (key !== undefined && last?.key === key) return last.document;
    const body = route.render(docs);
    return body instanceof Promise ? body.then((b) => finish(route, key, b)) : finish(route, key, body);
  };
}
