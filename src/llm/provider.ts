/**
 * @module llm/provider — one streamed Chat Completions call through the `openai` client against
 * any OpenAI-compatible base URL (xAI, OpenAI, OpenRouter, llama.cpp, Ollama, vLLM).
 *
 * The client retries 408/409/429/5xx and lost connections, honouring Retry-After; its timeout
 * only covers the wait for headers, so a stalled stream is cut here by an idle timer. Tool calls
 * are assembled from both delta styles: a whole call per chunk (xAI) and OpenAI's incremental
 * arguments keyed by index. Cost is the provider's own figure when it reports one (xAI's
 * `usage.cost_in_usd_ticks`, 1e10 ticks = $1), else tokens times the configured price.
 */
import OpenAI from "openai";
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { ApiError } from "../errors.ts";
import { type ModelPrice, redactKey, type ResolvedLlm } from "./config.ts";

export type ChatMessage = ChatCompletionMessageParam;
export type ChatTool = ChatCompletionTool;

export interface ChatRequest {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly ChatTool[];
  /** Cap on this call's output tokens (from the job's remaining budget). */
  readonly maxTokens?: number;
  readonly signal: AbortSignal;
}

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** The raw JSON arguments as the model wrote them. */
  readonly arguments: string;
}

export interface CallUsage {
  readonly inputTokens: number;
  /** Output tokens, reasoning tokens included. */
  readonly outputTokens: number;
  readonly costUsd: number;
  /** Where costUsd came from. */
  readonly costSource: "provider" | "price" | "unpriced";
}

export interface ChatResponse {
  readonly content: string;
  readonly refusal: string | undefined;
  readonly toolCalls: readonly ToolCall[];
  readonly finishReason: string | undefined;
  readonly usage: CallUsage;
}

export interface ChatClient {
  complete(request: ChatRequest): Promise<ChatResponse>;
  /** The price the operator configured for a model (undefined: unpriced). */
  price(model: string): ModelPrice | undefined;
}

/** Usage as the OpenAI schema has it, plus the fields some providers add. */
interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  cost_in_usd_ticks?: number | null;
}

const ticksPerUsd = 1e10;

/**
 * Reasoning tokens bill as output. OpenAI counts them inside completion_tokens; xAI reports them
 * beside it (total = prompt + completion + reasoning). The total tells which.
 */
export function usageOf(wire: WireUsage | undefined, price: ModelPrice | undefined): CallUsage {
  const input = wire?.prompt_tokens ?? 0;
  const completion = wire?.completion_tokens ?? 0;
  const reasoning = wire?.completion_tokens_details?.reasoning_tokens ?? 0;
  const separate = reasoning > 0 && (wire?.total_tokens ?? 0) >= input + completion + reasoning;
  const output = separate ? completion + reasoning : completion;
  const ticks = wire?.cost_in_usd_ticks;
  if (typeof ticks === "number" && Number.isFinite(ticks) && ticks >= 0) {
    return { inputTokens: input, outputTokens: output, costUsd: ticks / ticksPerUsd, costSource: "provider" };
  }
  if (price) return { inputTokens: input, outputTokens: output, costUsd: (input * price.input + output * price.output) / 1e6, costSource: "price" };
  return { inputTokens: input, outputTokens: output, costUsd: 0, costSource: "unpriced" };
}

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

/** Folds one chunk's tool-call deltas into the calls so far (both delta styles). */
export function foldToolCalls(calls: PartialCall[], byIndex: Map<number, PartialCall>, deltas: ChatCompletionChunk.Choice.Delta["tool_calls"]): void {
  for (const [position, delta] of (deltas ?? []).entries()) {
    const index = typeof delta.index === "number" ? delta.index : position;
    let call = byIndex.get(index);
    // A new id at a used index is a new whole call (servers that send each call complete, all at index 0).
    if (!call || (delta.id && call.id && delta.id !== call.id)) {
      call = { id: delta.id ?? "", name: "", arguments: "" };
      byIndex.set(index, call);
      calls.push(call);
    }
    if (delta.id) call.id = delta.id;
    if (delta.function?.name) call.name = delta.function.name;
    if (delta.function?.arguments) call.arguments += delta.function.arguments;
  }
}

