/**
 * @module test/support/chat-server — an OpenAI Chat Completions server on 127.0.0.1:<random
 * port> that streams (SSE) what a script says, including the odd cases: a hang, a stall mid-stream,
 * malformed JSON, 429 with Retry-After, tool calls in both delta styles, reported usage and xAI's
 * cost_in_usd_ticks. Records every request body so tests can assert what each call was given.
 */

export interface ScriptedToolCall {
  readonly name: string;
  readonly arguments: string;
  readonly id?: string;
}

export type ChatReply =
  | {
      readonly content?: string;
      readonly toolCalls?: readonly ScriptedToolCall[];
      /** "incremental": OpenAI's index-keyed argument pieces; "whole": each call complete in one chunk at index 0. */
      readonly style?: "incremental" | "whole";
      readonly usage?: { prompt_tokens: number; completion_tokens: number; total_tokens?: number; reasoning_tokens?: number; cost_in_usd_ticks?: number };
      readonly refusal?: string;
      readonly finishReason?: string;
      /** Milliseconds to wait before answering. */
      readonly delayMs?: number;
    }
  | { readonly status: number; readonly retryAfter?: string; readonly body?: string }
  | { readonly hang: true }
  | { readonly stallAfterFirstChunk: true }
  | { readonly malformed: true };

export interface ChatRequestRecord {
  readonly body: {
    model: string;
    messages: { role: string; content: unknown; tool_calls?: unknown; tool_call_id?: string }[];
    tools?: { function: { name: string } }[];
    max_tokens?: number;
    stream?: boolean;
  };
  readonly headers: Headers;
  readonly at: number;
}

export interface ChatServer {
  readonly baseUrl: string;
  readonly requests: ChatRequestRecord[];
  /** Requests whose connection the client closed (an abort reached the server). */
  readonly aborted: () => number;
  stop(): Promise<void>;
}

const encoder = new TextEncoder();

function chunk(delta: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return `data: ${JSON.stringify({ id: "chatcmpl-test", object: "chat.completion.chunk", created: 0, model: "test-model", choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`;
}

function sseChunks(reply: Extract<ChatReply, { content?: string }>): string[] {
  const out: string[] = [chunk({ role: "assistant", content: "" })];
  if (reply.content) {
    // Split the content so the client has to join it.
    const mid = Math.ceil(reply.content.length / 2);
    for (const piece of [reply.content.slice(0, mid), reply.content.slice(mid)]) if (piece) out.push(chunk({ content: piece }));
  }
  if (reply.refusal) out.push(chunk({ refusal: reply.refusal }));
  const calls = reply.toolCalls ?? [];
  calls.forEach((call, i) => {
    const id = call.id ?? `call_${i}_${Math.random().toString(36).slice(2, 8)}`;
    if (reply.style === "whole") {
      out.push(chunk({ tool_calls: [{ index: 0, id, type: "function", function: { name: call.name, arguments: call.arguments } }] }));
    } else {
      out.push(chunk({ tool_calls: [{ index: i, id, type: "function", function: { name: call.name, arguments: "" } }] }));
      const third = Math.ceil(call.arguments.length / 3);
      for (let at = 0; at < call.arguments.length; at += third) {
        out.push(chunk({ tool_calls: [{ index: i, function: { arguments: call.arguments.slice(at, at + third) } }] }));
      }
    }
  });
  const finish = reply.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop");
  out.push(`data: ${JSON.stringify({ id: "chatcmpl-test", object: "chat.completion.chunk", created: 0, model: "test-model", choices: [{ index: 0, delta: {}, finish_reason: finish }] })}\n\n`);
  const u = reply.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
  const usage: Record<string, unknown> = {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.total_tokens ?? u.prompt_tokens + u.completion_tokens + (u.reasoning_tokens ?? 0),
    ...(u.reasoning_tokens !== undefined ? { completion_tokens_details: { reasoning_tokens: u.reasoning_tokens } } : {}),
    ...(u.cost_in_usd_ticks !== undefined ? { cost_in_usd_ticks: u.cost_in_usd_ticks } : {}),
  };
  out.push(`data: ${JSON.stringify({ id: "chatcmpl-test", object: "chat.completion.chunk", created: 0, model: "test-model", choices: [], usage })}\n\n`);
  out.push("data: [DONE]\n\n");
  return out;
}

/** `script(request, n)` answers the n-th request (0-based). */
export function startChatServer(script: (request: ChatRequestRecord, n: number) => ChatReply, models: readonly string[] = ["test-model"]): ChatServer {
  const requests: ChatRequestRecord[] = [];
  let aborted = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method === "GET" && url.pathname.endsWith("/models")) {
        return Response.json({ object: "list", data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "test" })) });
      }
      if (req.method !== "POST" || !url.pathname.endsWith("/chat/completions")) return new Response("not found", { status: 404 });
      const record: ChatRequestRecord = { body: (await req.json()) as ChatRequestRecord["body"], headers: req.headers, at: performance.now() };
      const n = requests.length;
      requests.push(record);
      req.signal.addEventListener("abort", () => aborted++, { once: true });
      const reply = script(record, n);
      if ("hang" in reply) return new Promise<Response>(() => {});
      if ("status" in reply) {
        return new Response(reply.body ?? JSON.stringify({ error: { message: `scripted ${reply.status}`, type: "test" } }), {
          status: reply.status,
          headers: { "content-type": "application/json", ...(reply.retryAfter ? { "retry-after": reply.retryAfter } : {}) },
        });
      }
      const sse = { "content-type": "text/event-stream", "cache-control": "no-cache" };
      if ("malformed" in reply) {
        return new Response(`data: {"id": "x", "choices": [{"delta": {"content": "broken\n\ndata: [DONE]\n\n`, { headers: sse });
      }
      if ("stallAfterFirstChunk" in reply) {
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode(chunk({ role: "assistant", content: "Thinking" })));
          },
        });
        return new Response(stream, { headers: sse });
      }
      if (reply.delayMs) await Bun.sleep(reply.delayMs);
      // Like a real server, never bill more output than max_tokens allowed.
      const cap = record.body.max_tokens;
      const billed = reply.usage && cap !== undefined && reply.usage.completion_tokens > cap ? { ...reply, usage: { ...reply.usage, completion_tokens: cap, total_tokens: undefined } } : reply;
      const parts = sseChunks(billed);
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const p of parts) controller.enqueue(encoder.encode(p));
          controller.close();
        },
      });
      return new Response(stream, { headers: sse });
    },
  });
  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    requests,
    aborted: () => aborted,
    stop: async () => {
      await server.stop(true);
    },
  };
}

/** The text of every message of a request, joined (to assert what a call saw). */
export function requestText(record: ChatRequestRecord): string {
  return record.body.messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
}

/** Whether a request offered tools to the model. */
export function offeredTools(record: ChatRequestRecord): boolean {
  return (record.body.tools?.length ?? 0) > 0;
}
