/**
 * @module plugin/define — the contract of a plugin file: one paid HTTP endpoint (`plugins/`)
 * or one job skill (`skills/`). `definePlugin` / `defineSkill` are identity functions whose
 * generics make `run` receive `Static<input>` and return `Static<output>`, so a wrong
 * declaration is a type error in the author's editor.
 */
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { ErrorCode } from "../errors.ts";
import type { ModelAccess } from "./model-access.ts";
import type { PluginContext } from "./context.ts";
import type { NetworkPrices } from "./price.ts";
import type { SettlementReceipt } from "./settlement-receipt.ts";

export type { SettlementReceipt };

import type { CheckFailure } from "./check-failure.ts";

export type { CheckFailure };

/** What `admit` may return: a price that depends on the server's state (a ticket's seat price) replaces `price` for this call. */
export interface Admitted {
  readonly price?: NetworkPrices;
}

/**
 * For sync work that holds something for the buyer until the payment settles (seats on a
 * ticket). `run` takes the hold; after settlement exactly one hook runs.
 */
export interface SettlementHooks<R> {
  /** The payment settled (or payments are off): make the hold final; returns the result the caller receives. */
  readonly settled: (result: R, receipt: SettlementReceipt, ctx: PluginContext) => R | Promise<R>;
  /**
   * The payment did not settle. `failed`: nothing was charged, undo the hold. `pending`: the
   * settlement was sent but not confirmed (it may still land): keep the hold, note the receipt.
   */
  readonly unsettled: (result: R, outcome: { readonly state: "failed" | "pending"; readonly receipt: SettlementReceipt }, ctx: PluginContext) => void | Promise<void>;
}

/** A price that may depend on the validated body (batches, render). */
export type PriceSpec<Input> = NetworkPrices | ((input: Input) => NetworkPrices);

export interface Example<I, O> {
  readonly title?: string;
  readonly input: I;
  readonly output?: O;
}

/**
 * Plain text a caller may send instead of fields (an A2A message with a text part and no data
 * part): `input` gives the input the text means for this entry, or undefined when the text is not
 * for it. Entries that take only some texts (one with a URL in it) are chosen before those that
 * take any text (`anyText: true`, a prompt); when two of a kind take it, the caller is asked.
 */
export interface FreeText<I> {
  readonly input: (text: string) => I | undefined;
  readonly anyText?: boolean;
  /** What text it takes, for the hint a caller gets, e.g. "a text with one URL in it". */
  readonly takes?: string;
}

interface CommonDefinition<I extends TObject, O extends TSchema> {
  /** One sentence: what the caller buys. */
  readonly summary: string;
  /** Longer Markdown for docs (optional). */
  readonly description?: string;
  /** Request body schema; must not allow unknown properties. */
  readonly input: I;
  /** Result schema, where the spec gives one. */
  readonly output?: O;
  /**
   * Rules across fields that a schema cannot say ("url or urls, not both"). Returns a message when
   * the input breaks one; the caller gets 400 INVALID_REQUEST before any payment or work.
   */
  readonly check?: (input: Static<I>) => CheckFailure | string | undefined;
  /**
   * Checks that need the server's state (the ticket exists, the quote is unused, a model is
   * configured), run after validation and before any price or payment. Throw an ApiError of any
   * status to refuse; nothing is charged. May return `{ price }` when the price depends on that
   * state (the 402 then states it; `price` stays the documented one).
   */
  readonly admit?: (input: Static<I>, ctx: PluginContext) => void | Admitted | Promise<void | Admitted>;
  readonly price: PriceSpec<Static<I>>;
  /** How long `run` may take before its signal aborts (ms, 100 to 600000). */
  readonly timeoutMs: number;
  /** Error codes `run` may raise, listed in the docs. */
  readonly errors?: readonly ErrorCode[];
  /** At least one; each must validate against `input` (and `output` when given). */
  readonly examples: readonly Example<Static<I>, Static<O>>[];
  readonly run: (input: Static<I>, ctx: PluginContext) => Promise<Static<O>>;
  /** Sync calls only: hooks around the settlement of work that holds something (see SettlementHooks). */
  readonly settlement?: SettlementHooks<Static<O>>;
  /**
   * Pay for what is delivered (sync calls): the price of what `run` returned, at most `price` (the
   * quote, offered as the limit). Build both with paid-call/delivery.ts `priceByUnits`. On `upto`
   * offers only this is settled; on `exact` ones the quote is, and the rest is recorded as a refund due.
   */
  readonly delivered?: (input: Static<I>, output: Static<O>) => NetworkPrices;
  /**
   * Which engine answers on this server, shown before payment (capabilities, agent card, 402
   * preview, doctor). Absent: the file's own code, always available.
   */
  readonly engine?: (llm: ModelAccess) => SkillEngine;
  /** Takes plain text as input (see FreeText): A2A routes a text-only message to it. */
  readonly freeText?: FreeText<Static<I>>;
}

