/**
 * @module llm/agent — the bounded agent loop (our own, small).
 *
 * A planner model may call `web_read` / `pdf_read`; what it gets back is metadata and a handle,
 * never the page text. Once it stops (or a budget stops it), one tool-less call — the writer —
 * reads the prompt with the pages spotlighted as untrusted data and writes the answer. So text
 * from the web never reaches a call that can use tools, and a page that says "call this tool"
 * gets no tool run. Every budget is checked before every call; the same tool with the same
 * arguments is refused to the model; the job's signal reaches every call and fetch.
 */
import { ApiError, toApiError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { WebEngine } from "../web/engine.ts";
import { keepKnownUrls } from "./answer-urls.ts";
import { type BudgetStop, estimateTokens, JobBudget } from "./budget.ts";
import { parseJsonAnswer } from "./json-answer.ts";
import type { AgentRequest, AgentResult, AgentTool, ModelUsage } from "../plugin/model-access.ts";
import type { ChatClient, ChatMessage, ChatResponse, ChatTool } from "./provider.ts";
import { createSpotlight } from "./untrusted.ts";

export interface AgentDeps {
  readonly chat: ChatClient;
  readonly web: WebEngine;
  readonly log?: Logger;
  readonly now?: () => number;
}

/** Characters of one page the writer sees, and of all pages together. */
const pageChars = 20_000;
const allPagesChars = 60_000;
/** PDFs the tools read are capped like the pdf/read endpoint. */
const pdfMaxBytes = 5 * 1024 * 1024;

const toolDefinitions: Record<AgentTool, ChatTool> = {
  web_read: {
    type: "function",
    function: {
      name: "web_read",
      description:
        "Read a public web page (HTML or text) by URL. You get back a handle and metadata only; the page text goes to the writer who answers, not to you.",
      parameters: { type: "object", properties: { url: { type: "string", description: "absolute http(s) URL" } }, required: ["url"], additionalProperties: false },
    },
  },
  pdf_read: {
    type: "function",
    function: {
      name: "pdf_read",
      description: "Read a public PDF by URL. You get back a handle and metadata only; its text goes to the writer who answers, not to you.",
      parameters: { type: "object", properties: { url: { type: "string", description: "absolute http(s) URL of a PDF" } }, required: ["url"], additionalProperties: false },
    },
  },
};

interface Page {
  readonly handle: string;
  readonly tool: AgentTool;
  readonly url: string;
  readonly finalUrl: string;
  readonly title: string;
  readonly text: string;
}

const plannerSystem = (tools: readonly AgentTool[], allowedHosts: readonly string[] | undefined, jsonOnly: boolean) =>
  [
    "You plan the research for a paid request. You cannot see web content yourself.",
    tools.length > 0
      ? `Call ${tools.join(" or ")} for each page the request needs (URLs in the request, or well-known public URLs); each call returns a handle and metadata only.`
      : "You have no tools.",
    allowedHosts ? `Only these hosts may be read: ${allowedHosts.join(", ")}.` : "",
    "Do not read the same URL twice. When every page you need has been read, or when no page is needed, reply without tool calls:",
    "if no page was read, that reply is the final answer to the request; otherwise reply with brief notes on what the writer should cover.",
    jsonOnly ? "A final answer must be exactly one JSON document and nothing else." : "",
  ]
    .filter(Boolean)
    .join(" ");

const writerSystem = (rules: string, jsonOnly: boolean) =>
  [
    "You write the final answer to a paid request, using the pages provided when there are any.",
    rules,
    "Cite only URLs that appear in the provided pages or in the request.",
    jsonOnly ? "Answer with exactly one JSON document and nothing else: no prose, no code fences." : "",
  ]
    .filter(Boolean)
    .join(" ");

function usageOf(model: string, budget: JobBudget): ModelUsage {
  return {
    model,
    steps: budget.steps,
    tool_calls: budget.toolCalls,
    input_tokens: budget.inputTokens,
    output_tokens: budget.outputTokens,
    cost_usd: Math.round(budget.usd * 1e10) / 1e10,
  };
}

/** A short answer that only declines ("I'm sorry, but I can't help with that."): many models refuse in plain text. */
const plainRefusal = /^(?:i'?m sorry|i am sorry|sorry|unfortunately|i can(?:no|')t|i cannot|i won'?t|i will not|i'?m (?:not able|unable)|i am (?:not able|unable))\b[^]{0,200}?\b(?:help|assist|comply|provide|do that|with that|fulfil+|support that|engage)\b/i;

