/**
 * @module evidence/notes — the web layer notes the source facts of each result object it builds
 * (some, like the source hash of a web/fetch result or the final URL of a PDF, are not in the
 * result); the seal signs them once the payment settled. Held by object identity, never copied
 * into the result.
 */
import type { SourceFacts } from "./statement.ts";

const noted = new WeakMap<object, SourceFacts>();

/** Marks `result` as evidence with these facts; returns it. */
export function noteEvidence<T extends object>(result: T, facts: SourceFacts): T {
  noted.set(result, facts);
  return result;
}

export function notedFactsOf(result: unknown): SourceFacts | undefined {
  return typeof result === "object" && result !== null ? noted.get(result) : undefined;
}
