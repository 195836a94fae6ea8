/**
 * @module grounding/caller-schema — the JSON Schema a caller sends to web/extract: checked against
 * the subset we support (limits, keywords, types), and turned into TypeBox so the answer is
 * validated by the same compiler the server uses for its own inputs. Every leaf may be null in the
 * answer (a value the page does not state, or one whose quote was not found).
 */
import { type TSchema, Type as t } from "@sinclair/typebox";
import type { ValidationIssue } from "../plugin/schema.ts";

export const schemaLimits = { maxProperties: 50, maxDepth: 4 } as const;

export type LeafType = "string" | "number" | "integer" | "boolean";

export interface LeafNode {
  readonly kind: "leaf";
  readonly type: LeafType;
  /** `"x-derived": true`: a value the model works out (a sum, a yes/no) from the quotes it names. */
  readonly derived: boolean;
  /** Plain strings and numbers must be written inside their quote; enums, formats and booleans are read from it. */
  readonly literal: boolean;
  readonly description?: string;
  /** The leaf's TypeBox type, not yet nullable. */
  readonly typebox: TSchema;
}

export interface ObjectNode {
  readonly kind: "object";
  readonly description?: string;
  readonly properties: readonly { readonly name: string; readonly node: SchemaNode }[];
}

export interface ArrayNode {
  readonly kind: "array";
  readonly description?: string;
  readonly items: SchemaNode;
  readonly maxItems?: number;
}

export type SchemaNode = LeafNode | ObjectNode | ArrayNode;

export type CallerSchema = { ok: true; root: ObjectNode; data: TSchema; leaves: number } | { ok: false; issues: ValidationIssue[] };

