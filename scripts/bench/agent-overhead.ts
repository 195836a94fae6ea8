/**
 * Agent overhead of a full grok.prompt job (issue 16): submission to `completed` through the job
 * worker, minus the model's own time, against a loopback Chat Completions server that answers at
 * once. The model's time is the same streamed call made directly through the provider module,
 * alternated with the jobs in the same run. Target: p50 overhead < 50 ms. Payments off.
 * Run: node_modules/.bin/bun scripts/bench/agent-overhead.ts [--runs 60]
 */
import { loadavg } from "node:os";
import { buildService } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { resolveLlm } from "../../src/llm/config.ts";
import { createChatClient } from "../../src/llm/provider.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { startChatServer } from "../../test/support/chat-server.ts";
import { option } from "./dev-set.ts";

const runs = Number(option("runs", "60"));
const chat = startChatServer(() => ({ content: "Forty-two.", usage: { prompt_tokens: 120, completion_tokens: 4 } }));
const argv = ["--data", ":memory:", "--rate-limit-per-min", "100000000", "--llm-base-url", chat.baseUrl, "--llm-model", "test-model"];
const config = loadConfig({ argv });
const service = await buildService(config, { log: createMemoryLogger() });
const direct = createChatClient(resolveLlm(config)!);
const request = (path: string, init: RequestInit = {}) => service.handle(new Request(new URL(path, "http://127.0.0.1:8402"), init), "127.0.0.1");

async function job(): Promise<number> {
  const t0 = performance.now();
  const res = await request("/v1/jobs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ skill: "grok.prompt", prompt: "What is six times seven?" }) });
  const id = ((await res.json()) as { job_id: string }).job_id;
  for (;;) {
    const body = (await (await request(`/v1/jobs/${id}`)).json()) as { status: string };
    if (body.status === "completed") return performance.now() - t0;
    if (body.status !== "queued" && body.status !== "running") throw new Error(`job ${body.status}`);
    await Bun.sleep(1);
  }
}

async function model(): Promise<number> {
  const t0 = performance.now();
  await direct.complete({
    model: "test-model",
    messages: [
      { role: "system", content: "You plan the research for a paid request." },
      { role: "user", content: "What is six times seven?" },
    ],
    signal: new AbortController().signal,
  });
  return performance.now() - t0;
}

for (let i = 0; i < 5; i++) await Promise.all([job(), model()]); // warm up
const jobs: number[] = [];
const calls: number[] = [];
for (let i = 0; i < runs; i++) {
  calls.push(await model());
  jobs.push(await job());
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!;
console.log(`load average ${loadavg().map((l) => l.toFixed(1)).join(" ")} (shared machine: figures are noisy); ${runs} jobs alternated with ${runs} direct calls`);
console.log(`direct model call (streamed, loopback): p50 ${median(calls).toFixed(1)} ms  p90 ${p90(calls).toFixed(1)} ms`);
console.log(`grok.prompt job, submit → completed:    p50 ${median(jobs).toFixed(1)} ms  p90 ${p90(jobs).toFixed(1)} ms (polled every 1 ms)`);
console.log(`overhead beyond the model (p50 − p50):  ${(median(jobs) - median(calls)).toFixed(1)} ms (target < 50 ms)`);
await service.close();
await chat.stop();
