/**
 * The agent as other skills call it (ctx.llm.runAgent), with the real web engine: allowedHosts
 * keeps tools on the quoted hosts, pdf_read reads a PDF for the writer, and the loop's result
 * carries usage and sources.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createModelAccess } from "../../src/llm/configured-model.ts";
import { resolveLlm } from "../../src/llm/config.ts";
import { createWebEngine } from "../../src/web/engine.ts";
import { offeredTools, requestText, startChatServer } from "../support/chat-server.ts";
import { startSiteServer } from "../support/site-server.ts";

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});
const web = createWebEngine({ userAgent: "TollboothTest/1 (+https://example.com)", allowLoopbackTargets: true });
const limits = { maxSteps: 6, maxToolCalls: 6, maxUsd: 1 };

describe("runAgent", () => {
  it("refuses tool calls to hosts outside allowedHosts without fetching them", async () => {
    const site = startSiteServer();
    cleanups.push(() => site.stop());
    site.set("/p", "<html><head><title>P</title></head><body><p>Allowed page text for the host test.</p></body></html>");
    const other = `http://localhost:${new URL(site.origin).port}/p`;
    const chat = startChatServer((r, n) => {
      if (n === 0) return { toolCalls: [{ name: "web_read", arguments: JSON.stringify({ url: other }) }, { name: "web_read", arguments: JSON.stringify({ url: site.url("/p") }) }] };
      return offeredTools(r) ? { content: "notes" } : { content: "done" };
    });
    cleanups.push(() => chat.stop());
    const llm = createModelAccess(resolveLlm({ llmBaseUrl: chat.baseUrl, llmModel: "m", llmTimeoutSec: 10, llmMaxRetries: 0 })!, { web });
    const result = await llm.runAgent({ skill: "job.run.t1", prompt: "Read the pages", tools: ["web_read"], allowedHosts: ["127.0.0.1"], limits, signal: new AbortController().signal });
    expect(site.hits("/p")).toBe(1);
    const toolResults = chat.requests[1]!.body.messages.filter((m) => m.role === "tool").map((m) => JSON.parse(String(m.content)));
    expect(toolResults[0]).toMatchObject({ ok: false, error: "HOST_NOT_ALLOWED" });
    expect(toolResults[1]).toMatchObject({ ok: true, handle: "page_1" });
    expect(result).toMatchObject({ answer: "done", partial: false, sources: [{ url: site.url("/p"), title: "P" }] });
    expect(result.usage).toMatchObject({ model: "m", steps: 3, tool_calls: 2 });
  });

  it("reads a PDF with pdf_read and gives its text only to the tool-less writer", async () => {
    const site = startSiteServer();
    cleanups.push(() => site.stop());
    site.set("/doc.pdf", new Uint8Array(readFileSync(join(import.meta.dir, "../fixtures/pdf/multi-page.pdf"))), "application/pdf");
    const chat = startChatServer((r, n) => (n === 0 ? { toolCalls: [{ name: "pdf_read", arguments: JSON.stringify({ url: site.url("/doc.pdf") }) }] } : offeredTools(r) ? { content: "notes" } : { content: "summary" }));
    cleanups.push(() => chat.stop());
    const llm = createModelAccess(resolveLlm({ llmBaseUrl: chat.baseUrl, llmModel: "m", llmTimeoutSec: 10, llmMaxRetries: 0 })!, { web });
    const result = await llm.runAgent({ skill: "grok.prompt", prompt: "Summarise the PDF", tools: ["pdf_read"], limits, signal: new AbortController().signal });
    expect(result.answer).toBe("summary");
    const writer = chat.requests.at(-1)!;
    expect(offeredTools(writer)).toBe(false);
    expect(requestText(writer)).toContain("page\u02c61");
    for (const r of chat.requests.slice(0, -1)) expect(requestText(r)).not.toContain("---\u02c6page");
    expect(JSON.parse(String(chat.requests[1]!.body.messages.find((m) => m.role === "tool")!.content))).toMatchObject({ ok: true, kind: "pdf" });
  });
});
