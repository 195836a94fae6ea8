/**
 * Fuzz: malformed requests over raw TCP (node:net) against the real server on 127.0.0.1, half with
 * payments off and half with payments on (settling through a loopback facilitator that speaks the
 * facilitator API and refuses every payment). Every route is hit — the free documents, each plugin
 * route, /v1/jobs and /v1/jobs/<skill>, job polls, payment lookups, unknown paths — with bad JSON,
 * wrong types, sizes, nesting, unicode, bad headers (Host, Content-Type, Content-Length, chunked,
 * Idempotency-Key), odd methods and forged PAYMENT-SIGNATURE headers; POST /mcp with broken JSON-RPC,
 * batches, odd ids, unknown tools and methods, arguments of every shape, forged `_meta["x402/payment"]`
 * values, missing Accept and foreign Origins; POST /a2a with broken JSON-RPC, batches, odd ids, unknown
 * methods, messages naming real and unknown skills with data parts of every shape, forged
 * `x402.payment.*` metadata (statuses, payloads) and tasks/get|cancel of unknown or malformed task ids;
 * the agent doors with a foreign Host or Origin (DNS rebinding: must be 403), ids beyond 2^53 and
 * object progress tokens (valid JSON: never -32700); POST /v1/evidence/verify with forged and
 * altered attestations, JWS parts nested thousands deep, lone surrogates and huge strings.
 * Three servers: payments off (every name resolves to a private address), payments off with pages
 * served on loopback (reads succeed, so every evidence result must be signed or say why not), and
 * payments on with the same pages and a facilitator that refuses every payment (so no paid result
 * may ever be released). Deterministic per seed.
 *
 * Prints counts by status and lists every answer that is 500 or above (other than a documented
 * upstream 502/503/504), every body that is not JSON where JSON is due, every answer holding an
 * HTML page, a stack trace or the server's working directory, every request that got no answer at
 * all, every agent-door answer below 400 to a foreign Host or Origin, every valid JSON-RPC message
 * answered -32700, every evidence result delivered without attestation or attestation_error, and
 * every paid result (attestation, a payment response, payment-completed) released while nothing settles.
 * Bun's own answers that never reach Tollbooth (431 for headers over its limit, 400 for bytes
 * that are not HTTP) are counted apart: they are documented in the README.
 *
 * Nothing leaves the machine: the server's resolver maps every name to a private address (so the
 * fetch guard refuses it before any connection) and URL fields only ever hold IP literals.
 *
 *   bun scripts/bench/fuzz.ts [--count 10000] [--seed 1] [--concurrency 24]
 *
 * Exits 1 when anything is listed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startService, userAgentFor } from "../../src/boot.ts";
import { loadRegistry } from "../../src/loader/registry.ts";
import { loadConfig } from "../../src/config.ts";
import { freeRoutes } from "../../src/docs/free-routes.ts";
import { toolNameOf } from "../../src/mcp/tools.ts";
import { createLogger } from "../../src/log.ts";
import { createWebEngine } from "../../src/web/engine.ts";
import { encodeBase64Json, decodePaymentRequired } from "../../src/x402/headers.ts";
import type { PaymentRequirements } from "../../src/x402/messages.ts";
import { startFacilitatorServer } from "../../test/support/facilitator.ts";
import { head, type RawResponse, rawRequest } from "../../test/support/raw-http.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const COUNT = option("count", 10_000);
const SEED = option("seed", 1);
const CONCURRENCY = option("concurrency", 24);

// ── deterministic randomness ────────────────────────────────────────────────
let state = SEED >>> 0 || 1;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const int = (n: number) => Math.floor(random() * n);
const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;

// ── values ──────────────────────────────────────────────────────────────────
/** URL values: IP literals and malformed ones only, so no name is ever looked up. */
const urls = [
  "http://127.0.0.1/", "http://10.0.0.1/x", "http://[::1]/", "http://0.0.0.0/", "http://169.254.169.254/latest/meta-data",
  "http://user:pw@127.0.0.1/", "ftp://127.0.0.1/", "file:///etc/passwd", "javascript:alert(1)", "data:text/html,hi",
  "http://2130706433/", "http://0x7f000001/", "http://127.0.0.1:22/", "https://10.1.2.3:443/" + "a".repeat(3000), "http://", "http://[::ffff:127.0.0.1]/",
  "", " ", "not a url", "%ff", "http://127.0.0.1/\u0000", "http://127.0.0.1/\ud800",
];
/** Strings without ":" (so none parses as an absolute URL with a host name). */
const strings = [
  "", "a", "x".repeat(5_000), "x".repeat(200_000), "\u0000", "\ud800", "\udfff\ud800", "\u202eevil", "😀".repeat(100), "null", "true", "[]", "{}",
  "<script>alert(1)</script>", "' OR 1=1 --", "../../etc/passwd", "%00%ff", "\r\nX-Injected", "\\u0000", "ä".repeat(1000), "\ufeff", "word count",
];
const scalars: unknown[] = [null, true, false, 0, -1, 1e308, -1e308, 1.5, 2 ** 53 + 1, "", [], {}, [1, 2], { a: 1 }];
const anyValue = (): unknown => (random() < 0.3 ? pick(urls) : random() < 0.6 ? pick(strings) : pick(scalars));
const deep = (depth: number, open = "[", close = "]") => open.repeat(depth) + close.repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);

// ── the request generators ──────────────────────────────────────────────────
interface Target {
  readonly port: number;
  readonly paid: boolean;
  /** The offers the paid server made (one per network), for payment headers that match one. */
  readonly offers?: readonly PaymentRequirements[];
}

