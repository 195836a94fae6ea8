/**
 * Plain text over A2A goes to the skill whose file declares it takes that text (`freeText`), no
 * list in the server: a text with one URL to web.brief (briefed from a page on loopback, no model:
 * the extractive engine), any other text to grok.prompt (no model here: input-required saying so);
 * skills dropped in the plugins folder take the texts their declaration takes; two that take the
 * same text make the caller choose, by naming one in the message metadata.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskState } from "@a2a-js/sdk";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { sendPart } from "../support/a2a-client.ts";
import { pluginFolder, skillSource } from "../support/plugin-files.ts";
import { type TestService, testService } from "../support/service.ts";

type Task = Awaited<ReturnType<LegacyJsonRpcTransport["getTask"]>>;

const ORIGIN = "http://127.0.0.1:8402";
const dataDir = mkdtempSync(join(tmpdir(), "tb-a2a-text-"));
const sentences = [
  "The harbour opened in 1821 and served the wool trade for a century.",
  "Its stone pier is the oldest working pier on the coast.",
  "Fishing boats still land their catch there every morning.",
  "A museum in the old customs house tells the harbour's story.",
  "The lighthouse at the end of the pier was rebuilt in 1904.",
  "Ferries leave twice a day for the islands in summer.",
  "The harbour master's office keeps the tide tables.",
  "Visitors can walk the pier at any hour.",
  "Storms closed the harbour for a week in 1953.",
  "The town holds a regatta on the first weekend of August.",
];
const page = `<html><head><title>The Harbour</title></head><body><article><h1>The Harbour</h1>${sentences.map((s) => `<p>${s}</p>`).join("")}</article></body></html>`;
const shout = (id: string) => skillSource(id, { freeText: `{ input: (text) => (text.startsWith("shout ") ? { word: text.slice(6) } : undefined), takes: "shout <word>" }` });
const folder = pluginFolder({ "a2a-shout.ts": shout("a2a.shout"), "a2a-holler.ts": shout("a2a.holler") });
let pages: ReturnType<typeof Bun.serve>;
let service: TestService;
let client: LegacyJsonRpcTransport;

beforeAll(async () => {
  pages = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => (new URL(req.url).pathname === "/harbour" ? new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }) : new Response("not here", { status: 404 })) });
  service = await testService(["--data", dataDir, "--plugins", folder, "--unsafe-allow-loopback-targets", "--render", "off"]);
  client = new LegacyJsonRpcTransport({ endpoint: `${ORIGIN}/a2a`, fetchImpl: ((input: string | URL | Request, init?: RequestInit) => service.handle(new Request(input, init), "127.0.0.1")) as typeof fetch });
});

afterAll(async () => {
  await service?.close();
  pages?.stop(true);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(folder, { recursive: true, force: true });
});

const say = (text: string, metadata?: Record<string, unknown>, taskId = ""): Promise<Task> => sendPart(client, { $case: "text", value: text }, taskId, metadata);

const textOf = (task: Task) => task.status?.message?.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join(" ") ?? "";
const artifactValue = (task: Task) => (task.artifacts[0]?.parts[0]?.content as { value: Record<string, unknown> } | undefined)?.value;

describe("plain text over A2A", () => {
  it("briefs the page a text names with web.brief: the job's task completes with the bullets", async () => {
    const started = await say(`Could you brief http://127.0.0.1:${pages.port}/harbour for me?`);
    expect(started.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(textOf(started)).toContain("web.brief runs as job");
    let task = started;
    for (let i = 0; i < 300 && task.status?.state === TaskState.TASK_STATE_WORKING; i++) {
      await Bun.sleep(20);
      task = await client.getTask({ tenant: "", id: started.id, historyLength: undefined });
    }
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const view = structuredClone(artifactValue(task)) as { skill: string; result: { engine: string; bullets: { text: string }[] } };
    expect(view.skill).toBe("web.brief");
    expect(view.result.engine).toBe("extractive");
    expect(view.result.bullets.map((b) => b.text).join(" ")).toContain("harbour");
  });

  it("gives any other text to grok.prompt, which cannot run without a model: input-required saying so and what else to send", async () => {
    const task = await say("What should I pack for a week of rain?");
    expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(task)).toContain("went to grok.prompt");
    expect(textOf(task)).toContain("web.brief (a text with one URL in it");
    expect(textOf(task)).toContain('{"skill": "web.read"');
  });

  it("runs a dropped-in skill on the texts its declaration takes; two skills taking a text make the caller name one", async () => {
    const asked = await say("shout hello");
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(asked)).toContain("could go to a2a.holler or a2a.shout");
    const named = await say("shout hello", { skill: "a2a.shout" }, asked.id);
    expect(named.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(structuredClone(artifactValue(named))).toMatchObject({ skill: "a2a.shout", result: { upper: "HELLO" } });
  });

  it("refuses a named skill that does not take the text, and a text with two URLs is not web.brief's", async () => {
    const refused = await say("no link in here", { skill: "web.brief" });
    expect(refused.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(refused)).toContain("web.brief does not take this text");
    const two = await say("compare https://a.example/ with https://b.example/");
    expect(textOf(two)).toContain("went to grok.prompt");
  });
});
