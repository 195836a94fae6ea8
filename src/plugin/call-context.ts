/**
 * @module plugin/call-context — the context each plugin call receives (plugin/context.ts), built here
 * from the server's parts: the plugin's own store, the room facets (the web engine, search), the
 * manager's state, the skill list and each module's facet, built the first time the call reads it.
 * Everything a plugin calls on its context is defined here or below, so a plugin never calls back
 * into the rooms above that run it (docs/layout.md, "Walks").
 */
import type { Logger } from "../log.ts";
import type { ModuleCall, ModuleFacets, ModuleRuntime } from "../module/define.ts";
import type { SettingsStore } from "../store/settings.ts";
import type { PluginStore } from "../store/plugin-kv.ts";
import type { PluginContext, PluginFacets, SkillSummary } from "./context.ts";
import type { ModelAccess } from "./model-access.ts";
import type { PluginEntry, SkillEntry } from "./registry.ts";

/** A module whose runtime hands plugin calls a facet (`ctx[id]`). */
export interface FacetMaker {
  readonly id: string;
  readonly runtime: Required<Pick<ModuleRuntime, "facet">>;
}

export interface CallContextParts {
  readonly log: Logger;
  readonly store: { readonly settings: SettingsStore; pluginStore(pluginId: string): PluginStore };
  /** The rooms' facets every call carries (web/facet.ts: `web`, `search`). */
  readonly facets: PluginFacets;
  readonly skills: readonly SkillSummary[];
  readonly llm: ModelAccess;
  readonly now: () => Date;
  /** The modules' facets: the list is read per call, so the server fills it once the modules serve (they are built after these parts). */
  readonly moduleFacets: readonly FacetMaker[];
}

/** The clock when the server is given none (a function here, below every room that reads it). */
export const systemNow = (): Date => new Date();

export type ContextFor = (entry: PluginEntry | SkillEntry, signal: AbortSignal, requestId: string, call?: Pick<ModuleCall, "payer" | "origin">) => PluginContext;

export function callContexts({ log, store, facets, skills, llm, now, moduleFacets }: CallContextParts): ContextFor {
  const manager = () => store.settings.recentManager();
  const skillList = () => skills;
  return (entry, signal, requestId, call = {}) => {
    const context: Record<string, unknown> = {
      signal,
      log: log.child({ plugin: entry.id, request_id: requestId }),
      store: store.pluginStore(entry.id),
      ...facets,
      manager,
      skills: skillList,
      llm,
      requestId,
      now,
    };
    const moduleCall: ModuleCall = { payer: call.payer, origin: call.origin, requestId, now };
    // Each module's facet, built the first time the call reads it (a web read reads none).
    for (const { id, runtime } of moduleFacets) {
      Object.defineProperty(context, id, {
        enumerable: true,
        configurable: true,
        get: () => {
          const built = runtime.facet(moduleCall);
          Object.defineProperty(context, id, { value: built, enumerable: true });
          return built;
        },
      });
    }
    return context as unknown as PluginContext & ModuleFacets;
  };
}
