/**
 * web/extract paid with the official x402 buyer on anvil: a supported answer settles web/read's
 * price plus the model surcharge; an unreadable page, a model error and an answer with no value
 * supported settle nothing. Balances are read from the chain. The signed statement of a paid result
 * (endpoint and job) names the settlement's transaction.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { LLMock } from "@copilotkit/aimock";
import { verifyEvidence } from "../../src/evidence/verify.ts";
import { decodePaymentResponse } from "../../src/x402/headers.ts";
import { until } from "../jobs/job-skills.ts";
import { type TestService, testService } from "../support/service.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { type EvmFixture, startEvmFixture } from "../x402/evm-fixture.ts";

type Json = Record<string, any>;
let fx: EvmFixture;
let mock: LLMock;
let site: SiteServer;
let service: TestService;

const schema = { type: "object", properties: { name: { type: "string" }, price: { type: "number" } } };
const page = (marker: string) => `<html><head><title>Shop</title></head><body><main><h1>Acme Widget</h1><p>Price: $12.50 only. Code ${marker}.</p></main></body></html>`;
const userText = (req: { messages: { role: string; content: unknown }[] }) => String(req.messages.find((m) => m.role === "user")?.content ?? "");

beforeAll(async () => {
  fx = await startEvmFixture();
  site = startSiteServer();
  for (const marker of ["PAIDGOOD", "PAIDNONE", "PAIDDOWN"]) site.set(`/${marker.toLowerCase()}`, page(marker));
  mock = new LLMock({ port: 0, host: "127.0.0.1" });
  mock.addFixture({ match: { predicate: (r) => userText(r).includes("PAIDGOOD") }, response: { content: JSON.stringify({ name: { value: "Acme Widget", quote: "Acme Widget" }, price: { value: 12.5, quote: "Price: $12.50" } }) } });
  mock.addFixture({ match: { predicate: (r) => userText(r).includes("PAIDNONE") }, response: { content: JSON.stringify({ name: { value: "Globex", quote: "Globex Widget" }, price: { value: 99, quote: null } }) } });
  mock.addFixture({ match: { predicate: (r) => userText(r).includes("PAIDDOWN") }, response: { error: { message: "down", type: "server_error" }, status: 503 } });
  await mock.start();
  service = await testService(
    ["--payments", "on", "--x402", JSON.stringify(fx.config()), "--unsafe-allow-loopback-targets", "--llm-base-url", `${mock.url}/v1`, "--llm-model", "mock-model", "--llm-max-retries", "0"],
    { pollingIntervalMs: 20 },
  );
}, 60_000);

afterAll(async () => {
  service?.close();
  await mock?.stop();
  await site?.stop();
  await fx?.stop();
});

const buyer = () => fx.officialFetch(fx.buyer.key, undefined, ((input: RequestInfo | URL, init?: RequestInit) => service.handle(new Request(input, init), "127.0.0.1")) as typeof fetch);
const extract = (path: string) =>
  buyer()("http://127.0.0.1:8402/v1/web/extract", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: site.url(path), schema }) });
const balance = () => fx.token.balanceOf(fx.buyer.address);
const jwks = async () => (await (await service.request("/.well-known/jwks.json")).json()) as { keys: Json[] };

describe("web/extract paid (official buyer, anvil)", () => {
  it("settles web/read's 0.005 plus the 0.02 model surcharge when values are supported", async () => {
    const before = await balance();
    const res = await extract("/paidgood");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.data).toEqual({ name: "Acme Widget", price: 12.5 });
    expect(res.headers.get("payment-response")).not.toBeNull();
    expect(await balance()).toBe(before - 25_000n);
    const receipt = decodePaymentResponse(res.headers.get("payment-response")!);
    if (!receipt.ok) throw new Error(receipt.reason);
    expect(await verifyEvidence(body, await jwks())).toMatchObject({ valid: true, statements: [{ payment: { network: receipt.value.network, transaction: receipt.value.transaction } }] });
  }, 30_000);

  it("signs a paid web.extract job's result with its settlement, text and extraction", async () => {
    const res = await buyer()("http://127.0.0.1:8402/v1/jobs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ skill: "web.extract", url: site.url("/paidgood"), schema }) });
    expect(res.status).toBe(202);
    const id = ((await res.json()) as Json).job_id;
    const done = await until(async () => {
      const polled = await service.request(`/v1/jobs/${id}`);
      const body = (await polled.json()) as Json;
      return body.status === "completed" ? { body, header: polled.headers.get("payment-response") } : undefined;
    }, 15_000);
    const receipt = decodePaymentResponse(done.header ?? "");
    if (!receipt.ok) throw new Error(receipt.reason);
    expect(receipt.value.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await verifyEvidence(done.body.result, await jwks())).toMatchObject({
      valid: true,
      // Without --public-url the statement names the bind address (payments on binds 0.0.0.0), never the caller's Host.
      statements: [{ version: "web-extract/1", server: "http://0.0.0.0:8402", payment: { network: receipt.value.network, transaction: receipt.value.transaction } }],
    });
  }, 30_000);

  for (const [what, path, status, code] of [
    ["a page that cannot be read", "/missing", 422, "SOURCE_ERROR_STATUS"],
    ["a model error", "/paiddown", 502, "MODEL_ERROR"],
    ["an answer where no value is supported", "/paidnone", 422, "EXTRACT_NOTHING_SUPPORTED"],
  ] as const) {
    it(`settles nothing for ${what}`, async () => {
      const before = await balance();
      const res = await extract(path);
      expect(res.status).toBe(status);
      expect(((await res.json()) as Json).error).toBe(code);
      expect(res.headers.get("payment-response")).toBeNull();
      expect(await balance()).toBe(before);
    }, 30_000);
  }
});
