/**
 * @module plugin/schema — TypeBox validation with the formats our schemas use, compiled once
 * per schema, returning errors as `{ path, message }` for the 400 body.
 */
import { FormatRegistry, type TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { ErrorCode } from "../errors.ts";

const dateTimePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

// Set whether or not Elysia's stricter ASCII-only "uri" came first: validation must not depend on which module loaded first
// (the binary loads this one first, the tests often Elysia). A URL that cannot be signed is refused where it is read (web/fetch/target-guard.ts).
FormatRegistry.Set("uri", (value) => URL.canParse(value) && /^[a-z][a-z0-9+.-]*:/i.test(value));
if (!FormatRegistry.Has("date")) FormatRegistry.Set("date", (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)));
if (!FormatRegistry.Has("email")) FormatRegistry.Set("email", (value) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value));
if (!FormatRegistry.Has("date-time")) FormatRegistry.Set("date-time", (value) => dateTimePattern.test(value) && !Number.isNaN(Date.parse(value)));

export interface ValidationIssue {
  path: string;
  message: string;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[]; code?: ErrorCode };

export interface Validator<T> {
  (value: unknown): Validation<T>;
}

const maxIssues = 10;

export function compileValidator<T>(schema: TSchema): Validator<T> {
  const check = TypeCompiler.Compile(schema);
  return (value) => {
    if (check.Check(value)) return { ok: true, value: value as T };
    const issues: ValidationIssue[] = [];
    for (const error of check.Errors(value)) {
      const issue = { path: error.path || "/", message: describeIssue(error.message, error.schema, error.value) };
      // TypeBox reports a missing property twice (required, and its type): name it once.
      if (issues.some((seen) => seen.path === issue.path && seen.message === issue.message)) continue;
      issues.push(issue);
      if (issues.length >= maxIssues) break;
    }
    return { ok: false, issues };
  };
}

function describeIssue(message: string, schema: TSchema, value: unknown): string {
  // TypeBox says "Unexpected property" without the name of the allowed ones; say what is allowed.
  if (message === "Unexpected property" && schema.type === "object" && schema.properties) {
    return `unknown property; allowed: ${Object.keys(schema.properties as object).join(", ")}`;
  }
  if (value === undefined) return "required";
  return message.charAt(0).toLowerCase() + message.slice(1);
}

/** The issues as one readable sentence for `message`. */
export function summarizeIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((i) => `${i.path}: ${i.message}`).join("; ");
}
