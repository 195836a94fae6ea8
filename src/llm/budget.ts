/**
 * @module llm/budget — one job's model budget: steps, tool calls, input and output tokens, USD and
 * wall clock. Checked before every model call, never after. The tool-using loop stops while a
 * reserve is left, so one last call without tools can still write the answer.
 */
import type { AgentLimits } from "../plugin/model-access.ts";
import type { CallUsage } from "./provider.ts";
import type { ModelPrice } from "./config.ts";

/** Share of the USD and token budgets kept for the final answer. */
const finalReserve = 0.3;
/** Output tokens one call may ask for when no budget says less. */
const callOutputCap = 4096;

export type BudgetStop = "steps" | "tool_calls" | "input_tokens" | "output_tokens" | "usd" | "wall_clock";

export class JobBudget {
  steps = 0;
  toolCalls = 0;
  inputTokens = 0;
  outputTokens = 0;
  usd = 0;
  private readonly started: number;

  constructor(
    readonly limits: AgentLimits,
    private readonly price: ModelPrice | undefined,
    private readonly now: () => number = () => performance.now(),
    /** Model steps kept back after the tool loop (the final answer, and a JSON repair). */
    private readonly reservedSteps = 1,
  ) {
    this.started = now();
  }

  record(usage: CallUsage): void {
    this.steps++;
    this.inputTokens += usage.inputTokens;
    this.outputTokens += usage.outputTokens;
    this.usd += usage.costUsd;
  }

  private wallLeft(): number {
    return this.limits.maxWallMs === undefined ? Number.POSITIVE_INFINITY : this.limits.maxWallMs - (this.now() - this.started);
  }

  /** Why the tool-using loop must stop before its next call (undefined: it may go on). `inputEstimate` is the next call's prompt in tokens. */
  loopStop(inputEstimate: number): BudgetStop | undefined {
    const l = this.limits;
    if (this.steps >= l.maxSteps - this.reservedSteps) return "steps";
    if (this.toolCalls >= l.maxToolCalls) return "tool_calls";
    if (l.maxInputTokens !== undefined && this.inputTokens + inputEstimate > l.maxInputTokens * (1 - finalReserve)) return "input_tokens";
    if (l.maxOutputTokens !== undefined && this.outputTokens >= l.maxOutputTokens * (1 - finalReserve)) return "output_tokens";
    if (this.usd + this.inputCost(inputEstimate) >= l.maxUsd * (1 - finalReserve)) return "usd";
    if (l.maxWallMs !== undefined && this.wallLeft() < Math.min(l.maxWallMs / 3, 45_000)) return "wall_clock";
    return undefined;
  }

  /** Why no further call at all may be made (undefined: one may). */
  finalStop(inputEstimate: number): BudgetStop | undefined {
    const l = this.limits;
    if (this.steps >= l.maxSteps) return "steps";
    if (l.maxInputTokens !== undefined && this.inputTokens + inputEstimate > l.maxInputTokens) return "input_tokens";
    if (l.maxOutputTokens !== undefined && this.outputTokens >= l.maxOutputTokens) return "output_tokens";
    if (this.usd + this.inputCost(inputEstimate) >= l.maxUsd) return "usd";
    // No wall-clock check here: maxWallMs leaves the job's own timeout room for this call, and the
    // job's signal still ends it.
    return undefined;
  }

  /** The output cap of the next call: what the token and USD budgets still allow. */
  maxTokens(inputEstimate: number): number {
    let cap = callOutputCap;
    const l = this.limits;
    if (l.maxOutputTokens !== undefined) cap = Math.min(cap, l.maxOutputTokens - this.outputTokens);
    if (this.price && this.price.output > 0) {
      const left = l.maxUsd - this.usd - this.inputCost(inputEstimate);
      cap = Math.min(cap, Math.floor((left * 1e6) / this.price.output));
    }
    return Math.max(1, cap);
  }

  private inputCost(tokens: number): number {
    return this.price ? (tokens * this.price.input) / 1e6 : 0;
  }
}

/** A rough token count for a prompt (4 characters a token), used only to look ahead. */
export function estimateTokens(texts: readonly string[]): number {
  let chars = 0;
  for (const t of texts) chars += t.length;
  return Math.ceil(chars / 4);
}
