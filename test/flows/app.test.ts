import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { pluginFolder, pluginSource } from "../support/plugin-files.ts";
import { type TestService, testService } from "../support/service.ts";

const examples = join(import.meta.dir, "../../examples");

const slowPlugin = `import { definePlugin, t } from "tollbooth";
export default definePlugin({
  id: "slow.sleep", route: "POST /v1/slow/sleep", summary: "Sleeps past its timeout.",
  input: t.Object({ ms: t.Integer() }, { additionalProperties: false }),
  price: "0.001", timeoutMs: 150, examples: [{ input: { ms: 1 } }],
  async run({ ms }) { await new Promise((r) => setTimeout(r, ms)); return { slept: ms }; },
});`;
const brokenPlugin = `import { definePlugin, t } from "tollbooth";
export default definePlugin({
  id: "broken.crash", route: "POST /v1/broken/crash", summary: "Throws an unexpected error.",
  input: t.Object({}, { additionalProperties: false }),
  price: "0.001", timeoutMs: 1000, examples: [{ input: {} }],
  async run() { throw new Error("secret internal detail at /home/op/.env"); },
});`;

let service: TestService;

beforeAll(async () => {
  const extra = pluginFolder({
    "text-reverse.ts": pluginSource("text.reverse", "POST /v1/text/reverse"),
    "slow-sleep.ts": slowPlugin,
    "broken-crash.ts": brokenPlugin,
  });
  // two folders are not a feature; copy the README example in beside the others
  const { copyFileSync } = await import("node:fs");
  copyFileSync(join(examples, "word-count.ts"), join(extra, "word-count.ts"));
  service = await testService(["--plugins", extra]);
});
afterAll(() => service.close());

describe("request contract", () => {
  it("answers a plugin call with its result, a request id in body and header", async () => {
    const res = await service.request("/v1/text/reverse", { method: "POST", json: { text: "abc", times: 2 } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.reversed).toBe("cbacba");
    expect(body.request_id).toBe(res.headers.get("x-request-id")!);
    expect(String(body.request_id)).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it.each([
    ["an unknown property", { text: "abc", extra: 1 }, /unknown property; allowed: text, times/],
    ["a wrong type", { text: 5 }, /\/text/],
    ["a missing field", {}, /\/text: required/],
    ["a value out of range", { text: "a", times: 9 }, /\/times/],
  ])("rejects %s with 400 INVALID_REQUEST", async (_, json, message) => {
    const res = await service.request("/v1/text/reverse", { method: "POST", json });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ ok: false, error: "INVALID_REQUEST", status: 400 });
    expect(String(body.message)).toMatch(message);
    expect(Array.isArray(body.issues)).toBe(true);
  });

  it("answers malformed JSON, non-objects and non-JSON bodies with their own codes", async () => {
    const bad = await service.request("/v1/text/reverse", { method: "POST", body: "{nope", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe("INVALID_JSON");
    const array = await service.request("/v1/text/reverse", { method: "POST", json: [1, 2] });
    expect(((await array.json()) as { error: string }).error).toBe("INVALID_REQUEST");
    const form = await service.request("/v1/text/reverse", { method: "POST", body: "text=abc", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(form.status).toBe(415);
  });

  it("refuses bodies over 1 MiB, declared or streamed", async () => {
    const big = JSON.stringify({ text: "x".repeat(1024 * 1024 + 10) });
    const declared = await service.request("/v1/text/reverse", { method: "POST", body: big, headers: { "content-type": "application/json" } });
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as { error: string }).error).toBe("BODY_TOO_LARGE");
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
        for (let i = 0; i < 20; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const streamed = await service.request("/v1/text/reverse", { method: "POST", body: stream, headers: { "content-type": "application/json" } });
    expect(streamed.status).toBe(413);
  });

  it("lets browsers read and send the payment headers (CORS)", async () => {
    const preflight = await service.request("/v1/text/reverse", { method: "OPTIONS" });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("PAYMENT-SIGNATURE");
    const res = await service.request("/v1/text/reverse", { method: "POST", json: { text: "a" } });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-expose-headers")).toContain("PAYMENT-REQUIRED");
    expect(res.headers.get("access-control-expose-headers")).toContain("PAYMENT-RESPONSE");
  });

  it("gives every free document, cached ones too, its request id and the CORS headers once", async () => {
    for (const path of ["/health", "/v1/capabilities", "/llms.txt", "/agent-card.json"]) {
      const res = await service.request(path);
      expect(res.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-expose-headers")).toContain("X-Request-Id");
      expect(res.headers.get("access-control-expose-headers")).not.toContain(", PAYMENT-REQUIRED, PAYMENT-RESPONSE, PAYMENT-REQUIRED");
    }
  });

  it("answers unknown routes with a JSON 404", async () => {
    const res = await service.request("/v1/nope");
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ ok: false, error: "NOT_FOUND", status: 404 });
  });

  it("never leaks an internal error's text or stack to the caller, but logs it", async () => {
    const res = await service.request("/v1/broken/crash", { method: "POST", json: {} });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("secret");
    expect(text).not.toContain("at ");
    expect(JSON.parse(text)).toMatchObject({ ok: false, error: "INTERNAL_ERROR" });
    expect(service.logLines.some((l) => l.level === "error" && String(l.error).includes("secret internal detail"))).toBe(true);
  });

  it("aborts a run past its declared timeout with 504", async () => {
    const res = await service.request("/v1/slow/sleep", { method: "POST", json: { ms: 2000 } });
    expect(res.status).toBe(504);
    expect(((await res.json()) as { error: string }).error).toBe("OPERATION_TIMEOUT");
  });

  it("writes one JSON log line per request without bodies or target URLs", async () => {
    const before = service.logLines.length;
    await service.request("/v1/text/reverse?u=https://example.org/secret", { method: "POST", json: { text: "https://target.example/page" } });
    const lines = service.logLines.slice(before).filter((l) => l.msg === "request");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: "POST", path: "/v1/text/reverse", status: 200, outcome: "ok", operation: "text.reverse" });
    expect(typeof lines[0]!.ms).toBe("number");
    expect(JSON.stringify(lines[0])).not.toContain("example");
  });
});

describe("jobs (sync skills)", () => {
  it("runs a skill named in the body or the path", async () => {
    const a = await service.request("/v1/jobs", { method: "POST", json: { skill: "word.count", text: "a b c" } });
    expect(a.status).toBe(200);
    expect(await a.json()).toMatchObject({ ok: true, skill: "word.count", result: { words: 3, lines: 1, characters: 5 } });
    const b = await service.request("/v1/jobs/word.count", { method: "POST", json: { text: "x" } });
    expect(await b.json()).toMatchObject({ ok: true, result: { words: 1 } });
  });

  it("lists the known skills when the skill is unknown", async () => {
    const res = await service.request("/v1/jobs", { method: "POST", json: { skill: "nope" } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; skills: string[] };
    expect(body.error).toBe("UNKNOWN_SKILL");
    expect(body.skills).toContain("word.count");
  });

  it("validates the skill's own fields", async () => {
    const res = await service.request("/v1/jobs", { method: "POST", json: { skill: "word.count", text: "x", more: true } });
    expect(res.status).toBe(400);
  });
});

describe("manager", () => {
  it("refuses paid work while paused, with the reason, and keeps free endpoints working", async () => {
    // Served once before the pause: the capabilities text kept from then must not outlive the state it showed.
    expect(await (await service.request("/v1/capabilities")).json()).toMatchObject({ open_for_work: true });
    await service.store.settings.pause("upgrading the disk");
    try {
      const res = await service.request("/v1/text/reverse", { method: "POST", json: { text: "abc" } });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: "SERVICE_PAUSED", pause_reason: "upgrading the disk" });
      const caps = await service.request("/v1/capabilities");
      expect(caps.status).toBe(200);
      expect(await caps.json()).toMatchObject({ open_for_work: false, pause_reason: "upgrading the disk" });
    } finally {
      await service.store.settings.resume();
    }
    const reopened = (await (await service.request("/v1/capabilities")).json()) as Record<string, unknown>;
    expect(reopened.open_for_work).toBe(true);
    expect(reopened.pause_reason).toBeUndefined();
  });
});

