/**
 * Streaming on POST /a2a with payments off (`SendStreamingMessage` in A2A v1.0, `message/stream` in
 * v0.3), through both official clients over a real socket: the same turn as a sent message, as
 * server-sent events (the task working, its artifact, its final status); a message the protocol
 * refuses is a JSON-RPC error before any event; resubscription is not served.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { TaskState } from "@a2a-js/sdk";
import { type RunningService, startService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { mcpProbeSource } from "../mcp/mcp-probe-plugin.ts";
import { type A2aCaller, type A2aEvent, a2aWires, streamPart } from "../support/a2a-client.ts";
import { pluginFolder } from "../support/plugin-files.ts";

type Events = A2aEvent[];

let service: RunningService;
const log = createMemoryLogger();
let base: string;

beforeAll(async () => {
  // Payments are off, so no --public-url: the port is the one the kernel gives at the bind.
  const folder = pluginFolder({ "mcp-probe.ts": mcpProbeSource });
  service = await startService(loadConfig({ argv: ["--data", ":memory:", "--port", "0", "--host", "127.0.0.1", "--plugins", folder, "--memory-soft-limit-mb", "0"], env: {} }), { log });
  base = service.server.url.toString().replace(/\/$/, "");
});

afterAll(async () => {
  await service?.close();
});

const collect = (a2a: A2aCaller, value: Record<string, unknown>, taskId = "") => streamPart(a2a, { $case: "data", value }, taskId);

const finalState = (events: Events) => {
  const last = events.at(-1);
  expect(last?.$case).toBe("statusUpdate");
  return last?.$case === "statusUpdate" ? last.value.status?.state : undefined;
};

for (const wire of a2aWires) describe(`A2A streaming, ${wire.name}`, () => {
  let a2a: A2aCaller;
  beforeAll(async () => {
    a2a = await wire.connect(base);
  });

  it("streams a turn: the task working, the result as an artifact update, then the final status; the task is stored as message/send stores it", async () => {
    const events = await collect(a2a, { skill: "mcp.probe", text: "st", copies: 2 });
    expect(events.map((e) => e?.$case)).toEqual(["task", "artifactUpdate", "statusUpdate"]);
    const [first, artifact] = events;
    expect(first!.$case === "task" && first!.value.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(artifact!.$case === "artifactUpdate" && artifact!.value.artifact?.parts[0]?.content).toEqual({ $case: "data", value: { echoed: "stst" } });
    expect(finalState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
    const taskId = first!.$case === "task" ? first!.value.id : "";
    const stored = await a2a.getTask({ tenant: "", id: taskId, historyLength: undefined });
    expect(stored.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(stored.artifacts[0]?.parts[0]?.content).toEqual({ $case: "data", value: { echoed: "stst" } });
  });

  it("streams an input-required turn, and a corrected message on the same task streams to completed", async () => {
    const asked = await collect(a2a, { skill: "no.such" });
    expect(finalState(asked)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const taskId = asked[0]!.$case === "task" ? asked[0]!.value.id : "";
    const fixed = await collect(a2a, { skill: "mcp.probe", text: "ok" }, taskId);
    expect(fixed.map((e) => (e?.$case === "task" ? e.value.id : e?.$case === "statusUpdate" || e?.$case === "artifactUpdate" ? e.value.taskId : ""))).toEqual([taskId, taskId, taskId]);
    expect(finalState(fixed)).toBe(TaskState.TASK_STATE_COMPLETED);
    // The task has ended: another message on it is refused as a JSON-RPC error, not a stream.
    expect(String(await collect(a2a, { skill: "mcp.probe", text: "again" }, taskId).catch((e: Error) => e))).toContain("terminal state");
  });

  it("answers an unknown task as a JSON-RPC error and serves no resubscription", async () => {
    expect(String(await collect(a2a, { skill: "mcp.probe", text: "x" }, "00000000-0000-4000-8000-000000000000").catch((e: Error) => e))).toContain("not found");
    // Logged as a refused message, like message/send's.
    expect(log.lines.filter((l) => l.msg === "request" && l.path === "/a2a").at(-1)).toMatchObject({ status: 200, outcome: "rpc_error" });
    const res = await fetch(`${base}/a2a`, { method: "POST", headers: { "content-type": "application/json", "A2A-Version": wire.version }, body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: wire.methods.resubscribe, params: { id: "00000000-0000-4000-8000-000000000000" } }) });
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32004);
  });
});
