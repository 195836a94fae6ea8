/**
 * POST /a2a with payments off, in process: the official A2A client (@a2a-js/sdk, its v0.3
 * JSON-RPC transport) sends a message naming a skill with its input as a data part and gets the
 * completed task; plain text and an unknown skill get input-required saying what to send; a task
 * is read back with tasks/get by its id, the only key to it; protocol errors are JSON-RPC
 * errors (never a 500); tasks are rows of the database and outlive the process.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Role, TaskState } from "@a2a-js/sdk";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { pluginFolder, skillSource } from "../support/plugin-files.ts";
import { type TestService, testService } from "../support/service.ts";
import { mcpProbeSource } from "../mcp/mcp-probe-plugin.ts";

type Sent = Awaited<ReturnType<LegacyJsonRpcTransport["sendMessage"]>>;
type Task = Awaited<ReturnType<LegacyJsonRpcTransport["getTask"]>>;

const ORIGIN = "http://127.0.0.1:8402";
const dataDir = mkdtempSync(join(tmpdir(), "tb-a2a-"));
const slowJob = skillSource("a2a.slow", { async: "true", timeoutMs: "5000" }).replace("async run({ word }) {", "async run({ word }) { await new Promise((resolve) => setTimeout(resolve, 1500));");
const folder = pluginFolder({ "mcp-probe.ts": mcpProbeSource, "a2a-upper.ts": skillSource("a2a.upper"), "a2a-later.ts": skillSource("a2a.later", { async: "true" }), "a2a-slow.ts": slowJob });
let service: TestService;

const clientFrom = (ip: string) =>
  new LegacyJsonRpcTransport({ endpoint: `${ORIGIN}/a2a`, fetchImpl: ((input: string | URL | Request, init?: RequestInit) => service.handle(new Request(input, init), ip)) as typeof fetch });

beforeAll(async () => {
  service = await testService(["--data", dataDir, "--plugins", folder]);
});

afterAll(async () => {
  await service?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const part = (content: NonNullable<Task["history"][number]["parts"][number]["content"]>) => ({ content, metadata: undefined, filename: "", mediaType: "" });

function send(client: LegacyJsonRpcTransport, parts: ReturnType<typeof part>[], taskId = "") {
  return client.sendMessage({
    tenant: "",
    message: { messageId: crypto.randomUUID(), contextId: "", taskId, role: Role.ROLE_USER, parts, metadata: undefined, extensions: [], referenceTaskIds: [] },
    configuration: undefined,
    metadata: undefined,
  });
}

function taskOf(sent: Sent): Task {
  expect("status" in sent).toBe(true);
  return sent as Task;
}

const textOf = (task: Task) => task.status?.message?.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join(" ") ?? "";
const artifactData = (task: Task) => task.artifacts[0]?.parts[0]?.content;

const rpc = (body: string, ip = "127.0.0.1") => service.handle(new Request(`${ORIGIN}/a2a`, { method: "POST", headers: { "content-type": "application/json" }, body }), ip);

describe("A2A with payments off", () => {
  it("runs a skill named in a data part and completes the task with the result as an artifact", async () => {
    const client = clientFrom("127.0.0.1");
    const task = taskOf(await send(client, [part({ $case: "data", value: { skill: "mcp.probe", text: "ab", copies: 2 } })]));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactData(task)).toEqual({ $case: "data", value: { echoed: "abab" } });
    expect(task.status?.message?.metadata?.["x402.payment.status"]).toBeUndefined();
    const job = taskOf(await send(client, [part({ $case: "data", value: { skill: "a2a.upper", word: "up" } })]));
    expect(job.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((artifactData(job) as { value: Record<string, unknown> }).value).toMatchObject({ ok: true, result: { upper: "UP" } });
  });

  it("echoes the x402 extension as activated when the client asks for it in X-A2A-Extensions, and nothing else", async () => {
    const uri = "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2";
    const ask = (extensions?: string) =>
      service.handle(
        new Request(`${ORIGIN}/a2a`, {
          method: "POST",
          headers: { "content-type": "application/json", ...(extensions !== undefined ? { "X-A2A-Extensions": extensions } : {}) },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "00000000-0000-4000-8000-000000000000" } }),
        }),
        "127.0.0.1",
      );
    expect((await ask(`https://example.com/other, ${uri}`)).headers.get("X-A2A-Extensions")).toBe(uri);
    expect((await ask("https://example.com/other")).headers.get("X-A2A-Extensions")).toBeNull();
    expect((await ask()).headers.get("X-A2A-Extensions")).toBeNull();
  });

  it("reads the activation under A2A 1.0's header name too, and echoes it under both names", async () => {
    const uri = "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2";
    const res = await service.handle(
      new Request(`${ORIGIN}/a2a`, { method: "POST", headers: { "content-type": "application/json", "A2A-Extensions": uri }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "00000000-0000-4000-8000-000000000000" } }) }),
      "127.0.0.1",
    );
    expect([res.headers.get("A2A-Extensions"), res.headers.get("X-A2A-Extensions")]).toEqual([uri, uri]);
  });

  it("names the endpoint in the agent card, /llms.txt and /.well-known/x402", async () => {
    const card = (await (await service.request("/.well-known/agent-card.json")).json()) as { url: string };
    expect(card.url).toBe(`${ORIGIN}/a2a`);
    const llms = await (await service.request("/llms.txt")).text();
    expect(llms).toContain("## A2A");
    expect(llms).toContain(`${ORIGIN}/a2a`);
    const wellKnown = (await (await service.request("/.well-known/x402")).json()) as { a2a: { url: string; binding: string; extension: string } };
    expect(wellKnown.a2a).toMatchObject({ url: `${ORIGIN}/a2a`, binding: "JSONRPC", extension: "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2" });
  });

  it("answers plain text and an unknown skill with input-required naming the data part it expects and the skills", async () => {
    const client = clientFrom("127.0.0.1");
    const text = taskOf(await send(client, [part({ $case: "text", value: "hello there" })]));
    expect(text.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(text)).toContain('{"skill": "web.read"');
    expect(textOf(text)).toContain("mcp.probe");
    const unknown = taskOf(await send(client, [part({ $case: "data", value: { skill: "no.such" } })]));
    expect(unknown.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(unknown)).toContain('No skill "no.such"');
    // The same task can then be given a valid order.
    const fixed = taskOf(await send(client, [part({ $case: "data", value: { skill: "mcp.probe", text: "ok" } })], unknown.id));
    expect(fixed.id).toBe(unknown.id);
    expect(fixed.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const invalid = taskOf(await send(client, [part({ $case: "data", value: { skill: "mcp.probe", text: "x", copies: 9 } })]));
    expect(invalid.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(invalid)).toContain("copies");
  });

  it("fails a task whose skill fails, with the error body and no artifact", async () => {
    const task = taskOf(await send(clientFrom("127.0.0.1"), [part({ $case: "data", value: { skill: "mcp.probe", text: "f", fail: true } })]));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(task.artifacts).toEqual([]);
    expect(JSON.stringify(task.status?.message?.parts)).toContain("SOURCE_UNREACHABLE");
  });

  it("reads a task back with tasks/get and cancels one waiting for input; the task id is the key, whatever the address (issue 40)", async () => {
    const client = clientFrom("127.0.0.1");
    const done = taskOf(await send(client, [part({ $case: "data", value: { skill: "mcp.probe", text: "mine" } })]));
    const read = await client.getTask({ tenant: "", id: done.id, historyLength: undefined });
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactData(read)).toEqual({ $case: "data", value: { echoed: "mine" } });
    // The holder of the id reads it from another address (the address was never a secret: a NAT or a proxy shares it).
    const other = clientFrom("10.0.0.9");
    expect(artifactData(await other.getTask({ tenant: "", id: done.id, historyLength: undefined }))).toEqual({ $case: "data", value: { echoed: "mine" } });
    // From the very address that made it, an id the server did not give is not found.
    const madeUp = crypto.randomUUID();
    expect(String(await client.getTask({ tenant: "", id: madeUp, historyLength: undefined }).catch((e: Error) => e))).toContain("not found");
    expect(String(await send(client, [part({ $case: "data", value: { skill: "mcp.probe", text: "x" } })], madeUp).catch((e: Error) => e))).toContain("not found");
    const waiting = taskOf(await send(client, [part({ $case: "text", value: "hello" })]));
    const canceled = await other.cancelTask({ tenant: "", id: waiting.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // Tasks are not listed: a listing would hand out the keys.
    const listed = (await (await rpc(JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ListTasks", params: {} }))).json()) as { error?: { message: string } };
    expect(listed.error?.message).toContain("ListTasks is not served");
  });

  it("speaks the v0.3 wire shapes to a raw JSON-RPC caller (the README's example)", async () => {
    const body = { jsonrpc: "2.0", id: 7, method: "message/send", params: { message: { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "data", data: { skill: "mcp.probe", text: "raw" } }] } } };
    const answer = (await (await rpc(JSON.stringify(body))).json()) as { id: number; result: { kind: string; status: { state: string }; artifacts: { parts: unknown[] }[] } };
    expect(answer.id).toBe(7);
    expect(answer.result.kind).toBe("task");
    expect(answer.result.status.state).toBe("completed");
    expect(answer.result.artifacts[0]!.parts[0]).toMatchObject({ kind: "data", data: { echoed: "raw" } });
  });

  it("runs an async skill as a job: the task is working with the job id, and tasks/get follows it to completed", async () => {
    const client = clientFrom("127.0.0.1");
    const started = taskOf(await send(client, [part({ $case: "data", value: { skill: "a2a.later", word: "later" } })]));
    expect(started.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const jobId = started.metadata?.["tollbooth.job"] as string;
    expect(jobId).toMatch(/^job_[0-9a-f]{32}$/);
    let task = started;
    for (let i = 0; i < 100 && task.status?.state === TaskState.TASK_STATE_WORKING; i++) {
      await Bun.sleep(20);
      task = await client.getTask({ tenant: "", id: started.id, historyLength: undefined });
    }
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((artifactData(task) as { value: Record<string, unknown> }).value).toMatchObject({ job_id: jobId, status: "completed", result: { upper: "LATER" } });
  });

  it("refuses to cancel a task whose job is running (the job runs to its end)", async () => {
    const client = clientFrom("127.0.0.1");
    const started = taskOf(await send(client, [part({ $case: "data", value: { skill: "a2a.slow", word: "slow" } })]));
    expect(started.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(String(await client.cancelTask({ tenant: "", id: started.id, metadata: undefined }).catch((e: Error) => e))).toContain("runs to its end");
    expect((await client.getTask({ tenant: "", id: started.id, historyLength: undefined })).status?.state).toBe(TaskState.TASK_STATE_WORKING);
  });

  it("answers protocol errors as JSON-RPC errors, never a 500 or a stack", async () => {
    const cases: [string, number][] = [
      ["{not json", -32700],
      ["[]", -32600],
      [JSON.stringify({ jsonrpc: "2.0", id: 1, method: "no/such", params: {} }), -32601],
      [JSON.stringify({ jsonrpc: "2.0", id: 2, method: "message/send", params: "x" }), -32602],
      [JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tasks/get", params: { id: "nope" } }), -32001],
      [JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tasks/resubscribe", params: { id: "00000000-0000-4000-8000-000000000000" } }), -32004],
    ];
    for (const [body, code] of cases) {
      const res = await rpc(body);
      expect(res.status).toBe(200);
      const answer = (await res.json()) as { error?: { code: number; message: string } };
      expect([body, answer.error?.code]).toEqual([body, code]);
      expect(JSON.stringify(answer)).not.toContain("    at ");
    }
  });

  it("answers invalid params with -32602 naming the field once, on both wires, before any code reads them (issue 40, defect 5)", async () => {
    const v1 = { "A2A-Version": "1.0" };
    const message = (parts: unknown[], extra: Record<string, unknown> = {}) => ({ messageId: "m1", parts, ...extra });
    const cases: [Record<string, string>, string, unknown, string][] = [
      [{}, "tasks/get", { id: 5 }, "params.id must be string"],
      [{}, "tasks/cancel", {}, "params.id is required"],
      [{}, "message/send", { message: message([{ kind: "file", file: {} }], { role: "user" }) }, "params.message.parts[0].file"],
      [{}, "message/send", { message: message([{ kind: "text", text: 7 }], { role: "user" }) }, "params.message.parts[0].text must be string"],
      [{}, "message/send", { message: message([{ kind: "picture" }], { role: "user" }) }, "params.message.parts[0].kind must be one of text, data, file"],
      [{}, "message/stream", { message: message([], { role: "user" }) }, "params.message.parts"],
      [{}, "message/send", { message: message([{ kind: "data", data: { skill: "mcp.probe" } }], { role: "user", taskId: {} }) }, "params.message.taskId must be string"],
      [v1, "GetTask", { id: ["x"] }, "params.id must be string"],
      [v1, "SendMessage", { message: message([{ text: {} }], { role: "ROLE_USER" }) }, "params.message.parts[0].text must be string"],
      [v1, "SendMessage", { message: message([{ nothing: 1 }], { role: "ROLE_USER" }) }, "params.message.parts[0] must carry one of text, data, raw, url"],
      [v1, "SendStreamingMessage", { message: { parts: [{ text: "x" }], role: "ROLE_USER" } }, "params.message.messageId is required"],
      [v1, "SendMessage", { message: message([{ text: "x" }], { role: "ROLE_USER" }), configuration: { historyLength: "all" } }, "params.configuration.historyLength must be integer"],
    ];
    for (const [headers, method, params, field] of cases) {
      const res = await service.handle(new Request(`${ORIGIN}/a2a`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) }), "127.0.0.1");
      const answer = (await res.json()) as { error?: { code: number; message: string } };
      expect([method, answer.error?.code]).toEqual([method, -32602]);
      expect(answer.error?.message).toStartWith(`Invalid params: ${field}`);
      expect(answer.error!.message.split("params.").length).toBe(2);
      expect(answer.error?.message).not.toMatch(/is not a function|is not an object|undefined|Cannot read/);
    }
  });

  it("speaks A2A v1.0 and v0.3 on the one endpoint: by the A2A-Version header, else by the method's name; a version not served is refused", async () => {
    const call = (method: string, params: unknown, headers: Record<string, string> = {}) =>
      service.handle(new Request(`${ORIGIN}/a2a`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ jsonrpc: "2.0", id: 3, method, params }) }), "127.0.0.1").then((r) => r.json() as Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }>);
    const sent = await call("SendMessage", { message: { messageId: "v1", role: "ROLE_USER", parts: [{ data: { skill: "mcp.probe", text: "v1" } }] } }, { "A2A-Version": "1.0" });
    const task = sent.result?.task as { id: string; status: { state: string }; artifacts: { parts: unknown[] }[] };
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.artifacts[0]!.parts[0]).toEqual({ data: { echoed: "v1" }, mediaType: "application/json" });
    // The same task on the other wire, in its shapes; without the header a v1.0 method name is taken as v1.0.
    expect(((await call("tasks/get", { id: task.id })).result as { kind: string; status: { state: string } }).status.state).toBe("completed");
    expect(((await call("GetTask", { id: task.id })).result as { status: { state: string } }).status.state).toBe("TASK_STATE_COMPLETED");
    expect((await call("message/send", { message: { kind: "message", messageId: "m", role: "user", parts: [{ kind: "text", text: "x" }] } }, { "A2A-Version": "1.0" })).error?.code).toBe(-32601);
    const refused = await call("GetTask", { id: task.id }, { "A2A-Version": "2.0" });
    expect(refused.error?.code).toBe(-32009);
    expect(refused.error?.message).toContain("1.0, 0.3");
  });

  it("keeps tasks in the database: a task made before a restart is read after it", async () => {
    const before = taskOf(await send(clientFrom("127.0.0.1"), [part({ $case: "data", value: { skill: "mcp.probe", text: "kept" } })]));
    await service.close();
    service = await testService(["--data", dataDir, "--plugins", folder]);
    const after = await clientFrom("127.0.0.1").getTask({ tenant: "", id: before.id, historyLength: undefined });
    expect(after.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactData(after)).toEqual({ $case: "data", value: { echoed: "kept" } });
  });
});