interface Plan {
  readonly category: string;
  readonly bytes: string | Uint8Array;
  /** Trickle or cut the body after the head. */
  readonly then?: Parameters<typeof rawRequest>[2] extends infer O ? (O extends { then?: infer T } ? T : never) : never;
  readonly timeoutMs?: number;
  /** An agent door asked from a foreign Host or Origin: anything below 400 is a finding. */
  readonly mustRefuse?: boolean;
  /** Valid JSON-RPC: -32700 is a finding. */
  readonly validJson?: boolean;
}

let postRoutes: string[] = [];
let toolNames: string[] = [];
/** The agent card's skill ids: endpoints by their id, job skills by theirs (or jobs.<id> beside an endpoint of that id). */
let a2aSkills: string[] = [];
let skills: string[] = [];
let examples = new Map<string, Record<string, unknown>>();
const getRoutes = [...freeRoutes.map((r) => r.path), "/v1/jobs/job_00000000000000000000000000000000", "/v1/jobs/nope", "/v1/payments/0xabc", "/v1/payments/%ff", "/v1/payments/" + "a".repeat(3000), "/nope", "/", "/v1", "/v1/jobs"];

const hosts = ["127.0.0.1", "app", "a", "a b", "a:99999", "%", "", "[::1]", "x".repeat(300), "évil.example", "127.0.0.1:0", "host:port", "[zz]", "a..b", "-a-"];
const contentTypes = ["application/json", "application/json; charset=utf-8", "text/plain", "", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/problem+json", "application/json; charset=bogus", "APPLICATION/JSON", "application/jsonx"];
const methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE", "FOO", "get", "PROPFIND"];

/** Selectors that match the loopback page, some holding a lone surrogate (a result that could not be signed). */
const selectors = ["main", "main, x\ud800", "h1\udfff, main", "main\ud800", "p"];

/** The loopback page's URLs (some holding lone surrogates), picked half the time against a server that reads pages. */
const siteUrls: string[] = [];
let readsPages = false;
const anyUrl = () => (readsPages && random() < 0.5 ? pick(siteUrls) : pick(urls));

function withUrls(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = k === "url" ? anyUrl() : k === "urls" ? [anyUrl(), anyUrl()] : v;
  if ((out.url !== undefined || out.urls !== undefined) && random() < 0.2) out.selector = pick(selectors);
  return out;
}

/** `valid`: how often the body is the route's example (URLs swapped), so payment headers get past validation. */
function bodyFor(path: string, valid = 0.1): string {
  const base = examples.get(path) ?? {};
  const kind = random() < valid ? -1 : int(14);
  switch (kind) {
    case 0: return JSON.stringify(withUrls(base)).slice(0, int(30));
    case 1: return "{" + pick(strings).slice(0, 50);
    case 2: return JSON.stringify(pick(scalars));
    case 3: {
      const mutated: Record<string, unknown> = withUrls(base);
      for (const key of [...Object.keys(mutated), "extra", "skill", "url", "urls", "selector", "max_chars", "json_only", "prompt"]) if (random() < 0.4) mutated[key] = anyValue();
      return JSON.stringify(mutated);
    }
    case 4: return `{"${pick(["skill", "url", "urls", "x", "selector"])}": ${random() < 0.5 ? deep(65 + int(30_000)) : deepObject(65 + int(5_000))}}`;
    case 5: return `{"a": ${deep(60)}, "b": ${deep(64)}}`;
    case 6: return JSON.stringify({ ...withUrls(base), pad: "x".repeat(int(2) ? 1_100_000 : 900_000) });
    case 7: return Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]).toString("latin1");
    case 8: return JSON.stringify({ ...withUrls(base), s: "\ud800\udc00\ud800", z: "\u0000\u0001", rtl: "\u202e" });
    case 9: return "";
    case 10: return '{"a":1,"a":2,"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}';
    case 11: return JSON.stringify(Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i])));
    case 12: return `[${Array.from({ length: 100_000 }, () => "0").join(",")}]`;
    default: return JSON.stringify(withUrls(base));
  }
}

function paymentHeader(target: Target): Record<string, string> {
  const offer = target.offers ? pick(target.offers) : undefined;
  const kind = int(12);
  const b64 = (value: unknown) => encodeBase64Json(value);
  switch (kind) {
    case 0: return { "PAYMENT-SIGNATURE": "not base64!!" };
    case 1: return { "PAYMENT-SIGNATURE": Buffer.from("not json").toString("base64") };
    case 2: return { "PAYMENT-SIGNATURE": Buffer.from(`{"x402Version":2,"payload":${deep(3_000)}}`).toString("base64") };
    case 3: return { "PAYMENT-SIGNATURE": b64({ x402Version: 1, scheme: "exact" }) };
    case 4: return { "X-PAYMENT": b64({ x402Version: 1 }) };
    case 5: return { "PAYMENT-SIGNATURE": b64({ x402Version: 2, accepted: { ...offer, amount: "1" }, payload: {} }) };
    case 6: return { "PAYMENT-SIGNATURE": b64({ x402Version: 2, accepted: offer, payload: { authorization: { from: "0x" + "1".repeat(40) } } }) };
    case 7:
      return {
        "PAYMENT-SIGNATURE": b64({
          x402Version: 2,
          accepted: offer,
          payload: {
            signature: "0x" + "ab".repeat(65),
            authorization: { from: "0x" + "2".repeat(40), to: offer?.payTo, value: offer?.amount, validAfter: "0", validBefore: String(Math.floor(Date.now() / 1000) + 600), nonce: "0x" + "00".repeat(32) },
          },
          extensions: { "payment-identifier": { info: { id: pick(["short", "x".repeat(200), "valid_payment_id_0001", "bad id with spaces!!"]) } } },
        }),
      };
    case 8: return { "PAYMENT-SIGNATURE": b64({ x402Version: 2, accepted: offer, payload: { authorization: pick(scalars) }, extensions: pick(scalars) }) };
    case 9: return { "PAYMENT-SIGNATURE": "A".repeat(40_000) };
    case 10: return { "PAYMENT-SIGNATURE": b64({ x402Version: 2, accepted: { ...offer, network: pick(["algorand", "solana:x", "eip155:1", "", "%"]) }, payload: { paymentGroup: [pick(strings).slice(0, 20)], paymentIndex: pick([0, 5, -1, 1.5]) } }) };
    default: return { "PAYMENT-SIGNATURE": b64({ x402Version: 2, accepted: offer, payload: { signature: "0x", authorization: {} }, resource: { url: pick(urls) } }) };
  }
}

function otherHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  if (random() < 0.25) headers["Idempotency-Key"] = pick(["k1", "", "x".repeat(300), "ключ", "a b", "fuzz-" + int(50)]);
  if (random() < 0.05) headers["X-Big"] = "b".repeat(pick([8_000, 15_000, 20_000]));
  if (random() < 0.05) headers["If-None-Match"] = pick(['"x"', "*", "", "W/" + "a".repeat(1000)]);
  if (random() < 0.05) headers["Origin"] = pick(["https://a.example", "null", ""]);
  return headers;
}

/** A `_meta["x402/payment"]` value: the decoded forms of the forged headers above, and shapes no header can carry. */
function mcpPayment(target: Target): unknown {
  const offer = target.offers ? pick(target.offers) : undefined;
  if (random() < 0.3) return pick([...scalars, "not an object", "A".repeat(40_000), deepObject(70)]);
  const header = Object.values(paymentHeader(target))[0] ?? "";
  const decoded = (() => {
    try {
      return JSON.parse(Buffer.from(header, "base64").toString("utf8")) as unknown;
    } catch {
      return header;
    }
  })();
  return random() < 0.2 ? { x402Version: 2, accepted: offer, payload: pick(scalars) } : decoded;
}

/** A foreign name an attacker's page could point at 127.0.0.1; with an Origin that agrees, or none, or a loopback Host with a foreign Origin. */
function foreignDoor(target: Target): { host: string; origin?: string } {
  const evil = pick(["evil.example", "rebind.attacker.test", "127.0.0.1.nip.io", "localhost.evil.example"]);
  return pick([{ host: `${evil}:${target.port}`, origin: `http://${evil}:${target.port}` }, { host: evil }, { host: `127.0.0.1:${target.port}`, origin: pick([`http://${evil}`, "null", "https://127.0.0.1.evil.example"]) }]);
}

/** Valid JSON-RPC the MCP SDK alone would call a parse error: ids beyond 2^53, object progress tokens. */
const validButOdd = [
  '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}',
  '{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list"}',
  '{"jsonrpc":"2.0","id":-9007199254740993,"method":"tools/list","params":{"_meta":{"progressToken":{"a":1}}}}',
  '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"job_status","arguments":{"job_id":"job_00000000000000000000000000000000"},"_meta":{"progressToken":[1,2]}}}',
  '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
];

function mcpPlan(target: Target, host: string): Plan {
  const tool = random() < 0.9 ? pick(toolNames) : pick(["", "x".repeat(300), "web.read", "../etc", "\u0000", "job_status "]);
  const id = pick<unknown>([1, "a", null, 1.5, -1, {}, [], true, "x".repeat(500), 2 ** 60]);
  const example = withUrls((examples.get(pick([...examples.keys()])) ?? {}) as Record<string, unknown>);
  for (const key of Object.keys(example)) if (random() < 0.3) example[key] = anyValue();
  const argumentsValue = random() < 0.6 ? example : pick([...scalars, { job_id: pick(strings) }, { id: pick(strings) }, { extra: anyValue() }]);
  const meta = target.paid && random() < 0.6 ? { "x402/payment": mcpPayment(target) } : random() < 0.1 ? pick<unknown>([null, "x", [], { "x402/payment": null }]) : undefined;
  const call = { jsonrpc: "2.0", id, method: "tools/call", params: { name: tool, arguments: argumentsValue, ...(meta !== undefined ? { _meta: meta } : {}) } };
  const kind = int(12);
  const foreign = kind === 10 ? foreignDoor(target) : undefined;
  if (foreign) host = foreign.host;
  const body =
    kind === 11 ? pick(validButOdd)
    : kind === 0 ? JSON.stringify(call).slice(0, int(60))
    : kind === 1 ? JSON.stringify([call, { jsonrpc: "2.0", method: "notifications/initialized" }, pick(scalars)])
    : kind === 2 ? JSON.stringify({ ...call, jsonrpc: pick(["1.0", 2, null, ""]) })
    : kind === 3 ? JSON.stringify({ jsonrpc: "2.0", id, method: pick(["tools/list", "initialize", "ping", "resources/list", "no/such", "", "tools/call"]), params: pick<unknown>([undefined, {}, [], "x", { protocolVersion: pick(["2025-06-18", "1999-01-01", 7]), capabilities: {}, clientInfo: { name: "f", version: "1" } }]) })
    : kind === 4 ? `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${deepObject(65 + int(3_000))}}`
    : kind === 5 ? JSON.stringify({ jsonrpc: "2.0", id: 1, result: pick(scalars) })
    : kind === 6 ? JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: tool, arguments: { pad: "x".repeat(int(2) ? 1_100_000 : 900_000) } } })
    : JSON.stringify(call);
  const headers: Record<string, string> = {
    Host: host,
    Connection: "close",
    "Content-Type": random() < 0.9 ? "application/json" : pick(contentTypes),
    "Content-Length": String(Buffer.byteLength(body, "utf8")),
    ...(random() < 0.9 ? { Accept: "application/json, text/event-stream" } : random() < 0.5 ? { Accept: pick(["application/json", "text/event-stream", "*/*", ""]) } : {}),
    ...(random() < 0.3 ? { "Mcp-Protocol-Version": pick(["2025-06-18", "2024-11-05", "1999-01-01", "", "x".repeat(300)]) } : {}),
    ...(random() < 0.15 ? { Origin: pick(["https://evil.example", "null", "", `http://127.0.0.1:${target.port}`]) } : {}),
    ...(foreign?.origin !== undefined ? { Origin: foreign.origin } : {}),
    ...(random() < 0.05 ? { "Mcp-Session-Id": pick(["abc", "", "x".repeat(1000)]) } : {}),
  };
  const method = foreign || kind === 11 ? "POST" : random() < 0.95 ? "POST" : pick(methods);
  return {
    category: foreign ? "POST mcp, foreign host" : kind === 11 ? "POST mcp, valid odd JSON-RPC" : `${method} mcp`,
    bytes: Buffer.concat([Buffer.from(head(`${method} /mcp HTTP/1.1`, headers), "latin1"), Buffer.from(body, "utf8")]),
    timeoutMs: 8_000,
    ...(foreign ? { mustRefuse: true } : {}),
    ...(kind === 11 && headers.Accept === "application/json, text/event-stream" && headers["Content-Type"] === "application/json" && !headers.Origin ? { validJson: true } : {}),
  };
}

