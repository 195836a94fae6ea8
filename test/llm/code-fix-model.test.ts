/** code.fix_from_log's model path: only the reducer's failure window reaches the (tool-less) model; the rules engine answers without one. */
import { afterAll, describe, expect, it } from "bun:test";
import { offeredTools, requestText, startChatServer } from "../support/chat-server.ts";
import { type TestService, testService } from "../support/service.ts";
import { until } from "../jobs/job-skills.ts";

type Json = Record<string, any>;
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const log = [
  ...Array.from({ length: 400 }, (_, i) => `[setup] step ${i} fine EARLY_LINE_${i}`),
  "$ npm test",
  "> app@1.0.0 test",
  "> node test.js",
  "Error: Cannot find module 'left-pad'",
  "npm ERR! code ELIFECYCLE",
  'The command "npm test" exited with 1.',
].join("\n");

async function diagnose(s: TestService): Promise<Json> {
  const accepted = (await (await s.request("/v1/jobs/code.fix_from_log", { method: "POST", json: { log } })).json()) as Json;
  return until(async () => {
    const job = (await (await s.request(`/v1/jobs/${accepted.job_id}`)).json()) as Json;
    return ["completed", "failed"].includes(job.status) ? job : undefined;
  }, 10_000);
}

describe("code.fix_from_log with a model", () => {
  it("sends only the failure window, spotlighted, to one tool-less call and keeps the reducer's failing lines", async () => {
    const written = { diagnosis: ["left-pad is missing."], root_cause: "left-pad is not installed.", fix_steps: ["npm install left-pad"], patch_sketch: '+ "left-pad": "1.3.0"', family: "npm", confidence: 0.9 };
    const chat = startChatServer(() => ({ content: JSON.stringify(written), usage: { prompt_tokens: 300, completion_tokens: 60 } }));
    cleanups.push(() => chat.stop());
    const s = await testService(["--rate-limit-per-min", "10000", "--llm-base-url", chat.baseUrl, "--llm-model", "log-model"]);
    cleanups.push(() => s.close());
    const job = await diagnose(s);
    expect(job.status).toBe("completed");
    const r = job.result;
    expect(r).toMatchObject({ ...written, engine: "model", usage: { model: "log-model", steps: 1, input_tokens: 300, output_tokens: 60 } });
    expect(r.failing_lines.to).toBe(406);
    expect(chat.requests.length).toBe(1);
    expect(offeredTools(chat.requests[0]!)).toBe(false);
    const sent = requestText(chat.requests[0]!);
    expect(sent).toContain("Cannot\u02c6find\u02c6module");
    expect(sent).not.toContain("EARLY_LINE_0");
  });

  it("answers with the rules engine without a model", async () => {
    const s = await testService(["--rate-limit-per-min", "10000"]);
    cleanups.push(() => s.close());
    const job = await diagnose(s);
    expect(job.result).toMatchObject({ engine: "rules", family: "npm" });
    expect(job.result.usage).toBeUndefined();
  });
});
