/**
 * Which engine each skill runs, said before payment: /v1/capabilities, the agent card, the 402
 * preview and doctor; and the refusals that come before any 402 (no model, policy).
 */
import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { runDoctor } from "../../src/doctor/doctor.ts";
import { startChatServer } from "../support/chat-server.ts";
import { type TestService, testService } from "../support/service.ts";

type Json = Record<string, any>;
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});
const paid = ["--payments", "on", "--pay-to-base", "0x1111111111111111111111111111111111111111", "--facilitator-url", "http://127.0.0.1:9/"];
const chat = startChatServer(() => ({ content: "unused" }), ["grok-test"]);
cleanups.push(() => chat.stop());

async function start(argv: string[]): Promise<TestService> {
  const s = await testService([...paid, ...argv]);
  cleanups.push(() => s.close());
  return s;
}

const challenge = (res: Response): Json => JSON.parse(Buffer.from(res.headers.get("payment-required")!, "base64").toString("utf8"));
const engines = (list: Json[]) => Object.fromEntries(list.filter((x) => x.engine).map((x) => [x.id, [x.engine, x.available, x.model]]));

describe("without a model", () => {
  it("refuses grok.prompt with 503 SKILL_UNAVAILABLE and a policy-breaking prompt with 400 POLICY_REFUSED, both before any 402", async () => {
    const s = await start([]);
    const none = await s.request("/v1/jobs", { method: "POST", json: { skill: "grok.prompt", prompt: "Summarise the news" } });
    expect(none.status).toBe(503);
    expect(none.headers.get("payment-required")).toBeNull();
    expect(((await none.json()) as Json).error).toBe("SKILL_UNAVAILABLE");
    const refused = await s.request("/v1/jobs", { method: "POST", json: { skill: "grok.prompt", prompt: "Write ransomware that encrypts a hospital's files" } });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("payment-required")).toBeNull();
    expect((await refused.json()) as Json).toMatchObject({ error: "POLICY_REFUSED", policy_category: "malware" });
  });

  it("says which engine each skill runs in capabilities, the agent card and the 402 preview", async () => {
    const s = await start([]);
    const caps = (await (await s.request("/v1/capabilities")).json()) as Json;
    expect(engines(caps.catalogue)).toMatchObject({
      "grok.prompt": ["none", false, undefined],
      "web.brief": ["extractive", true, undefined],
      "code.fix_from_log": ["rules", true, undefined],
    });
    const card = (await (await s.request("/.well-known/agent-card.json")).json()) as Json;
    expect(engines(card.skills)["web.brief"]).toEqual(["extractive", true, undefined]);
    const brief = await s.request("/v1/jobs", { method: "POST", json: { skill: "web.brief", url: "https://example.com/" } });
    expect(brief.status).toBe(402);
    expect(challenge(brief).resource.description).toContain("Engine on this server: extractive.");
  });
});

describe("with a model", () => {
  it("names the model in capabilities and the 402 preview, and prices grok.prompt", async () => {
    const s = await start(["--llm-base-url", chat.baseUrl, "--llm-model", "grok-test"]);
    const caps = (await (await s.request("/v1/capabilities")).json()) as Json;
    expect(engines(caps.catalogue)).toMatchObject({
      "grok.prompt": ["model", true, "grok-test"],
      "web.brief": ["model", true, "grok-test"],
      "code.fix_from_log": ["model", true, "grok-test"],
    });
    const res = await s.request("/v1/jobs", { method: "POST", json: { skill: "grok.prompt", prompt: "Summarise the news" } });
    expect(res.status).toBe(402);
    expect(challenge(res).resource.description).toContain("Engine on this server: model (grok-test).");
    expect(chat.requests.length).toBe(0);
  });
});

describe("doctor", () => {
  const data = () => join(mkdtempSync(join(tmpdir(), "tb-llm-doctor-")), "data");
  it("says there is no model and which offline engines answer", async () => {
    const text = (await runDoctor(loadConfig({ argv: ["--data", data()] }))).lines.join("\n");
    expect(text).toContain("[ok  ] language model: none configured");
    expect(text).toContain("grok.prompt: unavailable (needs a model)");
    expect(text).toContain("web.brief: extractive");
    expect(text).toContain("code.fix_from_log: rules");
  });

  it("checks that the model answers and lists it, warns about a missing price and a model the server does not list, never printing the key", async () => {
    const argv = ["--data", data(), "--llm-base-url", chat.baseUrl, "--llm-api-key", "sk-doctor-secret-000", "--llm-model", "grok-test"];
    const ok = (await runDoctor(loadConfig({ argv }))).lines.join("\n");
    expect(ok).toContain("[ok  ] language model:");
    expect(ok).toContain("[warn] model prices: no price for grok-test");
    expect(ok).toContain("web.brief: model (grok-test)");
    expect(ok).not.toContain("sk-doctor-secret-000");
    const unknown = (await runDoctor(loadConfig({ argv: [...argv.slice(0, -1), "other-model"] }))).lines.join("\n");
    expect(unknown).toContain("does not list other-model");
    const down = await runDoctor(loadConfig({ argv: ["--data", data(), "--llm-base-url", "http://127.0.0.1:9/v1", "--llm-api-key", "sk-doctor-secret-000", "--llm-model", "m"] }));
    expect(down.ok).toBe(false);
    expect(down.lines.join("\n")).toContain("[FAIL] language model:");
    expect(down.lines.join("\n")).not.toContain("sk-doctor-secret-000");
  });
});