/** POST /a2a: v0.3 JSON-RPC with messages naming skills, forged x402.payment.* metadata and unknown tasks. */
function a2aPlan(target: Target, host: string): Plan {
  const skill = random() < 0.85 ? pick(a2aSkills) : pick(["", "x".repeat(300), "web_read", "../etc", "\u0000", "jobs.nope"]);
  const id = pick<unknown>([1, "a", null, 1.5, -1, {}, [], true, "x".repeat(500), 2 ** 60]);
  const example = withUrls((examples.get(pick([...examples.keys()])) ?? {}) as Record<string, unknown>);
  for (const key of Object.keys(example)) if (random() < 0.3) example[key] = anyValue();
  const parts =
    random() < 0.7
      ? [{ kind: "data", data: random() < 0.8 ? { skill, ...example } : anyValue() }]
      : pick<unknown>([[{ kind: "text", text: pick(strings) }], [], "x", [{ kind: "file", file: { uri: "file:///etc/passwd" } }], [{ kind: pick(["", "data", 7]) }]]);
  const status = pick<unknown>(["payment-submitted", "payment-rejected", "payment-required", "payment-completed", "", 7, null]);
  const metadata =
    random() < 0.5
      ? { "x402.payment.status": status, ...(random() < 0.7 ? { "x402.payment.payload": target.paid ? mcpPayment(target) : anyValue() } : {}) }
      : random() < 0.2 ? pick<unknown>([null, "x", [], { skill }]) : undefined;
  const taskId = pick<unknown>([undefined, "00000000-0000-4000-8000-000000000000", "x".repeat(300), 7, "", null]);
  const message = { kind: "message", role: pick(["user", "agent", "", 3]), messageId: pick<unknown>(["m1", "", null, 5]), parts, ...(metadata !== undefined ? { metadata } : {}), ...(taskId !== undefined ? { taskId } : {}) };
  const send = { jsonrpc: "2.0", id, method: "message/send", params: { message } };
  const kind = int(11);
  const foreign = kind === 10 ? foreignDoor(target) : undefined;
  if (foreign) host = foreign.host;
  const body =
    kind === 0 ? JSON.stringify(send).slice(0, int(60))
    : kind === 1 ? JSON.stringify([send, send])
    : kind === 2 ? JSON.stringify({ ...send, jsonrpc: pick(["1.0", 2, null, ""]) })
    : kind === 3 ? JSON.stringify({ jsonrpc: "2.0", id, method: pick(["tasks/get", "tasks/cancel", "message/stream", "tasks/resubscribe", "SendMessage", "no/such", ""]), params: pick<unknown>([undefined, {}, [], "x", { id: taskId }, { id: pick(strings) }]) })
    : kind === 4 ? `{"jsonrpc":"2.0","id":1,"method":"message/send","params":${deepObject(65 + int(3_000))}}`
    : kind === 5 ? JSON.stringify({ jsonrpc: "2.0", id: 1, result: pick(scalars) })
    : kind === 6 ? JSON.stringify({ ...send, params: { message: { ...message, parts: [{ kind: "data", data: { skill, pad: "x".repeat(int(2) ? 1_100_000 : 900_000) } }] } } })
    : JSON.stringify(send);
  const headers: Record<string, string> = {
    Host: host,
    Connection: "close",
    "Content-Type": random() < 0.9 ? "application/json" : pick(contentTypes),
    "Content-Length": String(Buffer.byteLength(body, "utf8")),
    ...(random() < 0.2 ? { "X-A2A-Extensions": pick(["https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2", "", "x".repeat(300)]) } : {}),
    ...(random() < 0.1 ? { Origin: pick(["https://evil.example", "null", ""]) } : {}),
    ...(foreign?.origin !== undefined ? { Origin: foreign.origin } : {}),
  };
  const method = foreign ? "POST" : random() < 0.95 ? "POST" : pick(methods);
  return {
    category: foreign ? "POST a2a, foreign host" : `${method} a2a`,
    bytes: Buffer.concat([Buffer.from(head(`${method} /a2a HTTP/1.1`, headers), "latin1"), Buffer.from(body, "utf8")]),
    timeoutMs: 8_000,
    ...(foreign ? { mustRefuse: true } : {}),
  };
}

/** A real attestation to forge from (taken at start from the server that reads loopback pages). */
let signedResult: Record<string, unknown> | undefined;

const b64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");

