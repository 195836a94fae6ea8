/**
 * @module jobs/limits — limits beyond a skill's own schema (spec job-worker §8), checked after
 * validation and before payment, so a refused call never runs and never charges.
 */
import { ApiError } from "../errors.ts";

/** Fields a model reads as its instructions: a skill's `prompt`, job.quote's `goal`. */
const promptFields = ["prompt", "goal"] as const;

/** `prompt` (and `goal`) fields longer than `maxPromptChars` code points are refused with 400. */
export function checkPromptLength(input: unknown, maxPromptChars: number): void {
  if (typeof input !== "object" || input === null) return;
  for (const field of promptFields) checkField(input as Record<string, unknown>, field, maxPromptChars);
}

function checkField(input: Record<string, unknown>, field: string, maxPromptChars: number): void {
  const prompt = input[field];
  if (typeof prompt !== "string") return;
  const length = [...prompt].length;
  if (length > maxPromptChars) {
    throw new ApiError("PROMPT_TOO_LONG", {
      message: `The ${field} has ${length} characters; the limit is ${maxPromptChars} (max_prompt_chars). Nothing was run or charged.`,
      details: { max_prompt_chars: maxPromptChars, prompt_chars: length },
    });
  }
}
