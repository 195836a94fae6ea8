/**
 * @module a2a/params — the params of the JSON-RPC methods this agent serves, as TypeBox schemas in
 * both wires' shapes (A2A v1.0's ProtoJSON and v0.3's `kind`-tagged JSON), checked before the
 * SDK's transport handlers read them: a request that fails is -32602 naming the first field that
 * fails, never an engine message from code that met a value of the wrong type. Fields the schemas
 * do not name pass through (the wire may grow); message parts are checked by their own kind.
 */
import { type TSchema, Type } from "@sinclair/typebox";
import { compileValidator, type ValidationIssue } from "../plugin/schema.ts";

export type Wire = "1.0" | "0.3";

const Metadata = Type.Optional(Type.Record(Type.String(), Type.Unknown()));
const Id = Type.String({ minLength: 1, maxLength: 200 });
const Strings = Type.Optional(Type.Array(Type.String(), { maxItems: 50 }));
const HistoryLength = Type.Optional(Type.Integer({ minimum: 0 }));

/** Every part is an object; its kind's own schema is checked next, so a message names the part's field. */
const message = (role: TSchema) =>
  Type.Object({
    messageId: Id,
    role,
    parts: Type.Array(Type.Object({}), { minItems: 1, maxItems: 50 }),
    taskId: Type.Optional(Type.String({ maxLength: 200 })),
    contextId: Type.Optional(Type.String({ maxLength: 200 })),
    metadata: Metadata,
    extensions: Strings,
    referenceTaskIds: Strings,
  });

const sendParams = (role: TSchema) =>
  Type.Object({
    message: message(role),
    configuration: Type.Optional(Type.Object({ historyLength: HistoryLength, acceptedOutputModes: Strings })),
    metadata: Metadata,
  });

const taskParams = Type.Object({ id: Id, historyLength: HistoryLength, metadata: Metadata });

const v1Send = sendParams(Type.Union([Type.Literal("ROLE_USER"), Type.Literal("ROLE_AGENT"), Type.Literal(1), Type.Literal(2)]));
const v03Send = sendParams(Type.Union([Type.Literal("user"), Type.Literal("agent")]));

/** The params schema of each method served, by wire. */
const methods: Record<Wire, Record<string, TSchema>> = {
  "1.0": { SendMessage: v1Send, SendStreamingMessage: v1Send, GetTask: taskParams, CancelTask: taskParams },
  "0.3": { "message/send": v03Send, "message/stream": v03Send, "tasks/get": taskParams, "tasks/cancel": taskParams },
};

const PartMeta = { metadata: Metadata, filename: Type.Optional(Type.String()), mediaType: Type.Optional(Type.String()) };
/** v1.0 parts are one of text, data, raw (base64) or url, told apart by which field is there. */
const v1Parts: [string, TSchema][] = [
  ["text", Type.Object({ text: Type.String(), ...PartMeta })],
  ["data", Type.Object({ data: Type.Unknown(), ...PartMeta })],
  ["raw", Type.Object({ raw: Type.String({ pattern: "^[A-Za-z0-9+/_-]*={0,2}$" }), ...PartMeta })],
  ["url", Type.Object({ url: Type.String({ minLength: 1 }), ...PartMeta })],
];
const FileMeta = { mimeType: Type.Optional(Type.String()), name: Type.Optional(Type.String()) };
/** v0.3 parts carry their kind. */
const v03Parts: [string, TSchema][] = [
  ["text", Type.Object({ kind: Type.Literal("text"), text: Type.String(), metadata: Metadata })],
  ["data", Type.Object({ kind: Type.Literal("data"), data: Type.Record(Type.String(), Type.Unknown()), metadata: Metadata })],
  [
    "file",
    Type.Object({
      kind: Type.Literal("file"),
      file: Type.Union([Type.Object({ bytes: Type.String(), ...FileMeta }), Type.Object({ uri: Type.String({ minLength: 1 }), ...FileMeta })]),
      metadata: Metadata,
    }),
  ],
];

type Check = (value: unknown) => ValidationIssue | undefined;
const checker = (schema: TSchema): Check => {
  const validate = compileValidator(schema);
  return (value) => {
    const checked = validate(value);
    return checked.ok ? undefined : checked.issues[0];
  };
};
const compiled = Object.fromEntries(
  (Object.keys(methods) as Wire[]).map((wire) => [wire, new Map(Object.entries(methods[wire]).map(([name, schema]) => [name, checker(schema)]))]),
) as Record<Wire, Map<string, Check>>;
const partCheckers = (parts: [string, TSchema][]) => parts.map(([key, schema]) => [key, checker(schema)] as const);
const partChecks: Record<Wire, readonly (readonly [string, Check])[]> = { "1.0": partCheckers(v1Parts), "0.3": partCheckers(v03Parts) };

/** The kind a part claims: v0.3's `kind`, or the v1.0 field it carries. */
function partIssue(wire: Wire, part: Record<string, unknown>): ValidationIssue | undefined {
  const checks = partChecks[wire];
  const claimed = wire === "0.3" ? checks.find(([kind]) => kind === part.kind) : checks.find(([key]) => part[key] !== undefined);
  if (!claimed) {
    const kinds = checks.map(([kind]) => kind).join(", ");
    return wire === "0.3" ? { path: "/kind", message: `must be one of ${kinds}` } : { path: "/", message: `must carry one of ${kinds}` };
  }
  return claimed[1](part);
}

/**
 * The first problem with a request's params, as a sentence naming the field (`params.message.parts[0].text`),
 * or undefined when they are fine or the method is not one checked here (the SDK answers those).
 */
export function paramsProblem(wire: Wire, method: string, params: unknown): string | undefined {
  const check = compiled[wire].get(method);
  if (!check) return undefined;
  const issue = check(params);
  if (issue) return sentence(issue.path, issue.message);
  const parts = (params as { message?: { parts?: Record<string, unknown>[] } }).message?.parts ?? [];
  for (const [index, part] of parts.entries()) {
    const problem = partIssue(wire, part);
    if (problem) return sentence(`/message/parts/${index}${problem.path === "/" ? "" : problem.path}`, problem.message);
  }
  return undefined;
}

/** `/message/parts/0/text` → `params.message.parts[0].text`. */
function sentence(path: string, message: string): string {
  const field = `params${path.replace(/\/(\d+)(?=\/|$)/g, "[$1]").replace(/\//g, ".")}`.replace(/\.$/, "");
  const said = message === "required" ? "is required" : message === "expected union value" ? "is not one of the allowed values" : message.replace(/^expected /, "must be ");
  return `Invalid params: ${field} ${said}.`;
}