/** POST /v1/evidence/verify: forged, altered and hostile attestations. */
function verifyPlan(target: Target, host: string): Plan {
  const real = signedResult ?? { ok: true, text: "x", attestation: { jws: "a.b.c", kid: "k" } };
  const jws = String((real.attestation as { jws?: string } | undefined)?.jws ?? "a.b.c");
  const [h = "", p = "", sig = ""] = jws.split(".");
  const nested = (depth: number) => (random() < 0.5 ? `{"alg":${deep(depth)}}` : `{"statement":${deepObject(depth)}}`);
  const kind = int(12);
  const forged: unknown =
    kind === 0 ? { ...real, attestation: { jws: `${b64url(nested(65 + int(8_000)))}.${p}.${sig}`, kid: "k" } }
    : kind === 1 ? { ...real, attestation: { jws: `${h}.${b64url(nested(65 + int(8_000)))}.${sig}`, kid: "k" } }
    : kind === 2 ? { ...real, text: `${String(real.text ?? "")}!` }
    : kind === 3 ? { ...real, attestation: { jws: `${h}.${b64url('{"statement":"tollbooth-evidence/1","url":"\ud800"}')}.${sig}`, kid: pick(strings) } }
    : kind === 4 ? { ...real, url: pick(urls), selector: pick(strings) }
    : kind === 5 ? { ok: true, batch: true, results: Array.from({ length: 1 + int(50) }, () => (random() < 0.7 ? real : pick(scalars))) }
    : kind === 6 ? { ...real, attestation: { jws: pick(["", "..", "a.b", "x".repeat(200_000), `${h}.${p}.${"A".repeat(5_000)}`, `${h}..${sig}`]), kid: pick(strings) } }
    : kind === 7 ? { ...real, source_base64: pick(["", "!!!", "A".repeat(500_000), Buffer.from("other").toString("base64")]) }
    : kind === 8 ? { ...real, attestation: { jws, kid: pick(strings) }, text_sha256: pick(strings), markdown: pick(strings), data: anyValue() }
    : kind === 9 ? pick(scalars)
    : kind === 10 ? { ...real, attestation: { jws: `${b64url(JSON.stringify({ alg: pick(["none", "HS256", "EdDSA"]), typ: "tollbooth-evidence+jws", kid: pick(strings) }))}.${p}.${sig}`, kid: "k" } }
    : real;
  const body = kind === 11 && random() < 0.5 ? `{"attestation":${deep(65 + int(20_000))}}` : JSON.stringify(forged);
  const headers = { Host: host, Connection: "close", "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body, "utf8")) };
  return { category: "POST evidence/verify", bytes: Buffer.concat([Buffer.from(head(`POST /v1/evidence/verify HTTP/1.1`, headers), "latin1"), Buffer.from(body, "utf8")]), timeoutMs: 8_000 };
}

/** A read of the loopback page that succeeds unless its URL or selector holds a lone surrogate: its result must be signed, or say why not. */
function pagePlan(target: Target): Plan {
  const route = pick(["/v1/web/read", "/v1/web/fetch", "/v1/web/markdown", "/v1/web/changes"]);
  const batch = random() < 0.3;
  const input = {
    ...(batch ? (route === "/v1/web/changes" ? { items: [pick(siteUrls), `${sitePageOf()}?b=${int(1000)}`] } : { urls: [pick(siteUrls), `${sitePageOf()}?b=${int(1000)}`] }) : { url: pick(siteUrls) }),
    ...(random() < 0.5 ? { selector: pick(selectors) } : {}),
  };
  const extra = target.paid && random() < 0.7 ? paymentHeader(target) : {};
  if (random() < 0.3) {
    const body = JSON.stringify({ jsonrpc: "2.0", id: int(1000), method: "tools/call", params: { name: toolNameOf(route.slice(4).replace("/", ".")), arguments: input, ...(target.paid && random() < 0.7 ? { _meta: { "x402/payment": mcpPayment(target) } } : {}) } });
    const headers = { Host: "127.0.0.1", Connection: "close", "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Content-Length": String(Buffer.byteLength(body, "utf8")) };
    return { category: "POST mcp, page read", bytes: Buffer.concat([Buffer.from(head("POST /mcp HTTP/1.1", headers), "latin1"), Buffer.from(body, "utf8")]), timeoutMs: 15_000 };
  }
  const body = JSON.stringify(input);
  const headers = { Host: "127.0.0.1", Connection: "close", "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body, "utf8")), ...extra };
  return { category: "POST page read", bytes: Buffer.concat([Buffer.from(head(`POST ${route} HTTP/1.1`, headers), "latin1"), Buffer.from(body, "utf8")]), timeoutMs: 15_000 };
}

function plan(target: Target): Plan {
  const roll = random();
  const host = random() < 0.85 ? "127.0.0.1" : pick(hosts);
  if (readsPages && random() < 0.15) return pagePlan(target);
  const transport = random();
  if (transport < 0.22) return mcpPlan(target, host);
  if (transport < 0.4) return a2aPlan(target, host);
  if (transport < 0.5) return verifyPlan(target, host);
  const extra = { ...otherHeaders(), ...(target.paid && random() < 0.7 ? paymentHeader(target) : {}) };
  if (roll < 0.2) {
    // GET routes (and odd paths, queries)
    const path = pick(getRoutes) + (random() < 0.2 ? pick(["?a=%ff", "?x=" + "y".repeat(5000), "?a=1&a=2", "?\u00e9", "#frag", "?%"]) : "");
    const method = random() < 0.85 ? "GET" : pick(methods);
    return { category: `${method} document`, bytes: head(`${method} ${path} HTTP/1.1`, { Host: host, Connection: "close", ...extra }) };
  }
  if (roll < 0.85) {
    const path = random() < 0.1 ? pick(["/v1/jobs/nope", "/v1/jobs/%ff", "/v1/jobs/" + "s".repeat(500), "/v1/unknown", "/v1/web/read/", "//v1/jobs", "/v1/jobs/../jobs"]) : pick(postRoutes);
    const body = bodyFor(path, target.paid || readsPages ? 0.5 : 0.1);
    const method = random() < 0.9 ? "POST" : pick(methods);
    const type = random() < 0.85 ? "application/json" : pick(contentTypes);
    const length = Buffer.byteLength(body, "latin1");
    const cl = random() < 0.9 ? String(length) : pick(["-1", "abc", "99999999999999999999", String(length + 1), "0", "1e3", ""]);
    const headers: Record<string, string> = { Host: host, Connection: "close", ...(type ? { "Content-Type": type } : {}), "Content-Length": cl, ...extra };
    return { category: `${method} ${path.startsWith("/v1/jobs") ? "jobs" : "plugin"}`, bytes: Buffer.from(head(`${method} ${path} HTTP/1.1`, headers) + body, "latin1"), timeoutMs: 8_000 };
  }
  if (roll < 0.9) {
    // chunked bodies, good and broken
    const path = pick(postRoutes);
    const body = bodyFor(path);
    const chunk = random() < 0.5 ? `${Buffer.byteLength(body, "latin1").toString(16)}\r\n${body}\r\n0\r\n\r\n` : pick(["zz\r\nabc\r\n0\r\n\r\n", "5\r\nab\r\n0\r\n\r\n", `ffffffffff\r\n${body}`, "0\r\n\r\n"]);
    const both: Record<string, string> = random() < 0.3 ? { "Content-Length": "5" } : {};
    return { category: "POST chunked", bytes: Buffer.from(head(`POST ${path} HTTP/1.1`, { Host: host, Connection: "close", "Content-Type": "application/json", "Transfer-Encoding": "chunked", ...both, ...extra }) + chunk, "latin1"), timeoutMs: 8_000 };
  }
  if (roll < 0.95) {
    // broken request lines and protocol versions
    const line = pick([
      "GET /health HTTP/1.0\r\n\r\n", "CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n", "GET * HTTP/1.1\r\nHost: a\r\n\r\n", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n",
      "GET http://127.0.0.1/health HTTP/1.1\r\nHost: other\r\nConnection: close\r\n\r\n", "GET /health HTTP/9.9\r\nHost: a\r\n\r\n", "GET /health\r\n\r\n", "\r\n\r\n",
      "GET /he alth HTTP/1.1\r\nHost: a\r\n\r\n", "GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n", "GET /health HTTP/1.1\r\nBad Header\r\nHost: a\r\n\r\n",
      "GET /%ff%fe HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", "GET /\u00ff HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", "POST /v1/jobs HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
      "GET /health HTTP/1.1\r\nHost: a\r\nX: \u0000\r\nConnection: close\r\n\r\n", "\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003",
    ]);
    return { category: "request line", bytes: Buffer.from(line, "latin1"), timeoutMs: 4_000 };
  }
  // a body trickled, cut off or never sent
  const path = pick(postRoutes);
  const cut = random() < 0.5;
  return {
    category: cut ? "upload cut off" : "body never finished",
    bytes: head(`POST ${path} HTTP/1.1`, { Host: "127.0.0.1", "Content-Type": "application/json", "Content-Length": 500, Connection: "close" }) + '{"url":',
    then: async (socket) => {
      await Bun.sleep(50);
      if (cut) socket.destroy();
    },
    timeoutMs: 6_000,
  };
}

// ── running ─────────────────────────────────────────────────────────────────
interface Finding {
  readonly server: string;
  readonly category: string;
  readonly status: number;
  readonly problem: string;
  readonly request: string;
  readonly body: string;
}

// SKILL_UNAVAILABLE: a model skill on a server without a language model (as RENDER_UNAVAILABLE without a browser).
const documentedUpstream = new Set(["DNS_FAILED", "SOURCE_UNREACHABLE", "SOURCE_TIMEOUT", "RENDER_UNAVAILABLE", "RENDER_TIMEOUT", "RENDER_FAILED", "SETTLEMENT_PENDING", "SKILL_UNAVAILABLE"]);
const cwd = process.cwd();

const requestText = (p: Plan) => (typeof p.bytes === "string" ? p.bytes : Buffer.from(p.bytes).toString("latin1"));
/** Methods Bun's parser knows; it closes the connection on any other (`FOO`, `get`) before a request exists. */
const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "PROPFIND", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK", "REPORT", "SEARCH", "PURGE", "QUERY"]);

/**
 * Answers Bun gives before a request reaches Tollbooth (documented in the README): an empty 431
 * for headers over its limit, an empty 400 or 505 for bytes that are not an HTTP/1.x request, a
 * closed connection for an unknown method. Ours always carry X-Request-Id.
 */
function bunOwn(res: RawResponse, p: Plan): boolean {
  if (res.status === 0) return res.closed && !knownMethods.has(requestText(p).split(" ", 1)[0] ?? "");
  return [400, 431, 505].includes(res.status) && res.body === "" && res.headers["x-request-id"] === undefined;
}

/** A stack frame (`at f (file.ts:1:2)`) or an engine message naming minified code. */
const stackPattern = /\bat [^\s"]+ \([^)]*:\d+:\d+\)|\bat [^\s"]+\.(?:ts|js):\d+|is not a function|evaluating '/;

/**
 * What an answer says it released: signed evidence, a payment response, a completed payment; and
 * evidence results that carry neither attestation nor attestation_error. Walks JSON, and the JSON
 * inside MCP text content and SSE data lines.
 */
/** Schemas and examples describe results, and an A2A task's history echoes the caller's own (forged) messages: none is a release. */
const schemaKeys = new Set(["properties", "inputSchema", "outputSchema", "examples", "example", "schema", "history"]);

function released(text: string): { paid?: string; unsigned?: string } {
  const found: { paid?: string; unsigned?: string } = {};
  const walk = (value: unknown, path: string, depth: number): void => {
    if (depth > 80) return;
    if (typeof value === "string") {
      if (value.startsWith("{") && value.includes("sha256")) {
        try {
          walk(JSON.parse(value), `${path}(json)`, depth + 1);
        } catch {}
      }
      return;
    }
    if (Array.isArray(value)) return value.forEach((item, i) => walk(item, `${path}.${i}`, depth + 1));
    if (typeof value !== "object" || value === null) return;
    const o = value as Record<string, unknown>;
    if (o.attestation !== undefined) found.paid ??= `${path}.attestation`;
    if (o.ok === true && typeof o.text_sha256 === "string" && typeof o.source_sha256 === "string" && o.attestation === undefined && o.attestation_error === undefined) found.unsigned ??= path || "body";
    if ((o["x402/payment-response"] as { success?: unknown } | undefined)?.success === true) found.paid ??= `${path}.x402/payment-response`;
    if (o["x402.payment.status"] === "payment-completed") found.paid ??= `${path}.x402.payment.status`;
    for (const [key, item] of Object.entries(o)) if (!schemaKeys.has(key)) walk(item, `${path}.${key}`, depth + 1);
  };
  for (const chunk of text.startsWith("data:") || text.includes("\ndata:") ? text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5)) : [text]) {
    try {
      walk(JSON.parse(chunk), "", 0);
    } catch {}
  }
  return found;
}