describe("one declaration, many views", () => {
  const views = ["/openapi.json", "/v1/capabilities", "/llms.txt", "/skill.md", "/recipes.md", "/workflows.md", "/pilot.md", "/agent-card.json", "/.well-known/agent-card.json"];

  it.each(views)("%s lists the dropped plugin and skill files", async (path) => {
    const res = await service.request(path);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain("text.reverse");
    expect(text).toContain("word.count");
  });

  it("pilot.md starts the reader on the cheapest operation", async () => {
    expect(await (await service.request("/pilot.md")).text()).toContain("Try the cheapest operation, broken.crash");
  });

  it("documents request schemas, error codes and payment info in OpenAPI 3.1", async () => {
    const doc = (await (await service.request("/openapi.json")).json()) as {
      openapi: string;
      paths: Record<string, { post?: Record<string, unknown> }>;
      "x-error-codes": Record<string, { status: number }>;
      components: { schemas: { Error: { properties: { error: { enum: string[] } } } } };
    };
    expect(doc.openapi).toBe("3.1.0");
    const op = doc.paths["/v1/text/reverse"]!.post!;
    expect(JSON.stringify(op.requestBody)).toContain('"additionalProperties":false');
    expect(op["x-payment-info"]).toMatchObject({ protocol: "x402", version: 2, scheme: "exact", price_usd: { base: "0.004", algorand: "0.004" } });
    expect(Object.keys((op.responses as object))).toEqual(expect.arrayContaining(["200", "400", "402", "500"]));
    expect(doc.paths["/v1/jobs/word.count"]).toBeDefined();
    expect(doc.paths["/health"]).toBeDefined();
    expect(doc["x-error-codes"].INVALID_REQUEST!.status).toBe(400);
    expect(doc.components.schemas.Error.properties.error.enum).toContain("SELECTOR_NOT_FOUND");
  });

  it("health says what is on", async () => {
    const body = (await (await service.request("/health")).json()) as Record<string, unknown>;
    expect(body).toMatchObject({ ok: true, payments: "off", open_for_work: true, operations: service.registry.plugins.length, skills: service.registry.skills.length });
    expect(body.operations).toBeGreaterThanOrEqual(3);
  });
});
