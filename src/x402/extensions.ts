/**
 * @module x402/extensions — the bazaar discovery extension Tollbooth declares in a 402 and the
 * echo rule: every field we advertised must come back unchanged in the PaymentPayload; the client
 * may add fields (payment-identifier, declared in payment-identifier.ts, adds `info.id`).
 */

export interface BazaarDeclaration {
  /** Example request body. */
  readonly input: unknown;
  /** Example response body. */
  readonly output?: unknown;
  /** JSON Schema of the request body. */
  readonly inputSchema: unknown;
  readonly method: string;
}

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

/** `extensions.bazaar` in the shape the official `declareDiscoveryExtension` produces. */
export function declareBazaar(decl: BazaarDeclaration): { info: unknown; schema: unknown } {
  const method = decl.method.toUpperCase();
  const hasBody = BODY_METHODS.has(method);
  const inputInfo = hasBody
    ? { type: "http", method, bodyType: "json", body: decl.input }
    : { type: "http", method, queryParams: decl.input };
  const inputSchema = hasBody
    ? {
        type: "object",
        additionalProperties: false,
        required: ["type", "method", "bodyType", "body"],
        properties: {
          type: { type: "string", const: "http" },
          method: { type: "string", enum: ["POST", "PUT", "PATCH"] },
          bodyType: { type: "string", enum: ["json", "form-data", "text"] },
          body: decl.inputSchema,
        },
      }
    : {
        type: "object",
        additionalProperties: false,
        required: ["type", "method"],
        properties: {
          type: { type: "string", const: "http" },
          method: { type: "string", enum: ["GET", "HEAD", "DELETE"] },
          queryParams: decl.inputSchema,
        },
      };
  const info: Record<string, unknown> = { input: inputInfo };
  const properties: Record<string, unknown> = { input: inputSchema };
  if (decl.output !== undefined) {
    info.output = { type: "json", example: decl.output };
    properties.output = { type: "object", required: ["type"], properties: { type: { type: "string" }, example: {} } };
  }
  return {
    info,
    schema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", required: ["input"], properties },
  };
}

export interface McpBazaarDeclaration {
  /** The MCP tool's name (`web_read`). */
  readonly toolName: string;
  readonly description: string;
  /** JSON Schema of the tool's arguments. */
  readonly inputSchema: unknown;
  /** Example arguments. */
  readonly example?: unknown;
  /** Example result. */
  readonly output?: unknown;
}

/** `extensions.bazaar` for an MCP tool (`info.input.type: "mcp"`), in the shape the official `declareDiscoveryExtension({toolName, …})` produces. */
export function declareMcpBazaar(decl: McpBazaarDeclaration): { info: unknown; schema: unknown } {
  const example = typeof decl.example === "object" && decl.example !== null ? decl.example : undefined;
  const input = { type: "mcp", toolName: decl.toolName, description: decl.description, transport: "streamable-http", inputSchema: decl.inputSchema, ...(example ? { example } : {}) };
  const info: Record<string, unknown> = { input };
  const properties: Record<string, unknown> = {
    input: {
      type: "object",
      properties: {
        type: { type: "string", const: "mcp" },
        toolName: { type: "string" },
        description: { type: "string" },
        transport: { type: "string", enum: ["streamable-http"] },
        inputSchema: { type: "object" },
        ...(example ? { example: { type: "object" } } : {}),
      },
      required: ["type", "toolName", "inputSchema"],
      additionalProperties: false,
    },
  };
  if (typeof decl.output === "object" && decl.output !== null) {
    info.output = { type: "json", example: decl.output };
    properties.output = { type: "object", properties: { type: { type: "string" }, example: { type: "object" } }, required: ["type"] };
  }
  return { info, schema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties, required: ["input"] } };
}

/** True when `echoed` contains everything in `advertised` unchanged (objects may gain keys; arrays and scalars must be equal). */
export function isEchoOf(advertised: unknown, echoed: unknown): boolean {
  if (advertised === null || typeof advertised !== "object") return Object.is(advertised, echoed);
  if (echoed === null || typeof echoed !== "object") return false;
  if (Array.isArray(advertised)) {
    return Array.isArray(echoed) && echoed.length === advertised.length && advertised.every((v, i) => isEchoOf(v, echoed[i]) && isEchoOf(echoed[i], v));
  }
  if (Array.isArray(echoed)) return false;
  const a = advertised as Record<string, unknown>;
  const e = echoed as Record<string, unknown>;
  return Object.keys(a).every((k) => Object.hasOwn(e, k) && isEchoOf(a[k], e[k]));
}

/**
 * Echo check of a payment's extensions against what we advertised. A client that sends no
 * extensions at all is accepted (it changed nothing); one that sends a declared extension altered
 * or drops one while echoing others is refused, except the `optional` ones, which may be left out.
 */
export function checkExtensionEcho(
  advertised: Record<string, unknown> | undefined,
  echoed: Record<string, unknown> | undefined,
  optional: readonly string[] = [],
): boolean {
  if (!advertised || !echoed) return true;
  return Object.keys(advertised).every((k) =>
    Object.hasOwn(echoed, k) ? isEchoOf(advertised[k], echoed[k]) : optional.includes(k),
  );
}