function judge(res: RawResponse, p: Plan, target: Target): string | undefined {
  if (bunOwn(res, p)) return undefined;
  if (res.status === 0) {
    if (p.category === "upload cut off") return undefined; // we closed it ourselves
    return res.closed ? "closed without an answer" : "no answer in time";
  }
  if (res.raw.includes("<html") || res.raw.includes("<!doctype") || res.raw.includes(cwd)) return "HTML page or server path";
  if (stackPattern.test(res.body)) return "stack trace or engine message";
  if (p.mustRefuse && res.status < 400) return `agent door served a foreign Host or Origin (${res.status})`;
  if (p.validJson && res.body.includes('"code":-32700')) return "valid JSON-RPC answered as a parse error";
  if (p.category !== "POST evidence/verify" && requestText(p).startsWith("POST ") && res.status < 300) {
    const { paid, unsigned } = released(res.body);
    if (target.paid && paid) return `paid result released while no payment settles (${paid})`;
    if (unsigned) return `evidence result without attestation or attestation_error (${unsigned})`;
  }
  const type = res.headers["content-type"] ?? "";
  let json: { error?: string } | undefined;
  if (type.startsWith("application/json") && requestText(p).split(" ", 1)[0] !== "HEAD") {
    try {
      json = JSON.parse(res.body) as { error?: string };
    } catch {
      return "content-type JSON but the body does not parse";
    }
  }
  if (res.status >= 500) {
    if ([502, 503, 504].includes(res.status) && json?.error && documentedUpstream.has(json.error)) return undefined;
    return `status ${res.status}${json?.error ? ` ${json.error}` : ""}`;
  }
  if (res.status >= 400 && !json && requestText(p).split(" ", 1)[0] !== "HEAD") return "error answer that is not JSON";
  return undefined;
}

