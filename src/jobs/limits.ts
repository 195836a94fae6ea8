/**
 * @module jobs/limits — limits beyond a skill's own schema (spec job-worker §8), checked after
 * validation and before payment, so a refused call never runs and never charges.
 */
import { ApiError } from "../errors.ts";

/** `prompt` fields longer than `maxPromptChars` code points are refused with 400. */
export function checkPromptLength(input: unknown, maxPromptChars: number): void {
  if (typeof input !== "object" || input === null) return;
  const prompt = (input as { prompt?: unknown }).prompt;
  if (typeof prompt !== "string") return;
  const length = [...prompt].length;
  if (length > maxPromptChars) {
    throw new ApiError("PROMPT_TOO_LONG", {
      message: `The prompt has ${length} characters; the limit is ${maxPromptChars} (max_prompt_chars). Nothing was run or charged.`,
      details: { max_prompt_chars: maxPromptChars, prompt_chars: length },
    });
  }
}
