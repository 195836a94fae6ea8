/** skills/host-report.ts: async text report of disk, load, memory and open_for_work. @see issue 6 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type TestService, testService } from "../support/service.ts";
import { until } from "../jobs/job-skills.ts";

let service: TestService;
beforeAll(async () => {
  service = await testService([]);
});
afterAll(() => service.close());

describe("host.report", () => {
  it("is declared async at 0.01 with a 180 s timeout", () => {
    const entry = service.registry.skill("host.report");
    expect(entry?.definition.async).toBe(true);
    expect(entry?.priceOf({})).toEqual({ base: 10_000, algorand: 10_000 });
    expect(entry?.definition.timeoutMs).toBe(180_000);
  });

  it("answers 202 and completes with a text report of open_for_work, load, memory and disk", async () => {
    const res = await service.request("/v1/jobs/host.report", { method: "POST", json: {} });
    expect(res.status).toBe(202);
    const id = ((await res.json()) as { job_id: string }).job_id;
    const done = await until(async () => {
      const body = (await (await service.request(`/v1/jobs/${id}`)).json()) as { status: string; result?: unknown };
      return body.status === "completed" ? body : undefined;
    });
    expect(typeof done.result).toBe("string");
    const report = String(done.result);
    expect(report).toMatch(/^open_for_work: yes$/m);
    expect(report).toMatch(/^load \(1\/5\/15 min\): [\d.]+ [\d.]+ [\d.]+ on \d+ CPUs$/m);
    expect(report).toMatch(/^memory: [\d.]+ GiB free of [\d.]+ GiB \(\d+% used\)$/m);
    expect(report).toMatch(/^disk \(working folder\): [\d.]+ GiB free of [\d.]+ GiB \(\d+% used\)$/m);
  });
});
