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

/** The A2A versions served at A2A_PATH over JSON-RPC: 1.0, and 0.3 through the SDK's compatibility handler. */
export const A2A_VERSIONS = ["1.0", "0.3"] as const;

/** The agent card's interfaces for A2A_PATH: one per version, the newest first (clients take the first they speak). */
export const a2aInterfaces = (baseUrl: string) => A2A_VERSIONS.map((protocolVersion) => ({ url: new URL(A2A_PATH, baseUrl).toString(), protocolBinding: "JSONRPC", protocolVersion, tenant: "" }));