function refusalCheck(response: ChatResponse): void {
  const text = response.content.trim().replace(/[\u2018\u2019]/g, "'");
  if (response.refusal || response.finishReason === "content_filter" || (text.length > 0 && text.length <= 300 && response.toolCalls.length === 0 && plainRefusal.test(text))) {
    throw new ApiError("MODEL_REFUSED", { message: "The language model refused the request; the job failed and nothing was charged." });
  }
}

function textsOf(messages: readonly ChatMessage[]): string[] {
  return messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")) + ("tool_calls" in m && m.tool_calls ? JSON.stringify(m.tool_calls) : ""));
}

function hostAllowed(url: string, allowedHosts: readonly string[] | undefined): boolean {
  if (!allowedHosts) return true;
  try {
    const host = new URL(url).hostname.toLowerCase();
    return allowedHosts.some((h) => host === h.toLowerCase());
  } catch {
    return false;
  }
}

/** Canonical form of a call's arguments, so `{"url": "a"}` and `{ "url":"a" }` are the same call. */
function callKey(name: string, args: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sort) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, sort(x)])) : v;
  return `${name} ${JSON.stringify(sort(args))}`;
}

export async function runAgentLoop(deps: AgentDeps, model: string, request: AgentRequest): Promise<AgentResult> {
  const { chat, web } = deps;
  const { signal } = request;
  const jsonOnly = request.jsonOnly === true;
  // The final answer, and with json_only one repair, are kept back from the tool loop.
  const budget = new JobBudget(request.limits, chat.price(model), deps.now, jsonOnly ? 2 : 1);
  const tools = request.tools.map((t) => toolDefinitions[t]);
  const pages: Page[] = [];
  const seen = new Map<string, string>();
  let stop: BudgetStop | undefined;
  let draft = "";

  const messages: ChatMessage[] = [
    { role: "system", content: plannerSystem(request.tools, request.allowedHosts, jsonOnly) },
    ...(request.system ? [{ role: "system" as const, content: request.system }] : []),
    { role: "user", content: request.prompt },
  ];

  const runTool = async (name: string, args: { url?: unknown }): Promise<Record<string, unknown>> => {
    const url = typeof args.url === "string" ? args.url : "";
    if (!url) return { ok: false, error: "INVALID_ARGUMENTS", message: "url (string) is required" };
    if (!hostAllowed(url, request.allowedHosts)) return { ok: false, error: "HOST_NOT_ALLOWED", message: `only ${request.allowedHosts!.join(", ")} may be read` };
    const handle = `page_${pages.length + 1}`;
    try {
      if (name === "pdf_read") {
        const bytes = await web.fetchBytes(url, { maxBytes: pdfMaxBytes, tooLargeCode: "PDF_TOO_LARGE", signal });
        signal.throwIfAborted();
        const pdf = await web.readPdf(bytes.bytes);
        pages.push({ handle, tool: "pdf_read", url, finalUrl: bytes.finalUrl, title: "", text: pdf.text.slice(0, pageChars) });
        return { ok: true, handle, url, kind: "pdf", pages: pdf.page_count, characters: pdf.text.length, truncated: pdf.text.length > pageChars };
      }
      const read = await web.read({ url, format: "text", maxChars: pageChars }, signal);
      pages.push({ handle, tool: "web_read", url, finalUrl: read.final_url, title: read.title, text: read.text });
      return { ok: true, handle, url, kind: read.content_type || "text", characters: read.characters, truncated: read.truncated };
    } catch (error) {
      if (signal.aborted) throw signal.reason ?? error;
      const e = toApiError(error);
      return { ok: false, url, error: e.code, status: e.status };
    }
  };

  // ── the tool-using loop: sees the prompt and tool metadata only ──────────
  if (tools.length > 0) {
    for (;;) {
      const estimate = estimateTokens(textsOf(messages));
      stop = budget.loopStop(estimate);
      if (stop) break;
      signal.throwIfAborted();
      const response = await chat.complete({ model, messages, tools, maxTokens: budget.maxTokens(estimate), signal });
      budget.record(response.usage);
      refusalCheck(response);
      if (response.toolCalls.length === 0) {
        draft = response.content;
        break;
      }
      messages.push({
        role: "assistant",
        content: response.content || null,
        tool_calls: response.toolCalls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } })),
      });
      for (const call of response.toolCalls) {
        let result: Record<string, unknown>;
        if (budget.toolCalls >= request.limits.maxToolCalls) {
          result = { ok: false, error: "TOOL_BUDGET_SPENT", message: "not run: this job's tool calls are spent" };
        } else {
          budget.toolCalls++;
          let args: { url?: unknown } = {};
          try {
            args = JSON.parse(call.arguments || "{}") as { url?: unknown };
          } catch {
            args = {};
          }
          const key = callKey(call.name, args);
          const earlier = seen.get(key);
          if (earlier !== undefined) {
            result = { ok: false, error: "REPEATED_CALL", message: `not run again: the same call was already made${earlier ? ` (its handle is ${earlier})` : ""}` };
          } else if (!(request.tools as readonly string[]).includes(call.name)) {
            seen.set(key, "");
            result = { ok: false, error: "UNKNOWN_TOOL", message: `no tool named ${call.name}` };
          } else {
            result = await runTool(call.name, args);
            seen.set(key, typeof result.handle === "string" ? result.handle : "");
          }
        }
        messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(result) });
      }
    }
  }

  // ── the answer: the planner's own when nothing was read, else one tool-less writer call ──
  let answer: string;
  if (tools.length > 0 && !stop && pages.length === 0) {
    answer = draft;
  } else {
    const spotlight = createSpotlight();
    let room = allPagesChars;
    const blocks = pages.map((p) => {
      const text = p.text.slice(0, Math.max(0, room));
      room -= text.length;
      return spotlight.block({ label: `${p.handle} ${p.finalUrl}${p.title ? ` title: ${p.title}` : ""}`, text });
    });
    const writer: ChatMessage[] = [
      { role: "system", content: writerSystem(spotlight.rules, jsonOnly) },
      ...(request.system ? [{ role: "system" as const, content: request.system }] : []),
      {
        role: "user",
        content: [
          `Request:\n${request.prompt}`,
          draft ? `Planner notes:\n${draft}` : "",
          blocks.length > 0 ? `Pages read (${blocks.length}):\n${blocks.join("\n\n")}` : "",
          stop ? "Some work was cut short by the job's budget: answer with what is here and say what is missing." : "",
        ]
          .filter(Boolean)
          .join("\n\n"),
      },
    ];
    const estimate = estimateTokens(textsOf(writer));
    const finalStop = budget.finalStop(estimate);
    if (finalStop) {
      stop ??= finalStop;
      answer = draft;
    } else {
      signal.throwIfAborted();
      const response = await chat.complete({ model, messages: writer, maxTokens: budget.maxTokens(estimate), signal });
      budget.record(response.usage);
      refusalCheck(response);
      answer = response.content;
      if (jsonOnly) answer = await repairJson(chat, model, budget, answer, signal);
    }
  }
  if (jsonOnly && tools.length > 0 && answer === draft) answer = await repairJson(chat, model, budget, answer, signal);

  const known = [request.prompt, ...pages.flatMap((p) => [p.url, p.finalUrl, p.text])];
  const checked = keepKnownUrls(answer, known);
  if (checked.removed.length > 0) deps.log?.info("agent: removed unverified URLs from an answer", { count: checked.removed.length });
  return {
    answer: checked.text,
    partial: stop !== undefined,
    ...(stop ? { partialReason: stop } : {}),
    usage: usageOf(model, budget),
    sources: pages.map((p) => ({ url: p.finalUrl, ...(p.title ? { title: p.title } : {}) })),
    ...(checked.removed.length > 0 ? { removedUrls: checked.removed } : {}),
  };
}

