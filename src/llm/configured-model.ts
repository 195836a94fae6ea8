/**
 * @module llm/configured-model — the `ModelAccess` a configured server gives skills (`ctx.llm`): the model
 * per skill, the operator's per-skill budgets over the skill's defaults, the agent loop and the
 * structured call over one chat client.
 */
import type { Logger } from "../log.ts";
import type { WebEngine } from "../web/engine.ts";
import { runAgentLoop } from "./agent.ts";
import type { ResolvedLlm } from "./config.ts";
import type { AgentLimits, ModelAccess } from "../plugin/model-access.ts";
import { type ChatClient, createChatClient } from "./provider.ts";
import { runStructured } from "./structured.ts";

export interface ModelAccessOptions {
  readonly web: WebEngine;
  readonly log?: Logger;
  /** A chat client other than the `openai` one (tests); default createChatClient(settings). */
  readonly chat?: ChatClient;
  readonly fetch?: typeof fetch;
}

export function createModelAccess(settings: ResolvedLlm, options: ModelAccessOptions): ModelAccess {
  const chat = options.chat ?? createChatClient(settings, options.fetch ? { fetch: options.fetch } : {});
  const modelFor = (skill: string) => settings.models[skill] ?? settings.defaultModel;
  const limitsFor = (skill: string, limits: AgentLimits): AgentLimits => ({ ...limits, ...settings.budgets[skill] });
  return {
    configured: true,
    model: modelFor,
    runAgent: (request) =>
      runAgentLoop({ chat, web: options.web, ...(options.log ? { log: options.log } : {}) }, modelFor(request.skill), { ...request, limits: limitsFor(request.skill, request.limits) }),
    structured: <T>(request: Parameters<ModelAccess["structured"]>[0]) => runStructured<T>(chat, modelFor(request.skill), { ...request, limits: limitsFor(request.skill, request.limits) }),
  };
}
