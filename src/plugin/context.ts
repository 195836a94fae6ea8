/**
 * @module plugin/context — the capabilities a plugin's `run` receives. Deliberately no wallet,
 * no payment state and no HTTP objects (DESIGN §2: payment wraps work; work knows nothing of it).
 */
import type { CrawlFacet } from "../crawl/crawl-facet.ts";
import type { ModelAccess } from "./model-access.ts";
import type { Logger } from "../log.ts";
import type { ModuleFacets } from "../module/define.ts";
import type { ManagerState } from "../store/settings.ts";
import type { PluginStore } from "../store/plugin-kv.ts";
import type { WebEngine } from "../web/engine.ts";
import type { SearchEngine } from "../web/search-engine.ts";

/** One skill as buyers see it in the catalogue (read-only). */
export interface SkillSummary {
  readonly id: string;
  /** Its list price (plugin/price.ts listPrice: the first configured network's; payments off: Base's), e.g. "0.002". */
  readonly priceUsd: string;
  readonly async: boolean;
  readonly timeoutSec: number;
  /** false: it would refuse with 503 here (it needs a model and none is configured). */
  readonly available: boolean;
}

/** Each feature module's facet (`capital`, …) comes in through ModuleFacets (module/define.ts, merged in by its module.ts). */
export interface PluginContext extends ModuleFacets {
  /** Aborts when the declared timeout passes or the caller goes away; pass it to every await that can take long. */
  readonly signal: AbortSignal;
  readonly log: Logger;
  /** Key-value storage scoped to this plugin's id; every method returns a Promise (await it). */
  readonly store: PluginStore;
  /** The guarded fetcher and extractor shared by every web feature. */
  readonly web: WebEngine;
  /** The search engine, when the operator configured one (endpoints that need it declare `needs: ["search"]`). */
  readonly search?: SearchEngine | undefined;
  /** The manager's open_for_work state, read at most a second ago (read-only). */
  readonly manager: () => ManagerState;
  /** The skills this server sells, with prices (read-only; the capabilities skill reports them). */
  readonly skills: () => readonly SkillSummary[];
  /** The language model, when the operator configured one (`llm.configured`). */
  readonly llm: ModelAccess;
  /** web/crawl's crawls, bound to this call's payer (absent where no crawl service runs). */
  readonly crawls?: CrawlFacet;
  readonly requestId: string;
  readonly now: () => Date;
}
