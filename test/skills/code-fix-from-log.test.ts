/** skills/code-fix-from-log.ts: the rules engine sold as an async job at 0.08. @see issue 16 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { DiagnosisSchema, diagnoseLog } from "../../src/logs/diagnose.ts";
import { until } from "../jobs/job-skills.ts";
import { fixtureLog, lineOf } from "../logs/fixture-logs.ts";
import { type TestService, testService } from "../support/service.ts";

let service: TestService;
beforeAll(async () => {
  service = await testService(["--rate-limit-per-min", "10000"]);
});
afterAll(() => service.close());

type Json = Record<string, unknown>;

async function runJob(body: Json, path = "/v1/jobs/code.fix_from_log"): Promise<Json> {
  const res = await service.request(path, { method: "POST", json: body });
  expect(res.status).toBe(202);
  const id = String(((await res.json()) as Json).job_id);
  return until(async () => {
    const job = (await (await service.request(`/v1/jobs/${id}`)).json()) as Json;
    return job.status === "completed" || job.status === "failed" ? job : undefined;
  }, 10_000, `job ${id}`);
}

describe("code.fix_from_log", () => {
  it("is declared async at 0.08 with a 180 s timeout and the diagnosis schema as output", () => {
    const entry = service.registry.skill("code.fix_from_log");
    expect(entry?.definition.async).toBe(true);
    expect(entry?.priceOf({ log: "x" })).toEqual({ base: 80_000, algorand: 80_000 });
    expect(entry?.definition.timeoutMs).toBe(180_000);
    // The diagnosis schema, plus the model's usage when a model wrote it.
    expect(Object.keys(entry?.definition.output?.properties ?? {})).toEqual([...Object.keys(DiagnosisSchema.properties), "usage"]);
  });

  it("answers 202 and completes with the rules engine's diagnosis of the log", async () => {
    const log = fixtureLog("pytest-travis.log");
    const job = await runJob({ log });
    expect(job.status).toBe("completed");
    const result = job.result as Json;
    expect(Value.Check(DiagnosisSchema, result)).toBe(true);
    expect(result).toEqual(diagnoseLog(log) as unknown as Json);
    expect(result).toMatchObject({ engine: "rules", family: "python" });
    const failing = result.failing_lines as { from: number; to: number };
    const error = lineOf(log, "E       assert 3 == 4");
    expect(failing.from).toBeLessThanOrEqual(error);
    expect(failing.to).toBeGreaterThanOrEqual(error);
  });

  it("returns a JSON-encoded string when the caller sends json_only through POST /v1/jobs", async () => {
    const log = fixtureLog("go-build.log");
    const job = await runJob({ skill: "code.fix_from_log", log, json_only: true }, "/v1/jobs");
    expect(typeof job.result).toBe("string");
    const parsed = JSON.parse(job.result as string) as Json;
    expect(parsed).toMatchObject({ engine: "rules", family: "go" });
  });

  it("refuses a missing, empty or too long log with 400 before any work", async () => {
    for (const body of [{}, { log: "" }, { log: "x".repeat(200_001) }, { log: "x", extra: 1 }]) {
      const res = await service.request("/v1/jobs/code.fix_from_log", { method: "POST", json: body });
      expect(res.status).toBe(400);
      expect(((await res.json()) as Json).error).toBe("INVALID_REQUEST");
    }
    const longest = await service.request("/v1/jobs/code.fix_from_log", { method: "POST", json: { log: "y".repeat(200_000) } });
    expect(longest.status).toBe(202);
  });

  it("documents an example whose output is what the engine answers for its input", () => {
    const example = service.registry.skill("code.fix_from_log")?.definition.examples[0];
    expect(example?.output).toEqual(diagnoseLog((example?.input as { log: string }).log));
  });
});
