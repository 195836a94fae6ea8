/**
 * web.search sold over HTTP, MCP and A2A from the one registry, paid by the official x402 client on
 * anvil, against a real searx: the offer states the search plus a read per result, the money moves
 * once, the reads come back signed; a search that finds nothing is refused and not charged.
 * @see issue 42
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Role } from "@a2a-js/sdk";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type x402Client, x402HTTPClient } from "@x402/core/client";
import type { PaymentPayload, PaymentRequired } from "../../src/x402/messages.ts";
import { type PaidStage, startPaidStage } from "../support/paid-stage.ts";
import { type Searx, searxMissing, startSearx } from "../support/searx.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { NETWORK } from "../x402/evm-fixture.ts";

const missing = searxMissing();
if (missing) console.warn(`\n*** ${missing} ***\n`);

describe.skipIf(missing !== undefined)("paid web.search", () => {
  let searx: Searx;
  let site: SiteServer;
  let stage: PaidStage;
  let buyer: x402Client;
  let http: x402HTTPClient;
  let mcp: Client;

  beforeAll(async () => {
    searx = await startSearx();
    site = startSiteServer();
    for (const name of ["wren", "robin"]) site.set(`/${name}`, `<!doctype html><html><head><title>${name}</title></head><body><main><h1>${name}</h1><p>The ${name} sings at dawn in the hedge by the lane.</p></main></body></html>`);
    searx.answer("songbirds", { alpha: [{ url: site.url("/wren"), title: "wren", content: "a small bird" }], beta: [{ url: site.url("/robin"), title: "robin", content: "a red breast" }] });
    stage = await startPaidStage({ args: ["--search-url", searx.url, "--rate-limit-per-min", "10000"] });
    buyer = stage.officialBuyer();
    http = new x402HTTPClient(buyer);
    mcp = new Client({ name: "web-search-paid-test", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${stage.base}/mcp`)));
  }, 90_000);
  afterAll(async () => {
    await mcp?.close();
    await stage?.stop();
    await site?.stop();
    await searx?.stop();
  });

  const balances = async () => ({ buyer: await stage.fx.token.balanceOf(stage.fx.buyer.address), payTo: await stage.fx.token.balanceOf(stage.fx.payTo) });
  const sign = async (offer: PaymentRequired) => (await buyer.createPaymentPayload(offer as never)) as unknown as PaymentPayload;
  const post = (input: unknown, headers: Record<string, string> = {}) =>
    fetch(`${stage.base}/v1/web/search`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(input) });
  const input = { query: "songbirds", limit: 2, read: true };

  it("over HTTP: offers the search plus a read per result, is paid once, and returns both results read and signed", async () => {
    const unpaid = await post(input);
    expect(unpaid.status).toBe(402);
    const offer = http.getPaymentRequiredResponse((name) => unpaid.headers.get(name), await unpaid.json()) as unknown as PaymentRequired;
    // $0.005 for the search + 2 × $0.003 for the reads, in USDC's 6 decimals.
    expect(offer.accepts[0]).toMatchObject({ scheme: "exact", network: NETWORK, amount: "11000" });
    const before = await balances();
    const paid = await post(input, http.encodePaymentSignatureHeader((await sign(offer)) as never));
    expect(paid.status).toBe(200);
    expect(paid.headers.get("payment-response")).not.toBeNull();
    const body = (await paid.json()) as { results: { url: string; read: { ok: boolean; attestation?: unknown } }[]; reads: unknown };
    expect(body.reads).toEqual({ succeeded: 2, failed: 0 });
    expect(body.results.map((r) => r.url).sort()).toEqual([site.url("/robin"), site.url("/wren")]);
    expect(body.results.every((r) => r.read.ok && r.read.attestation !== undefined)).toBe(true);
    const after = await balances();
    expect(after.buyer).toBe(before.buyer - 11_000n);
    expect(after.payTo).toBe(before.payTo + 11_000n);
  });

  it("over HTTP: a search that finds nothing is 404 SEARCH_NO_RESULTS and charges nothing", async () => {
    const nothing = { query: "no-such-bird" };
    const unpaid = await post(nothing);
    const offer = http.getPaymentRequiredResponse((name) => unpaid.headers.get(name), await unpaid.json()) as unknown as PaymentRequired;
    const before = await balances();
    const refused = await post(nothing, http.encodePaymentSignatureHeader((await sign(offer)) as never));
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { error: string }).error).toBe("SEARCH_NO_RESULTS");
    expect(refused.headers.get("payment-response")).toBeNull();
    expect(await balances()).toEqual(before);
  });

  it("over MCP: the web_search tool answers with the offer, then with the results once paid", async () => {
    const tools = await mcp.listTools();
    expect(tools.tools.map((t) => t.name)).toContain("web_search");
    const call = (meta?: Record<string, unknown>) => mcp.callTool({ name: "web_search", arguments: input, ...(meta ? { _meta: meta } : {}) }) as Promise<CallToolResult>;
    const unpaid = await call();
    expect(unpaid.isError).toBe(true);
    const offer = unpaid.structuredContent as unknown as PaymentRequired;
    expect(offer.accepts[0]!.amount).toBe("11000");
    const before = await balances();
    const paid = await call({ "x402/payment": await sign(offer) });
    expect(paid.isError).toBeFalsy();
    expect((paid._meta as Record<string, { success?: boolean }>)["x402/payment-response"]?.success).toBe(true);
    expect(JSON.stringify(paid.content)).toContain(site.url("/wren"));
    expect((await balances()).buyer).toBe(before.buyer - 11_000n);
  });

  it("over A2A: the web.search skill asks for payment on its task, then completes it with the results", async () => {
    const a2a = new LegacyJsonRpcTransport({ endpoint: `${stage.base}/a2a` });
    type Task = Awaited<ReturnType<LegacyJsonRpcTransport["getTask"]>>;
    const send = async (content: { $case: "data"; value: Record<string, unknown> } | { $case: "text"; value: string }, taskId = "", metadata?: Record<string, unknown>) =>
      (await a2a.sendMessage({
        tenant: "",
        message: { messageId: crypto.randomUUID(), contextId: "", taskId, role: Role.ROLE_USER, parts: [{ content, metadata: undefined, filename: "", mediaType: "" }], metadata, extensions: [], referenceTaskIds: [] },
        configuration: undefined,
        metadata: undefined,
      })) as Task;
    const metaOf = (task: Task) => (task.status?.message?.metadata ?? {}) as Record<string, unknown>;
    const task = await send({ $case: "data", value: { skill: "web.search", ...input } });
    expect(metaOf(task)["x402.payment.status"]).toBe("payment-required");
    const offer = metaOf(task)["x402.payment.required"] as PaymentRequired;
    expect(offer.accepts[0]!.amount).toBe("11000");
    const before = await balances();
    const done = await send({ $case: "text", value: "payment" }, task.id, { "x402.payment.status": "payment-submitted", "x402.payment.payload": await sign(offer) });
    expect(metaOf(done)["x402.payment.status"]).toBe("payment-completed");
    expect(JSON.stringify(done.artifacts)).toContain(site.url("/robin"));
    expect((await balances()).buyer).toBe(before.buyer - 11_000n);
  });
});
