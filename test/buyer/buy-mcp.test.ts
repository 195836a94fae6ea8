/**
 * `tollbooth buy --mcp URL TOOL` with the official MCP client and the official x402 client against
 * a Tollbooth's POST /mcp with payments on, settled on a real anvil: it pays the web_read tool once
 * (the money moves once, one signature), prints the receipt from `_meta["x402/payment-response"]`
 * and verifies the signed evidence; it refuses above --max-usd and at the daily cap before any
 * signature; a tool error that is no payment request is reported, not paid; and an MCP seller we
 * write (the official SDK server) whose offer lacks a field, or that asks again after the payment,
 * gets no signature, or no second one.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { buyMcp, type BuyMcpOptions } from "../../src/buyer/buy-mcp.ts";
import { BuyerRefusal } from "../../src/buyer/key-file.ts";
import { repoRoot } from "../support/binary-build.ts";
import { type BuyerStage, countingFetch, withBuyerPage } from "../support/paid-stage.ts";
import type { SiteServer } from "../support/site-server.ts";
import { type EvmFixture, NETWORK } from "../x402/evm-fixture.ts";

let stage: BuyerStage;
let fx: EvmFixture;
let site: SiteServer;
let base: string;
let tmp: string;
let keyFile: string;

beforeAll(async () => {
  stage = await withBuyerPage("tb-buy-mcp-", "<html><head><title>Bought</title></head><body><main><h1>Bought over MCP</h1><p>Evidence worth paying for, over MCP this time.</p></main></body></html>");
  ({ fx, site, base, tmp, keyFile } = stage);
}, 60_000);

afterAll(async () => {
  await stage?.stop();
});

const spendLogPath = () => join(tmp, `spend-${Math.random().toString(36).slice(2)}.jsonl`);

const options = (over: Partial<BuyMcpOptions> = {}): BuyMcpOptions => ({
  url: `${base}/mcp`,
  tool: "web_read",
  json: JSON.stringify({ url: site.url("/page") }),
  keyFile,
  network: NETWORK,
  asset: fx.token.address,
  maxUsd: 0.05,
  dailyCapUsd: 1,
  spendLog: spendLogPath(),
  ...over,
});

const balances = async () => ({ buyer: await fx.token.balanceOf(fx.buyer.address), payTo: await fx.token.balanceOf(fx.payTo) });

describe("tollbooth buy --mcp pays", () => {
  it("pays the tool once with the official clients, keeps the x402/payment-response receipt, and verifies the signed evidence", async () => {
    const before = await balances();
    const { f, seen } = countingFetch();
    const spendLog = spendLogPath();
    const outcome = await buyMcp(options({ fetch: f, spendLog }));
    expect(outcome.isError).toBe(false);
    expect(outcome.paid).toEqual({ usd: 0.005, network: NETWORK, payTo: fx.payTo });
    const transaction = outcome.receipt?.transaction ?? "";
    expect(transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(outcome.receipt).toEqual({ success: true, network: NETWORK, transaction, payer: fx.buyer.address });
    expect(outcome.evidence).toMatchObject({ valid: true });
    expect(outcome.evidence!.detail).toContain(`naming transaction ${transaction}`);
    expect((outcome.body as { text: string }).text).toContain("Evidence worth paying for, over MCP");
    expect(seen.signatures).toBe(1);
    const after = await balances();
    expect(after.buyer).toBe(before.buyer - 5000n);
    expect(after.payTo).toBe(before.payTo + 5000n);
    const log = readFileSync(spendLog, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(log).toMatchObject([
      { event: "signed", url: `${base}/mcp`, tool: "web_read", usd: 0.005, network: NETWORK, pay_to: fx.payTo, amount: "5000" },
      { event: "settled", tool: "web_read", transaction, is_error: false },
    ]);
  });

  it("works as the command: exit 0 and one JSON document with the receipt and the evidence check", async () => {
    const before = await balances();
    const proc = Bun.spawn(
      [process.execPath, join(repoRoot, "src/main.ts"), "buy", "--mcp", `${base}/mcp`, "web_read", "--json", JSON.stringify({ url: site.url("/page") }), "--network", NETWORK, "--asset", fx.token.address, "--key-file", keyFile, "--spend-log", spendLogPath()],
      { stdout: "pipe", stderr: "pipe" },
    );
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ tool: "web_read", is_error: false, paid: { usd: 0.005 }, receipt: { success: true }, evidence: { valid: true }, result: { ok: true } });
    expect((await balances()).buyer).toBe(before.buyer - 5000n);
  });

  it("a tool error that is no payment request (a free tool's not-found) is reported and nothing is signed", async () => {
    const { f, seen } = countingFetch();
    const spendLog = spendLogPath();
    const outcome = await buyMcp(options({ tool: "job_status", json: JSON.stringify({ job_id: `job_${"0".repeat(32)}` }), fetch: f, spendLog }));
    expect(outcome.isError).toBe(true);
    expect(outcome.body).toMatchObject({ ok: false });
    expect(outcome.paid).toBeUndefined();
    expect(seen.signatures).toBe(0);
    expect(existsSync(spendLog)).toBe(false);
  });
});

describe("tollbooth buy --mcp refuses before any signature", () => {
  const refusedWithoutSignature = async (over: Partial<BuyMcpOptions>, message: RegExp) => {
    const before = await balances();
    const { f, seen } = countingFetch();
    const spendLog = spendLogPath();
    const attempt = buyMcp(options({ fetch: f, spendLog, ...over }));
    expect(attempt).rejects.toThrow(BuyerRefusal);
    await attempt.catch((error: Error) => expect(error.message).toMatch(message));
    expect(seen.signatures).toBe(0);
    expect(existsSync(spendLog)).toBe(false);
    expect(await balances()).toEqual(before);
    return seen;
  };

  it("a price above --max-usd", async () => {
    await refusedWithoutSignature({ maxUsd: 0.004 }, /price is \$0\.005 and --max-usd is \$0\.004/);
  });

  it("an asset it was not told to accept, and a key file others may read (before any request)", async () => {
    await refusedWithoutSignature({ asset: "0x000000000000000000000000000000000000dEaD" }, /asks for asset .* not 0x0000/);
    const open = join(tmp, "open.key");
    writeFileSync(open, fx.buyer.key, { mode: 0o644 });
    expect((await refusedWithoutSignature({ keyFile: open }, /may be read by group or others/)).requests).toBe(0);
  });

  it("stops at the daily cap, counting what the spend log holds as signed today", async () => {
    const spendLog = spendLogPath();
    const { f, seen } = countingFetch();
    expect((await buyMcp(options({ fetch: f, spendLog, dailyCapUsd: 0.008 }))).receipt?.success).toBe(true);
    const attempt = buyMcp(options({ fetch: f, spendLog, dailyCapUsd: 0.008 }));
    expect(attempt).rejects.toThrow(/over the daily cap of \$0\.008/);
    await attempt.catch(() => undefined);
    expect(seen.signatures).toBe(1);
  });

  it("the command prints the refusal and exits 1; with --mcp it needs URL and TOOL", async () => {
    const run = async (...args: string[]) => {
      const proc = Bun.spawn([process.execPath, join(repoRoot, "src/main.ts"), "buy", ...args], { stdout: "pipe", stderr: "pipe" });
      const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      return { out, err, code };
    };
    const before = await balances();
    const refused = await run("--mcp", `${base}/mcp`, "web_read", "--json", JSON.stringify({ url: site.url("/page") }), "--max-usd", "0.001", "--network", NETWORK, "--asset", fx.token.address, "--key-file", keyFile, "--spend-log", spendLogPath());
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("refused: the price is $0.005 and --max-usd is $0.001");
    expect(refused.out).toBe("");
    expect(await balances()).toEqual(before);
    expect((await run("--mcp", `${base}/mcp`)).code).toBe(2);
    expect((await run(`${base}/v1/web/read`, "web_read")).code).toBe(2);
  });
});

describe("MCP sellers that misbehave", () => {
  const offer = () => ({ scheme: "exact", network: NETWORK, amount: "5000", asset: fx.token.address, payTo: fx.payTo, maxTimeoutSeconds: 300, extra: { name: "USD Coin", version: "2" } });
  const offerResult = (accepts: unknown[]): CallToolResult => {
    const required = { x402Version: 2, resource: { url: "http://127.0.0.1/mcp?tool=priced", description: "x", mimeType: "application/json" }, accepts };
    return { isError: true, structuredContent: required, content: [{ type: "text", text: JSON.stringify(required) }] };
  };
  /** A stateless MCP server with one tool, `priced`, that answers `unpaid` without a payment and `paid` with one. */
  function mcpSeller(unpaid: () => CallToolResult, paid: () => CallToolResult) {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) => {
        const mcp = new Server({ name: "misbehaving", version: "1.0.0" }, { capabilities: { tools: {} } });
        mcp.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: "priced", inputSchema: { type: "object" as const } }] }));
        mcp.setRequestHandler(CallToolRequestSchema, ({ params }) => (params._meta?.["x402/payment"] === undefined ? unpaid() : paid()));
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await mcp.connect(transport);
        return transport.handleRequest(request);
      },
    });
    return { url: `http://127.0.0.1:${server.port}/mcp`, stop: () => server.stop(true) };
  }

  it("an offer without the fields the client needs is refused unsigned", async () => {
    const { payTo: _dropped, ...noPayTo } = offer();
    const s = mcpSeller(() => offerResult([noPayTo]), () => ({ content: [{ type: "text", text: "should never be reached" }] }));
    const { f, seen } = countingFetch();
    await expect(buyMcp(options({ url: s.url, tool: "priced", json: "{}", fetch: f }))).rejects.toThrow(/lacks payTo/);
    expect(seen.signatures).toBe(0);
    s.stop();
  });

  it("a seller that asks again after the payment (its price changed) gets one signature, for the previewed price, and no second", async () => {
    const s = mcpSeller(() => offerResult([offer()]), () => offerResult([{ ...offer(), amount: "9000" }]));
    const { f, seen } = countingFetch();
    const spendLog = spendLogPath();
    const outcome = await buyMcp(options({ url: s.url, tool: "priced", json: "{}", fetch: f, spendLog }));
    expect(outcome).toMatchObject({ isError: true, askedAgain: true, paid: { usd: 0.005 } });
    expect(outcome.receipt).toBeUndefined();
    expect(seen.signatures).toBe(1);
    expect(readFileSync(spendLog, "utf8")).toContain('"event":"not_settled"');
    s.stop();
  });
});