/**
 * What an endpoint needs the operator to have configured. A server without it does not offer the
 * endpoint at all (no route, catalogue, OpenAPI, MCP tool or A2A skill); `tollbooth doctor` says how
 * to turn it on. `search`: a search engine (--search-url or --brave-api-key).
 */
export const serverCapabilities = ["search"] as const;
export type ServerCapability = (typeof serverCapabilities)[number];

export interface PluginDefinition<I extends TObject = TObject, O extends TSchema = TSchema>
  extends CommonDefinition<I, O> {
  readonly kind: "plugin";
  /** Capabilities the endpoint is offered only with (see ServerCapability). */
  readonly needs?: readonly ServerCapability[];
  /** Stable id, e.g. `web.read`; the file name is the id with `.` and `_` turned into `-`. */
  readonly id: string;
  /** `POST /v1/...`: paid endpoints are POST with a JSON body. */
  readonly route: `POST /${string}`;
  /** HTTP status of a success: 202 when the work goes on after the answer (web/crawl), else 200. */
  readonly successStatus?: 200 | 202;
}

export interface SkillDefinition<I extends TObject = TObject, O extends TSchema = TSchema>
  extends CommonDefinition<I, O> {
  readonly kind: "skill";
  /** Skill id as callers send it in `skill`, e.g. `host.report`. */
  readonly skill: string;
  /** Async skills answer 202 and are polled; sync ones answer in the same response. */
  readonly async: boolean;
  /** Sync answers put the result's fields beside `ok` and `skill` instead of under `result` (spec §2.4: `{ok, skill, ticket}`). */
  readonly inlineResult?: boolean;
  /** When true the job result is returned as a JSON-encoded string (the spec's json_only). */
  readonly jsonOnly?: boolean;
  /**
   * Async skills: takes a one-use resource for this job (a quote) once the payment is verified
   * and before the job is accepted; `ctx` is the paying caller's. Throw an ApiError to refuse:
   * the payment is released and nothing is charged. The function returned gives the resource
   * back when the job is not accepted after all (settlement at acceptance failed).
   */
  readonly claim?: (input: Static<I>, ctx: PluginContext, jobId: string) => GiveBack | Promise<GiveBack>;
}

/** What a skill's `claim` returns: nothing, or how to give the resource back. */
export type GiveBack = void | (() => unknown);

export interface SkillEngine {
  /** false: the skill refuses with 503 SKILL_UNAVAILABLE before any price. */
  readonly available: boolean;
  /** e.g. "model", "extractive", "rules", "none". */
  readonly engine: string;
  /** The model id when the engine is a model. */
  readonly model?: string;
}

export type AnyDefinition = PluginDefinition | SkillDefinition;

type PluginInput<I extends TObject, O extends TSchema> = Omit<PluginDefinition<I, O>, "kind">;
type SkillInput<I extends TObject, O extends TSchema> = Omit<SkillDefinition<I, O>, "kind">;

/**
 * Declares one paid HTTP endpoint.
 * @example
 * export default definePlugin({ id: "echo.upper", route: "POST /v1/echo/upper", ... })
 */
export function definePlugin<const I extends TObject, const O extends TSchema = TSchema>(
  definition: PluginInput<I, O>,
): PluginDefinition<I, O> {
  return { ...definition, kind: "plugin" };
}

/** Declares one job skill, sold through `POST /v1/jobs`. */
export function defineSkill<const I extends TObject, const O extends TSchema = TSchema>(
  definition: SkillInput<I, O>,
): SkillDefinition<I, O> {
  return { ...definition, kind: "skill" };
}

export function isDefinition(value: unknown): value is AnyDefinition {
  if (typeof value !== "object" || value === null) return false;
  const kind = (value as { kind?: unknown }).kind;
  return kind === "plugin" || kind === "skill";
}

/** The id a definition is known by in the registry and docs. */
export function definitionId(definition: AnyDefinition): string {
  return definition.kind === "plugin" ? definition.id : definition.skill;
}
