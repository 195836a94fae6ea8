/** A definition's `admit` runs after validation and before any price or payment: its refusal is never a 402 and never runs the work. */
import { afterAll, describe, expect, it } from "bun:test";
import { type TestService, testService } from "../support/service.ts";
import { pluginFolder } from "../support/plugin-files.ts";

const gatedSkill = (name: string, isAsync: boolean) => `import { ApiError, defineSkill, t } from "tollbooth";
export default defineSkill({
  skill: ${JSON.stringify(name)},
  summary: "Runs only for admitted words.",
  input: t.Object({ word: t.String({ maxLength: 20 }) }, { additionalProperties: false }),
  price: "0.01",
  async: ${isAsync},
  timeoutMs: 1000,
  examples: [{ input: { word: "yes" } }],
  admit({ word }, ctx) {
    if (word === "gone") throw new ApiError("JOB_NOT_FOUND", { message: "no such thing" });
    if (word === "model" && !ctx.llm.configured) throw new ApiError("SKILL_UNAVAILABLE");
  },
  async run({ word }) { (globalThis as any).__admitRuns = ((globalThis as any).__admitRuns ?? 0) + 1; return { word }; },
});
`;

const folder = pluginFolder({ "admit-sync.ts": gatedSkill("admit.sync", false), "admit-later.ts": gatedSkill("admit.later", true) });
const services: TestService[] = [];
afterAll(() => {
  for (const s of services) s.close();
});
const runs = () => ((globalThis as Record<string, unknown>).__admitRuns as number | undefined) ?? 0;

describe("admit", () => {
  const paidFlags = ["--payments", "on", "--pay-to-base", "0x1111111111111111111111111111111111111111", "--facilitator-url", "http://127.0.0.1:9/"];

  for (const skill of ["admit.sync", "admit.later"]) {
    it(`refuses ${skill} with its own code before the 402, and charges nothing`, async () => {
      const service = await testService(["--plugins", folder, ...paidFlags]);
      services.push(service);
      const before = runs();
      const gone = await service.request("/v1/jobs", { method: "POST", json: { skill, word: "gone" } });
      expect(gone.status).toBe(404);
      expect(gone.headers.get("payment-required")).toBeNull();
      expect(await gone.json()).toMatchObject({ ok: false, error: "JOB_NOT_FOUND", message: "no such thing" });

      const model = await service.request("/v1/jobs", { method: "POST", json: { skill, word: "model" } });
      expect(model.status).toBe(503);
      expect(await model.json()).toMatchObject({ error: "SKILL_UNAVAILABLE" });

      const admitted = await service.request("/v1/jobs", { method: "POST", json: { skill, word: "yes" } });
      expect(admitted.status).toBe(402);
      expect(admitted.headers.get("payment-required")).not.toBeNull();
      expect(runs()).toBe(before);
    });
  }

  it("lets admitted work run with payments off", async () => {
    const service = await testService(["--plugins", folder]);
    services.push(service);
    const before = runs();
    const ok = await service.request("/v1/jobs", { method: "POST", json: { skill: "admit.sync", word: "yes" } });
    expect(ok.status).toBe(200);
    expect(runs()).toBe(before + 1);
    const refused = await service.request("/v1/jobs", { method: "POST", json: { skill: "admit.sync", word: "gone" } });
    expect(refused.status).toBe(404);
    expect(runs()).toBe(before + 1);
  });
});
