/**
 * @module plugin/context — the capabilities a plugin's `run` receives. Deliberately no wallet,
 * no payment state and no HTTP objects (DESIGN §2: payment wraps work; work knows nothing of it).
 */
import type { ModelAccess } from "./model-access.ts";
import type { Logger } from "../log.ts";
import type { ModuleFacets } from "../module/define.ts";
import type { ManagerState } from "../store/settings.ts";
import type { PluginStore } from "../store/plugin-kv.ts";

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

/**
 * What the rooms above the contract hand every call: the web room its engine and search (web/facet.ts).
 * Each merges its own in, beside the code that builds it, as Hono's ContextVariableMap; the contract
 * imports none of them.
 */
export interface PluginFacets {}

/** Each feature module's facet (`capital`, `crawl`, …) comes in through ModuleFacets (module/define.ts, merged in by its module.ts). */
export interface PluginContext extends ModuleFacets, PluginFacets {
  /** Aborts when the declared timeout passes or the caller goes away; pass it to every await that can take long. */
  readonly signal: AbortSignal;
  readonly log: Logger;
  /** Key-value storage scoped to this plugin's id; every method returns a Promise (await it). */
  readonly store: PluginStore;
  /** The manager's open_for_work state, read at most a second ago (read-only). */
  readonly manager: () => ManagerState;
  /** The skills this server sells, with prices (read-only; the capabilities skill reports them). */
  readonly skills: () => readonly SkillSummary[];
  /** The language model, when the operator configured one (`llm.configured`). */
  readonly llm: ModelAccess;
  readonly requestId: string;
  readonly now: () => Date;
}