/** Keywords that only annotate a schema: accepted and ignored. */
const annotations = new Set(["$schema", "$id", "$comment", "title", "description", "examples", "default", "x-derived"]);
const byType: Record<string, readonly string[]> = {
  object: ["type", "properties", "required", "additionalProperties"],
  array: ["type", "items", "maxItems"],
  string: ["type", "enum", "format", "minLength", "maxLength"],
  number: ["type", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"],
  integer: ["type", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"],
  boolean: ["type"],
};
const formats = new Set(["date", "date-time", "uri", "email"]);
const reservedNames = new Set(["__proto__", "constructor", "prototype"]);

/** Checks and converts a caller's schema; issues name the JSON Pointer of the problem in the schema. */
export function readCallerSchema(schema: unknown): CallerSchema {
  const issues: ValidationIssue[] = [];
  let properties = 0;
  let leaves = 0;
  const problem = (path: string, message: string) => {
    if (issues.length < 10) issues.push({ path: `/schema${path}`, message });
  };

  const visit = (node: unknown, path: string, depth: number): SchemaNode | undefined => {
    if (typeof node !== "object" || node === null || Array.isArray(node)) {
      problem(path, "must be a JSON Schema object");
      return undefined;
    }
    const s = node as Record<string, unknown>;
    let type = s.type;
    // ["string", "null"] reads as "string": every value may be null in the answer anyway.
    if (Array.isArray(type) && type.length === 2 && type.includes("null")) type = type.find((x) => x !== "null");
    if (typeof type !== "string" || !(type in byType)) {
      problem(path, `"type" must be one of object, array, string, number, integer, boolean (got ${JSON.stringify(s.type)}); $ref, anyOf, oneOf and allOf are not supported`);
      return undefined;
    }
    for (const key of Object.keys(s)) {
      if (!annotations.has(key) && !byType[type]!.includes(key)) problem(`${path}/${key}`, `keyword "${key}" is not supported on type ${type}; supported: ${byType[type]!.join(", ")} and the annotations title, description, examples, default, x-derived`);
    }
    if (s["x-derived"] !== undefined && typeof s["x-derived"] !== "boolean") problem(`${path}/x-derived`, "must be true or false");
    if (s.description !== undefined && typeof s.description !== "string") problem(`${path}/description`, "must be a string");
    const description = typeof s.description === "string" ? { description: s.description.slice(0, 500) } : {};
    if ((type === "object" || type === "array") && depth > schemaLimits.maxDepth) {
      problem(path, `nests objects and arrays deeper than ${schemaLimits.maxDepth} levels`);
      return undefined;
    }

    if (type === "object") {
      if (s["x-derived"] === true) problem(`${path}/x-derived`, "applies to leaf values (string, number, integer, boolean), not objects");
      if (s.additionalProperties !== undefined && s.additionalProperties !== false) problem(`${path}/additionalProperties`, "only false is supported: the answer holds the declared properties only");
      const props = s.properties;
      if (typeof props !== "object" || props === null || Array.isArray(props) || Object.keys(props).length === 0) {
        problem(`${path}/properties`, "an object must declare at least one property");
        return undefined;
      }
      const required = s.required;
      if (required !== undefined && (!Array.isArray(required) || required.some((r) => typeof r !== "string" || !(r in props)))) {
        problem(`${path}/required`, "must list names of declared properties");
      }
      const children: { name: string; node: SchemaNode }[] = [];
      for (const [name, child] of Object.entries(props)) {
        properties++;
        if (name === "" || name.length > 100) problem(`${path}/properties`, `property names must be 1 to 100 characters`);
        // Names JavaScript objects give a meaning of their own would not survive as plain keys of data.
        if (reservedNames.has(name)) problem(`${path}/properties`, `"${name}" cannot be a property name here`);
        const converted = visit(child, `${path}/properties/${escapePointer(name)}`, depth + 1);
        if (converted) children.push({ name, node: converted });
      }
      return { kind: "object", ...description, properties: children };
    }
    if (type === "array") {
      if (s["x-derived"] === true) problem(`${path}/x-derived`, "applies to leaf values, not arrays (mark the items instead)");
      if (s.maxItems !== undefined && !(Number.isInteger(s.maxItems) && (s.maxItems as number) >= 1 && (s.maxItems as number) <= 100)) problem(`${path}/maxItems`, "must be an integer from 1 to 100");
      const items = visit(s.items, `${path}/items`, depth + 1);
      if (!items) return undefined;
      return { kind: "array", ...description, items, ...(typeof s.maxItems === "number" ? { maxItems: s.maxItems } : {}) };
    }

    leaves++;
    const options: Record<string, unknown> = { ...description };
    if (s.enum !== undefined) {
      const ok = Array.isArray(s.enum) && s.enum.length > 0 && s.enum.length <= 100 && s.enum.every((v) => (type === "string" ? typeof v === "string" : typeof v === "number" && (type === "number" || Number.isInteger(v))));
      if (!ok) problem(`${path}/enum`, `must be 1 to 100 values of type ${type}`);
    }
    for (const key of ["minLength", "maxLength"] as const) {
      if (s[key] !== undefined) {
        if (!(Number.isInteger(s[key]) && (s[key] as number) >= 0)) problem(`${path}/${key}`, "must be a non-negative integer");
        else options[key] = s[key];
      }
    }
    for (const key of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const) {
      if (s[key] !== undefined) {
        if (typeof s[key] !== "number" || !Number.isFinite(s[key])) problem(`${path}/${key}`, "must be a number");
        else options[key] = s[key];
      }
    }
    if (s.format !== undefined && !(typeof s.format === "string" && formats.has(s.format))) problem(`${path}/format`, `supported formats: ${[...formats].join(", ")}`);
    const hasEnum = Array.isArray(s.enum) && s.enum.length > 0;
    const hasFormat = typeof s.format === "string" && formats.has(s.format);
    const derived = s["x-derived"] === true;
    let typebox: TSchema;
    if (hasEnum) typebox = t.Union((s.enum as (string | number)[]).map((v) => t.Literal(v)), options);
    else if (type === "string") typebox = t.String({ ...options, ...(hasFormat ? { format: s.format as string } : {}) });
    else if (type === "number") typebox = t.Number(options);
    else if (type === "integer") typebox = t.Integer(options);
    else typebox = t.Boolean(options);
    return { kind: "leaf", type: type as LeafType, derived, literal: !derived && !hasEnum && !hasFormat && type !== "boolean", ...description, typebox };
  };

  if (typeof schema !== "object" || schema === null || (schema as { type?: unknown }).type !== "object") {
    return { ok: false, issues: [{ path: "/schema", message: 'the top of the schema must be {"type": "object", "properties": {...}}' }] };
  }
  const root = visit(schema, "", 1);
  if (properties > schemaLimits.maxProperties) problem("", `declares ${properties} properties; at most ${schemaLimits.maxProperties} in all`);
  if (issues.length > 0 || !root || root.kind !== "object") return { ok: false, issues: issues.length > 0 ? issues : [{ path: "/schema", message: "not a supported schema" }] };
  return { ok: true, root, data: dataSchema(root, true), leaves };
}

function escapePointer(name: string): string {
  return name.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The answer's `data`: the caller's schema with every value nullable and every property present. */
function dataSchema(node: SchemaNode, top = false): TSchema {
  if (node.kind === "leaf") return t.Union([node.typebox, t.Null()]);
  if (node.kind === "array") return t.Union([t.Array(dataSchema(node.items), node.maxItems !== undefined ? { maxItems: node.maxItems } : {}), t.Null()]);
  const props: Record<string, TSchema> = {};
  for (const p of node.properties) props[p.name] = dataSchema(p.node);
  const object = t.Object(props, { additionalProperties: false });
  return top ? object : t.Union([object, t.Null()]);
}

/** JSON Pointer escaping of one property name (for evidence paths). */
export const pointerSegment = escapePointer;
