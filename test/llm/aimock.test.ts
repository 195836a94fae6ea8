/**
 * grok.prompt against @copilotkit/aimock, a third-party OpenAI Chat Completions mock, so our
 * provider is checked against someone else's reading of the streaming protocol (the odd cases —
 * hangs, stalls, malformed streams, 429 — use test/support/chat-server.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { LLMock } from "@copilotkit/aimock";
import { type TestService, testService } from "../support/service.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { until } from "../jobs/job-skills.ts";

let mock: LLMock;
let site: SiteServer;
let service: TestService;

beforeAll(async () => {
  site = startSiteServer();
  site.set("/notes", "<html><head><title>Notes</title></head><body><main><p>The launch moved to March 3 because the supplier was late.</p></main></body></html>");
  mock = new LLMock({ port: 0, host: "127.0.0.1" });
  const toolTurns = (req: { tools?: unknown[]; messages: { role: string }[] }) => (req.tools?.length ?? 0) > 0;
  // Planner, first turn: read the page. Planner after the tool result: notes. Writer (no tools): the answer.
  mock.addFixture({ match: { predicate: (req) => toolTurns(req) && !req.messages.some((m) => m.role === "tool") }, response: { toolCalls: [{ name: "web_read", arguments: JSON.stringify({ url: site.url("/notes") }) }] } });
  mock.addFixture({ match: { predicate: (req) => toolTurns(req) && req.messages.some((m) => m.role === "tool") }, response: { content: "Cover the new date and the reason." } });
  mock.addFixture({ match: { predicate: (req) => !toolTurns(req) }, response: { content: "The launch is on March 3; the supplier was late.", usage: { prompt_tokens: 210, completion_tokens: 14, total_tokens: 224 } } });
  await mock.start();
  service = await testService(["--unsafe-allow-loopback-targets", "--llm-base-url", `${mock.url}/v1`, "--llm-api-key", "mock", "--llm-model", "mock-model"]);
});

afterAll(async () => {
  service?.close();
  await mock?.stop();
  await site?.stop();
});

describe("grok.prompt against aimock", () => {
  it("reads the page with a streamed tool call and answers from a tool-less call", async () => {
    const res = await service.request("/v1/jobs", { method: "POST", json: { skill: "grok.prompt", prompt: `When is the launch? See ${site.url("/notes")}` } });
    expect(res.status).toBe(202);
    const id = ((await res.json()) as { job_id: string }).job_id;
    const job = await until(async () => {
      const body = (await (await service.request(`/v1/jobs/${id}`)).json()) as Record<string, any>;
      return ["completed", "failed"].includes(body.status) ? body : undefined;
    }, 10_000);
    expect(job.status).toBe("completed");
    expect(job.result).toMatchObject({ answer: "The launch is on March 3; the supplier was late.", partial: false, sources: [{ title: "Notes" }] });
    expect(job.result.usage).toMatchObject({ model: "mock-model", steps: 3, tool_calls: 1 });
    expect(site.hits("/notes")).toBe(1);
  });
});