function modelError(message: string, apiKey: string | undefined, cause?: unknown): ApiError {
  return new ApiError("MODEL_ERROR", { message: redactKey(message, apiKey), cause });
}

export interface ChatClientOptions {
  /** Tests and benches pass a recording fetch. */
  readonly fetch?: typeof fetch;
}

export function createChatClient(settings: ResolvedLlm, options: ChatClientOptions = {}): ChatClient {
  const client = new OpenAI({
    baseURL: settings.baseUrl,
    // Local servers need none; the client insists on a string.
    apiKey: settings.apiKey ?? "no-key",
    timeout: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    defaultHeaders: { ...settings.headers },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  return {
    price: (model) => settings.prices[model],
    async complete(request) {
      const { signal } = request;
      signal.throwIfAborted();
      // One controller per call: the job's signal and the idle timer both end it.
      const controller = new AbortController();
      const onAbort = () => controller.abort(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      let idle: ReturnType<typeof setTimeout> | undefined;
      let stalled = false;
      const arm = () => {
        clearTimeout(idle);
        idle = setTimeout(() => {
          stalled = true;
          controller.abort(new Error("stalled"));
        }, settings.timeoutMs);
      };
      let content = "";
      let refusal = "";
      let finishReason: string | undefined;
      let wireUsage: WireUsage | undefined;
      const calls: PartialCall[] = [];
      const byIndex = new Map<number, PartialCall>();
      try {
        const stream = await client.chat.completions.create(
          {
            model: request.model,
            messages: request.messages as ChatMessage[],
            stream: true,
            stream_options: { include_usage: true },
            ...(request.tools && request.tools.length > 0 ? { tools: request.tools as ChatTool[], tool_choice: "auto" as const } : {}),
            ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
          },
          { signal: controller.signal },
        );
        arm();
        for await (const chunk of stream) {
          arm();
          if (chunk.usage) wireUsage = chunk.usage as WireUsage;
          const choice = chunk.choices?.[0];
          if (!choice) continue;
          const delta = choice.delta ?? {};
          if (delta.content) content += delta.content;
          if (delta.refusal) refusal += delta.refusal;
          foldToolCalls(calls, byIndex, delta.tool_calls);
          if (choice.finish_reason) finishReason = choice.finish_reason;
        }
        // The client ends the iteration quietly on an abort: say why it ended.
        if (signal.aborted) throw signal.reason;
        if (stalled) throw new Error("stalled");
        if (finishReason === undefined) throw modelError("The model's stream ended before it finished.", settings.apiKey);
      } catch (error) {
        if (error instanceof ApiError) throw error;
        if (signal.aborted) throw signal.reason ?? error;
        if (stalled) throw modelError(`The model sent nothing for ${settings.timeoutMs / 1000} s; the call was cut.`, settings.apiKey, error);
        if (error instanceof OpenAI.APIConnectionTimeoutError) throw modelError(`The model did not answer within ${settings.timeoutMs / 1000} s.`, settings.apiKey, error);
        if (error instanceof OpenAI.APIError) {
          const status = error.status === undefined ? "no response" : `HTTP ${error.status}`;
          throw modelError(`The model provider failed (${status}): ${error.message}`, settings.apiKey, error);
        }
        throw modelError(`The model call failed: ${(error as Error).message}`, settings.apiKey, error);
      } finally {
        clearTimeout(idle);
        signal.removeEventListener("abort", onAbort);
      }
      return {
        content,
        refusal: refusal || undefined,
        toolCalls: calls.filter((c) => c.name !== "").map((c, i) => ({ id: c.id || `call_${i}`, name: c.name, arguments: c.arguments })),
        finishReason,
        usage: usageOf(wireUsage, settings.prices[request.model]),
      };
    },
  };
}
