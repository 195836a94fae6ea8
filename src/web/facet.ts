/**
 * @module web/facet — what the web room hands every plugin call, merged into PluginContext
 * (plugin/context.ts PluginFacets) so the plugin contract names no room above it.
 */
import type { WebEngine } from "./engine.ts";
import type { SearchEngine } from "./search-engine.ts";

export interface WebFacets {
  /** The guarded fetcher and extractor shared by every web feature. */
  readonly web: WebEngine;
  /** The search engine, when the operator configured one (endpoints that need it declare `needs: ["search"]`). */
  readonly search?: SearchEngine | undefined;
}

declare module "../plugin/context.ts" {
  interface PluginFacets extends WebFacets {}
}
