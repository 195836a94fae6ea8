/**
 * @module grounding/ground — what the model is asked to answer for a caller's schema (every leaf
 * as `{value, quote}`, derived leaves as `{value, quotes}`), and the check of that answer against
 * the page text: a value stays only when its quote is found in the text (and, for plain strings
 * and numbers, the value is written inside it); every other claim becomes null and is listed
 * in `unsupported`.
 */
import { type Static, type TSchema, Type as t } from "@sinclair/typebox";
import type { ObjectNode, SchemaNode } from "./caller-schema.ts";
import { pointerSegment } from "./caller-schema.ts";
import { type QuoteIndex, type QuoteMatch, valueInQuote } from "./quote-match.ts";

const Quote = t.String({ maxLength: 1000, description: "Copied character for character from the page text." });

/** The answer the model must give for a caller's schema. */
export function answerSchema(root: ObjectNode): TSchema {
  const visit = (node: SchemaNode): TSchema => {
    const description = node.description ? { description: node.description } : {};
    if (node.kind === "leaf") {
      const value = t.Union([node.typebox, t.Null()]);
      if (node.derived) {
        return t.Object(
          { value, quotes: t.Array(Quote, { maxItems: 8, description: "The page spans the value rests on, each verbatim." }) },
          { description: `Derived: work the value out from the page. ${node.description ?? ""}`.trim() },
        );
      }
      return t.Object({ value, quote: t.Union([Quote, t.Null()]) }, description);
    }
    if (node.kind === "array") return t.Union([t.Array(visit(node.items), node.maxItems !== undefined ? { maxItems: node.maxItems } : {}), t.Null()], description);
    const props: Record<string, TSchema> = {};
    // Optional: a property the model leaves out is null in data, as one it gives as null.
    for (const p of node.properties) props[p.name] = t.Optional(visit(p.node));
    return node === root ? t.Object(props, description) : t.Union([t.Object(props), t.Null()], description);
  };
  return visit(root);
}

export const EvidenceSchema = t.Union([
  t.Object(
    {
      path: t.String({ description: "JSON Pointer of the value in data." }),
      quote: t.String({ description: "The page text at start..end, verbatim." }),
      start: t.Integer({ minimum: 0, description: "Offset in text, in code points." }),
      end: t.Integer({ minimum: 0, description: "End offset in text, in code points (exclusive)." }),
      match: t.Union([t.Literal("exact"), t.Literal("normalized")], { description: "normalized: found after folding whitespace, case, Unicode NFKC and number formatting." }),
    },
    { additionalProperties: false },
  ),
  t.Object(
    {
      path: t.String(),
      derived: t.Literal(true),
      quotes: t.Array(
        t.Object(
          { quote: t.String(), start: t.Integer({ minimum: 0 }), end: t.Integer({ minimum: 0 }), match: t.Union([t.Literal("exact"), t.Literal("normalized")]) },
          { additionalProperties: false },
        ),
        { minItems: 1 },
      ),
    },
    { additionalProperties: false },
  ),
]);
export type Evidence = Static<typeof EvidenceSchema>;

export const UnsupportedSchema = t.Object(
  {
    path: t.String(),
    claim: t.Unknown({ description: "The value the model gave; not returned as a fact." }),
    quote: t.Optional(t.Union([t.String(), t.Array(t.String())], { description: "What the model quoted, if anything." })),
    reason: t.Union([t.Literal("no_quote"), t.Literal("quote_not_found"), t.Literal("value_not_in_quote")]),
  },
  { additionalProperties: false },
);
export type Unsupported = Static<typeof UnsupportedSchema>;

export interface Grounded {
  readonly data: Record<string, unknown>;
  readonly evidence: Evidence[];
  readonly unsupported: Unsupported[];
  /** Leaf values returned as facts (non-null in data). */
  readonly supported: number;
}

type LeafAnswer = { value?: unknown; quote?: unknown; quotes?: unknown } | null | undefined;

const position = (m: QuoteMatch) => ({ quote: m.quote, start: m.start, end: m.end, match: m.match });

/** Checks the model's answer against the page text; never throws on a strange answer (missing parts are null). */
export function groundAnswer(root: ObjectNode, answer: unknown, index: QuoteIndex, unmark: (quote: string) => string): Grounded {
  const evidence: Evidence[] = [];
  const unsupported: Unsupported[] = [];
  let supported = 0;

  const leaf = (node: Extract<SchemaNode, { kind: "leaf" }>, given: LeafAnswer, path: string): unknown => {
    if (typeof given !== "object" || given === null || given.value === null || given.value === undefined) return null;
    const value = given.value;
    if (node.derived) {
      const quotes = Array.isArray(given.quotes) ? given.quotes.filter((q): q is string => typeof q === "string" && q.trim() !== "") : [];
      const found = quotes.map((q) => index.find(unmark(q))).filter((m): m is QuoteMatch => m !== undefined);
      if (found.length === 0) {
        unsupported.push({ path, claim: value, ...(quotes.length > 0 ? { quote: quotes } : {}), reason: quotes.length > 0 ? "quote_not_found" : "no_quote" });
        return null;
      }
      evidence.push({ path, derived: true, quotes: found.map(position) });
      supported++;
      return value;
    }
    const quote = typeof given.quote === "string" ? given.quote : "";
    if (quote.trim() === "") {
      unsupported.push({ path, claim: value, reason: "no_quote" });
      return null;
    }
    const match = index.find(unmark(quote));
    if (!match) {
      unsupported.push({ path, claim: value, quote, reason: "quote_not_found" });
      return null;
    }
    if (node.literal && (typeof value === "string" || typeof value === "number") && !valueInQuote(value, match.quote)) {
      unsupported.push({ path, claim: value, quote, reason: "value_not_in_quote" });
      return null;
    }
    evidence.push({ path, ...position(match) });
    supported++;
    return value;
  };

  const visit = (node: SchemaNode, given: unknown, path: string): unknown => {
    if (node.kind === "leaf") return leaf(node, given as LeafAnswer, path);
    if (node.kind === "array") {
      if (!Array.isArray(given)) return null;
      const items = node.maxItems !== undefined ? given.slice(0, node.maxItems) : given;
      return items.map((item, i) => visit(node.items, item, `${path}/${i}`));
    }
    if (typeof given !== "object" || given === null || Array.isArray(given)) return null;
    const out: Record<string, unknown> = {};
    for (const p of node.properties) out[p.name] = visit(p.node, (given as Record<string, unknown>)[p.name], `${path}/${pointerSegment(p.name)}`);
    return out;
  };

  const top = visit(root, typeof answer === "object" && answer !== null ? answer : {}, "");
  return { data: (top ?? {}) as Record<string, unknown>, evidence, unsupported, supported };
}
