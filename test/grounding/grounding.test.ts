/** web/extract's parts without a model: the caller's schema (limits, keywords), quotes found in the text, and the check of an answer. */
import { describe, expect, it } from "bun:test";
import { readCallerSchema } from "../../src/grounding/caller-schema.ts";
import { exampleExtractResult } from "../../src/grounding/extract-example.ts";
import { groundAnswer } from "../../src/grounding/ground.ts";
import { indexText, valueInQuote } from "../../src/grounding/quote-match.ts";
import { compileValidator } from "../../src/plugin/schema.ts";

const codePoints = (text: string, start: number, end: number) => [...text].slice(start, end).join("");

describe("quotes in the page text", () => {
  const text = "Acme Widget Pro\nPrice:  $1,299.00 (tax included)\nRated 😀 by ＦＵＬＬ-width fans.\nShips from Lisbon.";
  const index = indexText(text);

  it("finds a verbatim quote and answers code-point offsets into the text", () => {
    const m = index.find("Ships from Lisbon.")!;
    expect(m).toMatchObject({ quote: "Ships from Lisbon.", match: "exact" });
    expect(codePoints(text, m.start, m.end)).toBe("Ships from Lisbon.");
    // The emoji before it is one code point but two UTF-16 units.
    expect(m.start).toBe(text.indexOf("Ships") - 1);
  });

  it("finds a quote after folding whitespace, case, NFKC and number formatting, and returns the page's own characters", () => {
    const price = index.find("price: $1299")!;
    expect(price).toMatchObject({ quote: "Price:  $1,299.00", match: "normalized" });
    expect(codePoints(text, price.start, price.end)).toBe(price.quote);
    const wide = index.find("rated 😀 by full-width")!;
    expect(wide).toMatchObject({ quote: "Rated 😀 by ＦＵＬＬ-width", match: "normalized" });
    expect(codePoints(text, wide.start, wide.end)).toBe(wide.quote);
  });

  it("finds nothing for words the page does not hold, or an empty quote", () => {
    expect(index.find("Ships from Porto.")).toBeUndefined();
    expect(index.find("   ")).toBeUndefined();
    expect(index.find("$1,299.50")).toBeUndefined();
  });

  it("says whether a value is written inside its quote", () => {
    expect(valueInQuote(1299, "Price: $1,299.00")).toBe(true);
    expect(valueInQuote(1300, "Price: $1,299.00")).toBe(false);
    expect(valueInQuote("acme widget", "Acme  Widget Pro")).toBe(true);
    expect(valueInQuote("Acme Gadget", "Acme Widget Pro")).toBe(false);
  });
});

describe("the caller's schema", () => {
  const problem = (schema: unknown) => {
    const r = readCallerSchema(schema);
    return r.ok ? "" : r.issues.map((i) => `${i.path}: ${i.message}`).join("; ");
  };

  it("accepts the supported subset and validates data with every value nullable", () => {
    const r = readCallerSchema({
      type: "object",
      required: ["name"],
      properties: {
        name: { type: "string", description: "Product name" },
        price: { type: ["number", "null"], minimum: 0 },
        released: { type: "string", format: "date" },
        tags: { type: "array", maxItems: 3, items: { type: "string", enum: ["a", "b"] } },
        maker: { type: "object", additionalProperties: false, properties: { city: { type: "string" } } },
        in_stock: { type: "boolean", "x-derived": true },
      },
    });
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    expect(r.leaves).toBe(6);
    const validate = compileValidator(r.data);
    expect(validate({ name: null, price: 3, released: "2024-02-03", tags: ["a"], maker: { city: null }, in_stock: true }).ok).toBe(true);
    expect(validate({ name: "x", price: -1, released: null, tags: null, maker: null, in_stock: null }).ok).toBe(false);
    expect(validate({ name: "x", price: 1, released: "03/02/2024", tags: null, maker: null, in_stock: null }).ok).toBe(false);
    expect(validate({ name: "x", price: 1, released: null, tags: ["c"], maker: null, in_stock: null }).ok).toBe(false);
  });

  it("names the problem: limits, unsupported keywords, invalid JSON Schema, a top that is not an object", () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, { type: "string" }]));
    expect(problem({ type: "object", properties: many })).toContain("declares 51 properties; at most 50");
    const deep = { type: "object", properties: { a: { type: "object", properties: { b: { type: "array", items: { type: "object", properties: { c: { type: "object", properties: { d: { type: "string" } } } } } } } } } };
    expect(problem(deep)).toContain("/schema/properties/a/properties/b/items/properties/c: nests objects and arrays deeper than 4 levels");
    expect(problem({ type: "object", properties: { a: { $ref: "#/defs/x" } } })).toContain('/schema/properties/a: "type" must be one of');
    expect(problem({ type: "object", properties: { a: { type: "string", pattern: "^(a+)+$" } } })).toContain('/schema/properties/a/pattern: keyword "pattern" is not supported');
    expect(problem({ type: "object", properties: { a: { type: "strng" } } })).toContain('"type" must be one of');
    expect(problem({ type: "object", properties: { a: { type: "string" } }, required: ["b"] })).toContain("/schema/required");
    expect(problem({ type: "object", properties: { a: { type: "string", format: "hostname" } } })).toContain("/schema/properties/a/format");
    expect(problem({ type: "array", items: { type: "string" } })).toContain("the top of the schema must be");
    expect(problem({ type: "object", properties: {} })).toContain("at least one property");
    expect(problem({ type: "object", properties: { a: { type: "object", "x-derived": true, properties: { b: { type: "string" } } } } })).toContain("x-derived");
    expect(problem(JSON.parse('{"type": "object", "properties": {"__proto__": {"type": "string"}}}'))).toContain('"__proto__" cannot be a property name');
  });

  it("keeps names and enum values a caller chose as data: quotes in them cannot reach the validator's generated code", () => {
    const name = "x'] || (globalThis.__pwned = true) || a['";
    const r = readCallerSchema({ type: "object", properties: { [name]: { type: "string", enum: ["it's", "a\\'b"] } } });
    if (!r.ok) throw new Error(JSON.stringify(r.issues));
    const validate = compileValidator(r.data);
    expect(validate({ [name]: "it's" }).ok).toBe(true);
    expect(validate({ [name]: "other" }).ok).toBe(false);
    expect((globalThis as Record<string, unknown>).__pwned).toBeUndefined();
  });
});

