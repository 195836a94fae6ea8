/** skills/capabilities.ts: the paid probe, sync, at 0.002. @see issue 6 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type TestService, testService } from "../support/service.ts";

let service: TestService;
beforeAll(async () => {
  service = await testService([]);
});
afterAll(() => service.close());

describe("capabilities", () => {
  it("is declared sync at 0.002 with a 5 s timeout", () => {
    const entry = service.registry.skill("capabilities");
    expect(entry?.definition.async).toBe(false);
    expect(entry?.priceOf({})).toEqual({ base: 2000, algorand: 2000 });
    expect(entry?.definition.timeoutMs).toBe(5000);
  });

  it("answers {ok, open_for_work, price_job, skills} from the registry and the manager", async () => {
    const res = await service.request("/v1/jobs", { method: "POST", json: { skill: "capabilities" } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: Record<string, unknown> };
    expect(Object.keys(body.result).sort()).toEqual(["ok", "open_for_work", "price_job", "skills"]);
    // price_job is the highest skill price, whichever skills are installed.
    const highest = String(Math.max(...service.registry.skills.map((s) => Number(s.definition.price))));
    expect(body.result).toEqual({ ok: true, open_for_work: true, price_job: highest, skills: service.registry.skills.map((s) => s.id) });
  });
});
