/**
 * @module plugin/model-access — what a skill sees of the language model: whether one is configured,
 * and two bounded ways to use it. A skill never builds a client or holds the API key; the
 * provider module implements this, and a server without a base URL gets `noModel`.
 */
import { type Static, type TSchema, Type as t } from "@sinclair/typebox";
import { ApiError } from "../errors.ts";

/** Budget of one job's model use; every limit is checked before each model call, never after. */
export interface AgentLimits {
  readonly maxSteps: number;
  readonly maxToolCalls: number;
  readonly maxUsd: number;
  readonly maxInputTokens?: number;
  readonly maxOutputTokens?: number;
  /** Wall clock for the model work (ms), usually the skill's timeout less a margin; the job's signal still aborts everything. */
  readonly maxWallMs?: number;
}

/** Tools the agent may be given; each runs through `ctx.web` (guard, robots, extraction). */
export type AgentTool = "web_read" | "pdf_read";

export interface AgentRequest {
  /** The skill on whose behalf the model runs (picks the model and its prices). */
  readonly skill: string;
  readonly system?: string;
  readonly prompt: string;
  readonly tools: readonly AgentTool[];
  /** When given, tools may only read URLs on these hosts (a quoted goal's named hosts). */
  readonly allowedHosts?: readonly string[];
  readonly limits: AgentLimits;
  /** The answer must be a JSON document (one repair call, then the job fails). */
  readonly jsonOnly?: boolean;
  /** The job's signal: reaches every model call and every fetch. */
  readonly signal: AbortSignal;
}

/** What a model skill's answer reports of the model work behind it (the `usage` of web.brief, grok.prompt, code.fix_from_log, web.extract). */
export const ModelUsageSchema = t.Object(
  {
    model: t.String(),
    steps: t.Integer({ minimum: 0 }),
    tool_calls: t.Integer({ minimum: 0 }),
    input_tokens: t.Integer({ minimum: 0 }),
    output_tokens: t.Integer({ minimum: 0 }),
    cost_usd: t.Number({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export type ModelUsage = Readonly<Static<typeof ModelUsageSchema>>;

export interface AgentResult {
  readonly answer: string;
  /** A limit ended the work before the model finished on its own. */
  readonly partial: boolean;
  readonly partialReason?: string;
  readonly usage: ModelUsage;
  /** Pages the tools read, in order. */
  readonly sources: readonly { readonly url: string; readonly title?: string }[];
  /** URLs the model wrote that were in no page read nor in the prompt; they were removed from `answer`. */
  readonly removedUrls?: readonly string[];
}

export interface StructuredRequest {
  readonly skill: string;
  readonly system: string;
  /** Untrusted material goes in `data`: it is delimited and datamarked, and the call has no tools. */
  readonly prompt: string;
  readonly data?: string;
  readonly schema: TSchema;
  readonly limits: AgentLimits;
  readonly signal: AbortSignal;
}

export interface ModelAccess {
  /** A base URL is configured: model skills can run. */
  readonly configured: boolean;
  /** The model a skill would use, or undefined without one. */
  model(skill: string): string | undefined;
  runAgent(request: AgentRequest): Promise<AgentResult>;
  /** One tool-less call whose answer is validated against `schema`. */
  structured<T>(request: StructuredRequest): Promise<{ readonly value: T; readonly usage: ModelUsage }>;
}

function unavailable(): never {
  throw new ApiError("SKILL_UNAVAILABLE", { message: "No language model is configured on this server (set --llm-base-url); nothing was charged." });
}

/** For a skill's `admit`: 503 SKILL_UNAVAILABLE before any price when no model is configured. */
export function requireModel(llm: ModelAccess): void {
  if (!llm.configured) unavailable();
}

/** The engine line of a skill that needs a model (`engine` on its definition). */
export function modelEngine(skill: string): (llm: ModelAccess) => { available: boolean; engine: string; model?: string } {
  return (llm) => {
    const model = llm.model(skill);
    return llm.configured && model ? { available: true, engine: "model", model } : { available: false, engine: "none" };
  };
}

/** The model access of a server without a base URL. */
export const noModel: ModelAccess = {
  configured: false,
  model: () => undefined,
  runAgent: async () => unavailable(),
  structured: async () => unavailable(),
};
