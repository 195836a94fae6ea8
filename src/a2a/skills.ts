/**
 * @module a2a/skills — the skills an A2A message may name, by the agent card's ids: every paid
 * operation and job skill of the registry (a job skill sold under an endpoint's id too is
 * `jobs.<id>`, as the card names it).
 */
import type { PluginEntry, Registry, SkillEntry } from "../plugin/registry.ts";

export const A2A_PATH = "/a2a";

/** The A2A x402 extension (standalone flow) this endpoint speaks. */
export const X402_EXTENSION_URI = "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2";

export type A2aSkill = { readonly kind: "plugin"; readonly id: string; readonly entry: PluginEntry } | { readonly kind: "skill"; readonly id: string; readonly entry: SkillEntry };

export function a2aSkillsOf(registry: Registry): ReadonlyMap<string, A2aSkill> {
  const byId = new Map<string, A2aSkill>();
  for (const entry of registry.plugins) byId.set(entry.id, { kind: "plugin", id: entry.id, entry });
  for (const entry of registry.skills) {
    const id = byId.has(entry.id) ? `jobs.${entry.id}` : entry.id;
    byId.set(id, { kind: "skill", id, entry });
  }
  return byId;
}
