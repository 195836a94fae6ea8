/**
 * POST /mcp with payments off, in process: free tool calls through the official MCP client, async
 * skills answered with a job id and polled with job_status, and bad input answered with the
 * protocol's own errors (never a 500, never a stack): -32700, -32600, an unknown tool, -32602
 * before any price, a foreign Origin (403).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { pluginFolder, skillSource } from "../support/plugin-files.ts";
import { type TestService, testService } from "../support/service.ts";
import { mcpProbeSource } from "./mcp-probe-plugin.ts";

let service: TestService;
let client: Client;
const ORIGIN = "http://127.0.0.1:8402";

beforeAll(async () => {
  const folder = pluginFolder({ "mcp-probe.ts": mcpProbeSource, "mcp-later.ts": skillSource("mcp.later", { async: "true" }) });
  service = await testService(["--plugins", folder]);
  client = new Client({ name: "mcp-protocol-test", version: "1.0.0" });
  const inProcess = (input: string | URL | Request, init?: RequestInit) => service.handle(new Request(input, init), "127.0.0.1");
  await client.connect(new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), { fetch: inProcess }));
});

afterAll(async () => {
  await client?.close();
  await service?.close();
});

const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
const post = (body: string, headers: Record<string, string> = {}) => service.request("/mcp", { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body });
const textOf = (result: CallToolResult) => JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>;

describe("MCP tools with payments off", () => {
  it("runs a free tool call and says so in the tool's description", async () => {
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "mcp_probe")?.description).toContain("Free on this server");
    const result = (await client.callTool({ name: "mcp_probe", arguments: { text: "ab", copies: 2 } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatchObject({ echoed: "abab" });
    expect(result._meta?.["x402/payment-response"]).toBeUndefined();
  });

  it("names a skill sold under an endpoint's id as the agent card does (jobs_<id>), never with a numbered suffix", async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("web_extract");
    expect(names).toContain("jobs_web_extract");
    expect(names.filter((name) => /_\d+$/.test(name) && !/^job_run_t\d+$/.test(name))).toEqual([]);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it("answers an async skill with its job id, and job_status polls it to completed", async () => {
    const started = (await client.callTool({ name: "mcp_later", arguments: { word: "later" } })) as CallToolResult;
    const accepted = textOf(started);
    expect(accepted).toMatchObject({ ok: true, skill: "mcp.later", poll_tool: "job_status" });
    const jobId = accepted.job_id as string;
    expect(jobId).toMatch(/^job_[0-9a-f]{32}$/);
    let status: Record<string, unknown> = {};
    for (let i = 0; i < 100 && status.status !== "completed"; i++) {
      status = textOf((await client.callTool({ name: "job_status", arguments: { job_id: jobId } })) as CallToolResult);
      if (status.status !== "completed") await Bun.sleep(20);
    }
    expect(status).toMatchObject({ status: "completed", result: { upper: "LATER" } });
    const unknown = (await client.callTool({ name: "job_status", arguments: { job_id: `job_${"0".repeat(32)}` } })) as CallToolResult;
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown).error).toBe("JOB_NOT_FOUND");
  });

  it("refuses arguments that fail the tool's schema with -32602, before anything runs", async () => {
    const bad = await client.callTool({ name: "mcp_probe", arguments: { text: "x", copies: 9 } }).catch((e: Error) => e);
    expect(String(bad)).toContain("-32602");
    expect(String(bad)).toContain("copies");
    const status = await client.callTool({ name: "job_status", arguments: { job_id: "nope" } }).catch((e: Error) => e);
    expect(String(status)).toContain("-32602");
  });

  it("says a protocol error's message once, naming the field once (@see issue 40, defect 5)", async () => {
    const bad = await client.callTool({ name: "job_quote", arguments: { goal: "Compare the pricing pages of three vendors." } }).catch((e: Error) => e);
    expect(String(bad)).toMatch(/^McpError: MCP error -32602: Invalid arguments for job\.quote: \/budget_usdc: required$/);
    for (const [params, field] of [[{ name: 5 }, "params.name"], [{ name: "mcp_probe", arguments: "x" }, "params.arguments"]] as const) {
      const answer = (await (await post(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/call", params }))).json()) as { error: { code: number; message: string } };
      expect(answer.error.code).toBe(-32602);
      expect(answer.error.message.split(field).length).toBe(2);
      expect(answer.error.message).not.toContain("MCP error");
      expect(answer.error.message).not.toContain('"code"');
    }
    const listed = (await (await post('{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":5}}')).json()) as { error: { code: number } };
    expect(listed.error.code).toBe(-32602);
  });

  it("serves valid JSON-RPC the SDK alone would call a parse error: ids beyond 2^53, echoed as sent (@see issue 40, defect 6)", async () => {
    const res = await post('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"id":9007199254740993');
    const batch = await (await post('[{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"},{"jsonrpc":"2.0","id":"b","method":"ping"},{"jsonrpc":"2.0","id":-1e300,"method":"ping"}]')).text();
    for (const id of ['"id":12345678901234567890', '"id":"b"', '"id":-1e300']) expect(batch).toContain(id);
    const token = await post('{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"_meta":{"progressToken":{"a":1}}}}');
    const answer = (await token.json()) as { id: number; error: { code: number; message: string } };
    expect(answer).toMatchObject({ id: 10, error: { code: -32602 } });
    expect(answer.error.message).toContain("params._meta.progressToken");
  });

  it("answers an unknown tool with a tool error listing the tools", async () => {
    const result = (await client.callTool({ name: "no_such_tool", arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatchObject({ ok: false, error: "UNKNOWN_SKILL" });
    expect(textOf(result).tools).toContain("web_read");
  });

  it("answers a body that is not JSON with -32700 and one that is not JSON-RPC with -32600", async () => {
    for (const body of ["{not json", "[", '{"a":'.repeat(100) + "1" + "}".repeat(100)]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 }, id: null });
    }
    for (const [body, id] of [
      ['{"jsonrpc":"1.0","id":1,"method":"tools/list"}', 1],
      ['{"jsonrpc":"2.0","id":2,"method":7}', 2],
      ['{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}', null],
      ["[]", null],
      ["42", null],
      ['[{"jsonrpc":"2.0","id":3,"method":"tools/list"},{"nope":true}]', null],
    ] as const) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 }, id });
    }
    const unknownMethod = await post('{"jsonrpc":"2.0","id":5,"method":"no/such"}');
    expect(await unknownMethod.json()).toMatchObject({ error: { code: -32601 }, id: 5 });
  });

  it("refuses a foreign Origin with 403 and serves its own", async () => {
    const list = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';
    const foreign = await post(list, { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: { code: -32000 } });
    const own = await post(list, { origin: ORIGIN });
    expect(own.status).toBe(200);
    expect(((await own.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(5);
  });

  it("counts tool calls against the same per-caller rate limit as HTTP calls", async () => {
    const limited = await testService(["--plugins", pluginFolder({ "mcp-probe.ts": mcpProbeSource }), "--rate-limit-per-min", "2"]);
    try {
      const callOverMcp = async () => {
        const res = await limited.request("/mcp", { method: "POST", headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "mcp_probe", arguments: { text: "r" } } }) });
        return ((await res.json()) as { result: CallToolResult }).result;
      };
      expect((await limited.request("/v1/mcp-probe", { method: "POST", json: { text: "r" } })).status).toBe(200);
      expect((await callOverMcp()).isError).toBeFalsy();
      const third = await callOverMcp();
      expect(third.isError).toBe(true);
      expect(textOf(third)).toMatchObject({ error: "RATE_LIMITED" });
    } finally {
      await limited.close();
    }
  });

  it("names the endpoint in the agent card, /llms.txt and /.well-known/x402", async () => {
    const card = (await (await service.request("/.well-known/agent-card.json")).json()) as { mcp: { url: string } };
    expect(card.mcp.url).toBe(`${ORIGIN}/mcp`);
    expect(await (await service.request("/llms.txt")).text()).toContain(`${ORIGIN}/mcp`);
    const wellKnown = (await (await service.request("/.well-known/x402")).json()) as { mcp: { url: string } };
    expect(wellKnown.mcp.url).toBe(`${ORIGIN}/mcp`);
  });

  it("logs a call that carried a payment in _meta under --log-requests errors-and-paid, as HTTP logs one with PAYMENT-SIGNATURE", async () => {
    const quiet = await testService(["--plugins", pluginFolder({ "mcp-probe.ts": mcpProbeSource }), "--log-requests", "errors-and-paid"]);
    try {
      const callWith = (meta: Record<string, unknown>) =>
        quiet.request("/mcp", { method: "POST", headers: MCP_HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "mcp_probe", arguments: { text: "l" }, _meta: meta } }) });
      expect((await callWith({})).status).toBe(200);
      expect((await callWith({ "x402/payment": { x402Version: 2 } })).status).toBe(200);
      const lines = quiet.logLines.filter((l) => l.msg === "request" && l.path === "/mcp");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ status: 200, operation: "mcp.probe" });
    } finally {
      await quiet.close();
    }
  });

  it("keeps the HTTP body cap and answers GET with 405", async () => {
    const big = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "mcp_probe", arguments: { text: "x".repeat(1_100_000) } } }));
    expect(big.status).toBe(413);
    const get = await service.request("/mcp", { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
  });
});
