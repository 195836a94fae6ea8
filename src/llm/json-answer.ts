/** @module llm/json-answer — a model's JSON answer: code fences and surrounding blank space removed, then parsed. */
export type JsonAnswer = { ok: true; json: string; value: unknown } | { ok: false; error: string };

export function parseJsonAnswer(text: string): JsonAnswer {
  let body = text.trim();
  const fenced = /^```(?:json|JSON)?\s*\n([\s\S]*?)\n?```$/.exec(body);
  if (fenced) body = fenced[1]!.trim();
  if (body === "") return { ok: false, error: "the answer is empty" };
  try {
    return { ok: true, json: body, value: JSON.parse(body) };
  } catch (error) {
    return { ok: false, error: (error as Error).message.slice(0, 200) };
  }
}
