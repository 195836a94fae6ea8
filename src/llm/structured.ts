/**
 * @module llm/structured — one tool-less call whose answer must be JSON valid against a schema.
 * Untrusted material (a page, a log) is spotlighted; an invalid answer gets one repair call with
 * the validation issues, then the call fails with MODEL_OUTPUT_INVALID (the job is not settled).
 */
import type { Static, TSchema } from "@sinclair/typebox";
import { ApiError } from "../errors.ts";
import { compileValidator, summarizeIssues } from "../plugin/schema.ts";
import { estimateTokens, JobBudget } from "./budget.ts";
import { parseJsonAnswer } from "./json-answer.ts";
import type { ModelUsage, StructuredRequest } from "../plugin/model-access.ts";
import type { ChatClient, ChatMessage } from "./provider.ts";
import { createSpotlight } from "./untrusted.ts";

export async function runStructured<T>(chat: ChatClient, model: string, request: StructuredRequest, now?: () => number): Promise<{ value: T; usage: ModelUsage }> {
  const budget = new JobBudget(request.limits, chat.price(model), now, 0);
  const validate = compileValidator<Static<TSchema>>(request.schema);
  const spotlight = createSpotlight();
  const messages: ChatMessage[] = [
    {
      role: "system",
      content: [
        request.system,
        request.data !== undefined ? spotlight.rules : "",
        `Answer with exactly one JSON document valid against this JSON Schema, and nothing else:\n${JSON.stringify(request.schema)}`,
      ]
        .filter(Boolean)
        .join("\n\n"),
    },
    { role: "user", content: request.data !== undefined ? `${request.prompt}\n\n${spotlight.block({ label: "data", text: request.data })}` : request.prompt },
  ];
  const usage = (): ModelUsage => ({
    model,
    steps: budget.steps,
    tool_calls: 0,
    input_tokens: budget.inputTokens,
    output_tokens: budget.outputTokens,
    cost_usd: Math.round(budget.usd * 1e10) / 1e10,
  });

  let problem = "";
  for (let attempt = 0; attempt < 2; attempt++) {
    const estimate = estimateTokens(messages.map((m) => String(m.content)));
    const stop = budget.finalStop(estimate);
    if (stop) {
      if (attempt === 0) throw new ApiError("MODEL_ERROR", { message: `The job's model budget (${stop}) does not allow a call; nothing was charged.` });
      break;
    }
    request.signal.throwIfAborted();
    const response = await chat.complete({ model, messages, maxTokens: budget.maxTokens(estimate), signal: request.signal });
    budget.record(response.usage);
    if (response.refusal || response.finishReason === "content_filter") {
      throw new ApiError("MODEL_REFUSED", { message: "The language model refused the request; the job failed and nothing was charged." });
    }
    const parsed = parseJsonAnswer(response.content);
    if (parsed.ok) {
      const checked = validate(parsed.value);
      if (checked.ok) return { value: checked.value as T, usage: usage() };
      problem = summarizeIssues(checked.issues);
    } else problem = parsed.error;
    messages.push({ role: "assistant", content: response.content });
    messages.push({ role: "user", content: `That answer is not valid (${problem}). Reply again with exactly one JSON document valid against the schema.` });
  }
  throw new ApiError("MODEL_OUTPUT_INVALID", { message: `The model's answer did not match the required schema after one repair (${problem.slice(0, 200)}); nothing was charged.` });
}