describe("an answer checked against the page", () => {
  const text = "Acme Widget Pro\nPrice: $1,299.00\nWarranty: 2 years, parts and labour.";
  const schema = readCallerSchema({
    type: "object",
    properties: {
      name: { type: "string" },
      price: { type: "number" },
      warranty_years: { type: "integer" },
      colour: { type: "string" },
      covers_labour: { type: "boolean", "x-derived": true },
      sizes: { type: "array", items: { type: "string" } },
    },
  });
  if (!schema.ok) throw new Error("schema");
  const ground = (answer: unknown) => groundAnswer(schema.root, answer, indexText(text), (q) => q.replace(/\u02c6/g, " "));

  it("keeps values whose quotes are found and nulls the rest with the model's claim and why", () => {
    const g = ground({
      name: { value: "Acme Widget Pro", quote: "Acme Widget Pro" },
      price: { value: 1299, quote: "Price:ˆ$1299" },
      warranty_years: { value: 3, quote: "Warranty: 2 years" },
      colour: { value: "red", quote: "Colour: red" },
      covers_labour: { value: true, quotes: ["parts and labour"] },
      sizes: [{ value: "XL", quote: null }],
    });
    expect(g.data).toEqual({ name: "Acme Widget Pro", price: 1299, warranty_years: null, colour: null, covers_labour: true, sizes: [null] });
    expect(g.evidence).toEqual([
      { path: "/name", quote: "Acme Widget Pro", start: 0, end: 15, match: "exact" },
      { path: "/price", quote: "Price: $1,299.00", start: 16, end: 32, match: "normalized" },
      { path: "/covers_labour", derived: true, quotes: [{ quote: "parts and labour", start: 52, end: 68, match: "exact" }] },
    ]);
    expect(g.unsupported).toEqual([
      { path: "/warranty_years", claim: 3, quote: "Warranty: 2 years", reason: "value_not_in_quote" },
      { path: "/colour", claim: "red", quote: "Colour: red", reason: "quote_not_found" },
      { path: "/sizes/0", claim: "XL", reason: "no_quote" },
    ]);
    expect(g.supported).toBe(3);
  });

  it("treats a value the model says the page lacks as null, not unsupported, and survives answers of the wrong shape", () => {
    const g = ground({ name: { value: null, quote: null }, price: "1299", sizes: "XL" });
    expect(g.data).toEqual({ name: null, price: null, warranty_years: null, colour: null, covers_labour: null, sizes: null });
    expect(g.unsupported).toEqual([]);
    expect(g.supported).toBe(0);
    expect(ground(null).supported).toBe(0);
  });
});

describe("the documented example", () => {
  it("has offsets that point at its quotes in its text", () => {
    const text = exampleExtractResult.text!;
    expect(exampleExtractResult.characters).toBe([...text].length);
    for (const e of exampleExtractResult.evidence) {
      for (const q of "derived" in e ? e.quotes : [e]) expect(codePoints(text, q.start, q.end)).toBe(q.quote);
    }
  });
});