async function fuzzServer(name: string, target: Target, count: number, byStatus: Map<string, number>, findings: Finding[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const p = plan(target);
      const res = await rawRequest(target.port, p.bytes, { timeoutMs: p.timeoutMs ?? 5_000, ...(p.then ? { then: p.then } : {}) });
      const bun = bunOwn(res, p);
      const key = bun ? `${res.status === 0 ? "closed" : res.status} (Bun's own)` : res.status === 0 ? (p.category === "upload cut off" ? "cut off by us" : "no answer") : String(res.status);
      byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
      const problem = judge(res, p, target);
      if (problem) {
        const text = requestText(p);
        findings.push({ server: name, category: p.category, status: res.status, problem, request: JSON.stringify(text.slice(0, 300)), body: res.body.slice(0, 300) });
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

const registry = await loadRegistry({});
postRoutes = [...registry.plugins.map((p) => p.definition.route.replace(/^POST /, "")), "/v1/jobs", ...registry.skills.map((s) => `/v1/jobs/${s.id}`)];
skills = registry.skills.map((s) => s.id);
toolNames = [...registry.plugins.map((p) => toolNameOf(p.id)), ...skills.map(toolNameOf), "job_status", "payment_status"];
a2aSkills = [...registry.plugins.map((p) => p.id), ...skills.map((id) => (registry.plugins.some((p) => p.id === id) ? `jobs.${id}` : id))];
examples = new Map<string, Record<string, unknown>>([
  ...registry.plugins.map((p) => [p.definition.route.replace(/^POST /, ""), (p.definition.examples[0]?.input ?? {}) as Record<string, unknown>] as const),
  ...registry.skills.map((s) => [`/v1/jobs/${s.id}`, (s.definition.examples[0]?.input ?? {}) as Record<string, unknown>] as const),
  ["/v1/jobs", { skill: pick(skills) }],
]);

/** A well-formed Algorand address (nothing is ever sent to it: every payment is refused). */
const ALGORAND_PAY_TO = "YA6NQFX3NLUDZ4ZGVHVWR4AHQUGEWCQBCKIETT6NM462Z47WVJXHMPPXSI";
const facilitator = startFacilitatorServer({
  verify: async (payload) => ({ isValid: false, invalidReason: "invalid_exact_evm_payload_signature", payer: (payload.payload as { authorization?: { from?: string } }).authorization?.from }),
  settle: async (_payload, requirements) => ({ success: false, errorReason: "invalid_exact_evm_payload_signature", transaction: "", network: requirements.network }),
  supported: async () => ({
    kinds: [
      { x402Version: 2, scheme: "exact", network: "eip155:8453" },
      { x402Version: 2, scheme: "exact", network: "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k", extra: { feePayer: ALGORAND_PAY_TO } },
    ],
    extensions: [],
    signers: {},
  }),
});
const dataDirs: string[] = [];
const log = createLogger({ level: "error", sink: () => {} });
/** Every name resolves to a private address, so the fetch guard refuses it before connecting. */
const userAgent = userAgentFor({ contactUrl: "https://github.com/tollbooth" });
const web = createWebEngine({ userAgent, resolver: async () => ["10.255.255.1"], allowLoopbackTargets: false });
/** The engine of the servers that read pages: loopback only (the site below), names still resolved to a private address. */
const loopbackWeb = createWebEngine({ userAgent, resolver: async () => ["10.255.255.1"], allowLoopbackTargets: true });
/** Pages on loopback for reads that succeed (no robots.txt: all allowed). */
const site = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (request) =>
    new URL(request.url).pathname === "/robots.txt"
      ? new Response("not here", { status: 404 })
      : new Response(`<!doctype html><html lang="en"><head><title>Fuzz page</title></head><body><main><h1>Rates</h1><p>${"EUR/USD is 1.09 today, and the desk updates it hourly. ".repeat(4)}</p></main></body></html>`, { headers: { "content-type": "text/html; charset=utf-8" } }),
});
const sitePage = `http://127.0.0.1:${site.port}/rates`;
function sitePageOf(): string {
  return sitePage;
}
siteUrls.push(sitePage, `${sitePage}?q=1`, `${sitePage}?\ud800`, `http://127.0.0.1:${site.port}/\udfff`, `${sitePage}#\ud800x`);
urls.push(...siteUrls);

async function start(paid: boolean, pages = paid) {
  const data = mkdtempSync(join(tmpdir(), "tollbooth-fuzz-"));
  dataDirs.push(data);
  const port = await new Promise<number>((resolve) => {
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    resolve(probe.port ?? 0);
    probe.stop(true);
  });
  const argv = ["--data", data, "--host", "127.0.0.1", "--port", String(port), "--render", "off", "--request-timeout-ms", "2000", "--max-queued-jobs", "10000", "--rate-limit-per-min", "1000000"];
  if (paid) argv.push("--payments", "on", "--public-url", `http://127.0.0.1:${port}`, "--pay-to-base", "0x1111111111111111111111111111111111111111", "--pay-to-algorand", ALGORAND_PAY_TO, "--facilitator-url", facilitator.url);
  return startService(loadConfig({ argv, env: {} }), { log, web: pages ? loopbackWeb : web });
}

const off = await start(false);
const offPages = await start(false, true);
const on = await start(true);
const sample = await fetch(new URL("/v1/web/read", offPages.server.url), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: sitePage }) });
signedResult = (await sample.json()) as Record<string, unknown>;
if (signedResult.attestation === undefined) throw new Error(`no signed result to forge from: ${JSON.stringify(signedResult).slice(0, 300)}`);
const challenge = await fetch(new URL("/v1/jobs", on.server.url), { method: "POST", headers: { "content-type": "application/json" }, body: '{"skill":"capabilities"}' });
const required = decodePaymentRequired(challenge.headers.get("payment-required") ?? "");
if (!required.ok) throw new Error(`no 402 challenge from the paid server: ${required.reason}`);

