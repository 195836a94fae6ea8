/**
 * web/extract paid with the official x402 buyer on anvil: a supported answer settles web/read's
 * price plus the model surcharge; an unreadable page, a model error and an answer with no value
 * supported settle nothing. Balances are read from the chain.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { LLMock } from "@copilotkit/aimock";
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

describe("web/extract paid (official buyer, anvil)", () => {
  it("settles web/read's 0.005 plus the 0.02 model surcharge when values are supported", async () => {
    const before = await balance();
    const res = await extract("/paidgood");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.data).toEqual({ name: "Acme Widget", price: 12.5 });
    expect(res.headers.get("payment-response")).not.toBeNull();
    expect(await balance()).toBe(before - 25_000n);
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