/** With json_only the answer must parse: one tool-less repair call, then the job fails (nothing settled). */
async function repairJson(chat: ChatClient, model: string, budget: JobBudget, answer: string, signal: AbortSignal): Promise<string> {
  const first = parseJsonAnswer(answer);
  if (first.ok) return first.json;
  const messages: ChatMessage[] = [
    { role: "system", content: "You repair a document that must be valid JSON. Reply with exactly one JSON document and nothing else: no prose, no code fences." },
    { role: "user", content: `This is not valid JSON (${first.error}). Rewrite it as valid JSON with the same content:\n\n${answer}` },
  ];
  const estimate = estimateTokens(textsOf(messages));
  if (budget.finalStop(estimate)) {
    throw new ApiError("MODEL_OUTPUT_INVALID", { message: "The model's answer was not valid JSON and the budget left no room for a repair; nothing was charged." });
  }
  signal.throwIfAborted();
  const response = await chat.complete({ model, messages, maxTokens: budget.maxTokens(estimate), signal });
  budget.record(response.usage);
  refusalCheck(response);
  const second = parseJsonAnswer(response.content);
  if (second.ok) return second.json;
  throw new ApiError("MODEL_OUTPUT_INVALID", { message: `The model's answer was not valid JSON after one repair (${second.error}); nothing was charged.` });
}