const started = performance.now();
const findings: Finding[] = [];
const counts = { off: new Map<string, number>(), offPages: new Map<string, number>(), on: new Map<string, number>() };
const rssBefore = process.memoryUsage().rss;
const third = Math.floor(COUNT / 3);
await fuzzServer("payments off", { port: off.server.port, paid: false }, COUNT - 2 * third, counts.off, findings);
readsPages = true;
await fuzzServer("payments off, pages", { port: offPages.server.port, paid: false }, third, counts.offPages, findings);
await fuzzServer("payments on", { port: on.server.port, paid: true, offers: required.value.accepts }, third, counts.on, findings);
const seconds = (performance.now() - started) / 1000;

const line = (m: Map<string, number>) => [...m].sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s}: ${n}`).join(", ");
console.log(`fuzz: ${COUNT} malformed requests (seed ${SEED}, ${CONCURRENCY} at a time) in ${seconds.toFixed(1)} s; process RSS ${Math.round(rssBefore / 2 ** 20)} → ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`);
console.log(`  payments off: ${line(counts.off)}`);
console.log(`  payments off, pages on loopback: ${line(counts.offPages)}`);
console.log(`  payments on:  ${line(counts.on)}  (offers on ${required.value.accepts.map((a) => a.network).join(", ")})`);
const fiveHundreds = findings.filter((f) => f.status >= 500).length;
const byProblem = new Map<string, number>();
for (const f of findings) byProblem.set(f.problem, (byProblem.get(f.problem) ?? 0) + 1);
console.log(`  answers >= 500 (not documented upstream): ${fiveHundreds}; other problems (not JSON, HTML, stacks, paths, no answer, foreign doors served, parse errors of valid JSON, unsigned evidence, paid results released unsettled): ${findings.length - fiveHundreds}`);
for (const [problem, n] of byProblem) console.log(`    ${problem}: ${n}`);
// At most five of each kind, so a rare kind is never hidden behind a common one.
for (const [problem, n] of byProblem) {
  for (const f of findings.filter((x) => x.problem === problem).slice(0, 5)) console.log(`  - [${f.server}] ${f.category}: ${f.problem}\n      request ${f.request}\n      answer  ${JSON.stringify(f.body)}`);
  if (n > 5) console.log(`  ... and ${n - 5} more of: ${problem}`);
}

await off.close();
await offPages.close();
await on.close();
site.stop(true);
await facilitator.stop();
for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
process.exit(findings.length > 0 ? 1 : 0);
