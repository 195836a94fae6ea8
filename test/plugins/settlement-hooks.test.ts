/**
 * The paid pipeline's two additions for work that depends on server state: `admit` may price the
 * call (the 402 states that price), and `settlement` hooks see the settlement after a sync call's
 * work (what `settled` returns is the answer). The registry refuses hooks on async skills or
 * with one half missing. The paid paths are covered end to end in test/capital. @see issue 18
 */
import { afterAll, describe, expect, it } from "bun:test";
import { loadExternalFiles } from "../../src/loader/load.ts";
import { buildRegistry, RegistryError } from "../../src/plugin/registry.ts";
import { pluginFolder } from "../support/plugin-files.ts";
import { type TestService, testService } from "../support/service.ts";

const hooked = (name: string, options: { async?: boolean; hooks?: string } = {}) => `import { defineSkill, t } from "tollbooth";
export default defineSkill({
  skill: ${JSON.stringify(name)},
  summary: "Holds a word until the payment settles.",
  input: t.Object({ word: t.String({ maxLength: 20 }), cents: t.Integer({ minimum: 1, maximum: 99 }) }, { additionalProperties: false }),
  price: "0.5",
  async: ${options.async ?? false},
  timeoutMs: 1000,
  examples: [{ input: { word: "a", cents: 1 } }],
  admit({ cents }) { return { price: "0.0" + String(cents).padStart(2, "0") }; },
  async run({ word }) { return { word, state: "held" }; },
  settlement: ${options.hooks ?? `{
    settled: (result, receipt) => ({ ...result, state: "final", payer: receipt.payer, transaction: receipt.transaction }),
    unsettled: () => {},
  }`},
});
`;

const services: TestService[] = [];
afterAll(() => {
  for (const s of services) s.close();
});

describe("settlement hooks and admit prices", () => {
  it("refuses hooks on an async skill, and hooks with a half missing", async () => {
    const loaded = await loadExternalFiles(pluginFolder({ "hook-later.ts": hooked("hook.later", { async: true }), "hook-half.ts": hooked("hook.half", { hooks: "{ settled: (r) => r }" }) }));
    let problems: { file: string; field: string; message: string }[] = [];
    try {
      buildRegistry(loaded);
    } catch (error) {
      if (!(error instanceof RegistryError)) throw error;
      problems = error.problems.map((p) => ({ ...p, file: p.file.split("/").pop() ?? "" }));
    }
    expect(problems).toEqual([
      { file: "hook-half.ts", field: "settlement", message: expect.stringContaining("both settled") },
      { file: "hook-later.ts", field: "settlement", message: expect.stringContaining("sync calls only") },
    ]);
  });

  it("answers what settled returns, and the 402 states the price admit gave", async () => {
    const folder = pluginFolder({ "hook-now.ts": hooked("hook.now") });
    const free = await testService(["--plugins", folder]);
    const paid = await testService(["--plugins", folder, "--payments", "on", "--pay-to-base", "0x1111111111111111111111111111111111111111", "--facilitator-url", "http://127.0.0.1:9/"]);
    services.push(free, paid);
    const res = await free.request("/v1/jobs", { method: "POST", json: { skill: "hook.now", word: "seat", cents: 7 } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, skill: "hook.now", result: { word: "seat", state: "final", payer: null, transaction: null } });
    const preview = await paid.request("/v1/jobs", { method: "POST", json: { skill: "hook.now", word: "seat", cents: 7 } });
    expect(preview.status).toBe(402);
    expect(((await preview.json()) as { accepts: { amount: string }[] }).accepts[0]?.amount).toBe("7000");
  });
});
