/**
 * @module mcp/envelope — a posted JSON-RPC message checked against the MCP SDK's own schemas
 * before the SDK sees it, so every refusal is the protocol's code with one plain sentence: an
 * envelope that is not JSON-RPC is -32600, params that do not fit the method are -32602 naming
 * the field (the SDK itself would answer such valid JSON with -32700, or -32603 and a zod dump).
 *
 * An integer id beyond 2^53 is valid JSON-RPC that the SDK refuses: it is swapped for a token the
 * SDK takes and restored, as the caller wrote it, in the answer.
 */
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResponseSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** The params of the methods this server serves; any other method is the SDK's -32601. */
const paramsSchemas = new Map<string, { safeParse(value: unknown): { success: boolean; error?: { issues: readonly ZodIssue[] } } }>([
  ["initialize", InitializeRequestSchema],
  ["ping", PingRequestSchema],
  ["tools/list", ListToolsRequestSchema],
  ["tools/call", CallToolRequestSchema],
]);

interface ZodIssue {
  readonly code?: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** A union's issue says only "Invalid input": say what it means. */
const issueText = (issue: ZodIssue) => (issue.code === "invalid_union" ? "is none of the types allowed there (a string or an integer for ids and progress tokens)" : issue.message.charAt(0).toLowerCase() + issue.message.slice(1));

/**
 * -32602 thrown inside a handler. Its message is the sentence alone: the SDK's McpError puts
 * "MCP error -32602:" into its message, which the answer carries and the client prefixes again.
 */
export class InvalidParams extends Error {
  readonly code = ErrorCode.InvalidParams;
  constructor(
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "InvalidParams";
  }
}

export type EnvelopeCheck =
  /** `restoreId` when the id was swapped: writes it back into the answer's text. */
  | { readonly ok: true; readonly message: Record<string, unknown>; readonly restoreId?: (answer: string) => string }
  | { readonly ok: false; readonly code: number; readonly message: string };

/** "params.name: expected string" for the first issues, each field named once. */
export function describeIssues(issues: readonly ZodIssue[]): string {
  const lines = [...new Set(issues.map((issue) => `${issue.path.map(String).join(".") || "(message)"}: ${issueText(issue)}`))];
  return lines.slice(0, 3).join("; ");
}

// A token no caller sends: an id swapped for it is put back before the answer leaves.
const idTokenPrefix = `tollbooth-rpc-id-${crypto.randomUUID()}-`;
let swaps = 0;

/**
 * The raw text of the numeric `"id"` member of each message in `text` (the body they were parsed
 * from: one object, or an array of them), in order; undefined where a message has none as written.
 * So an id beyond 2^53 is echoed digit for digit.
 */
export function rawNumericIds(text: string): (string | undefined)[] {
  const messageDepth = text.trimStart().startsWith("[") ? 2 : 1;
  const ids: (string | undefined)[] = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "{" || c === "[") {
      if (++depth === messageDepth && c === "{") ids.push(undefined);
    } else if (c === "}" || c === "]") depth--;
    else if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      if (depth !== messageDepth || text.slice(start, i + 1) !== '"id"') continue;
      const value = /^\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i + 1, i + 400));
      if (value && ids.length > 0) ids[ids.length - 1] = value[1];
    }
  }
  return ids;
}

/** One JSON-RPC message (already known to have `jsonrpc: "2.0"` and a string or number id) checked for the SDK; `rawId` is its id as written. */
export function checkEnvelope(value: Record<string, unknown>, rawId: string | undefined): EnvelopeCheck {
  let message = value;
  let restoreId: ((answer: string) => string) | undefined;
  if (typeof value.id === "number" && !Number.isSafeInteger(value.id)) {
    const raw = rawId ?? JSON.stringify(value.id);
    const token = `${idTokenPrefix}${swaps++}`;
    message = { ...value, id: token };
    restoreId = (answer) => answer.replaceAll(`"${token}"`, raw);
  }
  // The branch the message claims to be, so an issue is named in its terms (a union names none).
  const request = typeof message.method === "string";
  const envelope = (request ? ("id" in message ? JSONRPCRequestSchema : JSONRPCNotificationSchema) : JSONRPCResponseSchema).safeParse(message);
  const schema = request && "id" in message ? paramsSchemas.get(message.method as string) : undefined;
  const issues = envelope.success ? schema?.safeParse(message).error?.issues : envelope.error.issues;
  if (issues === undefined || issues.length === 0) return { ok: true, message, ...(restoreId ? { restoreId } : {}) };
  const inParams = issues.every((issue) => issue.path[0] === "params");
  return inParams
    ? { ok: false, code: ErrorCode.InvalidParams, message: `Invalid params: ${describeIssues(issues)}` }
    : { ok: false, code: ErrorCode.InvalidRequest, message: `Invalid Request: ${describeIssues(issues)}` };
}
