/**
 * The stage the buyer, MCP, transport-table and A2A tests set up alike: anvil with the test USDC
 * (the EVM fixture), the whole service with payments on settling there, and the official x402
 * buyer for a key. `withBuyerPage` adds what `tollbooth buy` needs: a site serving one page and
 * the buyer's key in a file only its owner may read. `startAlgorandStage` is the same service
 * settling on Algorand through the loopback algod, with a funded buyer, payee and fee payer.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import type { RunningService } from "../../src/boot.ts";
import type algosdk from "algosdk";
import { type EvmFixture, NETWORK, startEvmFixture, USDC } from "../x402/evm-fixture.ts";
import { ALGO, algorandX402, type FakeAlgod, newAlgodAccount, startFakeAlgod } from "./algod.ts";
import { startPaidServiceWith } from "./paid-service.ts";
import { type SiteServer, startSiteServer } from "./site-server.ts";

export interface PaidStage {
  readonly fx: EvmFixture;
  readonly service: RunningService;
  /** Base URL without the trailing slash. */
  readonly base: string;
  /** The official x402 client for `key` (the funded buyer's by default), paying the fixture's USDC on its network. */
  officialBuyer(key?: `0x${string}`): x402Client;
  /** An MCP client connected to the server's /mcp (closed by stop). */
  mcpClient(name: string): Promise<Client>;
  /** The refund account (with `refundAccount`): delivery refunds are paid from it. */
  readonly refunder?: { readonly key: `0x${string}`; readonly address: `0x${string}` };
  stop(): Promise<void>;
}

export interface PaidStageOptions {
  /** A plugin folder (test/support/plugin-files.ts pluginFolder) served beside the built-in plugins. */
  readonly plugins?: string;
  /** Further server flags. */
  readonly args?: readonly string[];
  /** --unsafe-allow-loopback-targets (default true: the web endpoints read the tests' loopback sites). */
  readonly loopbackTargets?: boolean;
  /** A refund account holding USDC, its key configured on the network (refunds are paid from it). */
  readonly refundAccount?: boolean;
}

export async function startPaidStage(options: PaidStageOptions = {}): Promise<PaidStage> {
  const fx = await startEvmFixture();
  const args = [...(options.plugins ? ["--plugins", options.plugins] : []), ...(options.args ?? [])];
  const refunder = options.refundAccount ? await fx.anvil.fundedAccount() : undefined;
  if (refunder) await fx.token.mint(refunder.address, USDC);
  const x402 = fx.config({}, refunder ? { refundPrivateKey: refunder.key } : {});
  const { service, base } = await startPaidServiceWith(x402, ":memory:", { args, loopbackTargets: options.loopbackTargets ?? true });
  const mcpClients: Client[] = [];
  return {
    fx,
    ...(refunder ? { refunder } : {}),
    service,
    base,
    officialBuyer(key = fx.buyer.key) {
      const client = new x402Client();
      registerExactEvmScheme(client, { signer: privateKeyToAccount(key), networks: [NETWORK] });
      client.setSpendControls({ allowedAssets: [{ network: NETWORK, asset: fx.token.address }] });
      return client;
    },
    async mcpClient(name) {
      const client = new Client({ name, version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
      mcpClients.push(client);
      return client;
    },
    async stop() {
      await Promise.all(mcpClients.map((client) => client.close()));
      await service.close();
      await fx.stop();
    },
  };
}

export interface BuyerStage extends PaidStage {
  readonly site: SiteServer;
  /** A folder of the test's own, removed at stop. */
  readonly tmp: string;
  /** The funded buyer's key, mode 0600. */
  readonly keyFile: string;
}

/** A site serving `html` at /page beside `stage`, and a temporary folder named after `prefix`; stop ends all three. */
function withPage<S extends { stop(): Promise<void> }>(stage: S, prefix: string, html: string): S & { readonly site: SiteServer; readonly tmp: string } {
  const site = startSiteServer();
  site.set("/page", html);
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  return {
    ...stage,
    site,
    tmp,
    async stop() {
      await stage.stop();
      await site.stop();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** The paid stage, a site serving `html` at /page, and the buyer's key file in a temporary folder named after `prefix`. */
export async function withBuyerPage(prefix: string, html: string): Promise<BuyerStage> {
  const stage = withPage(await startPaidStage(), prefix, html);
  const keyFile = join(stage.tmp, "buyer.key");
  writeFileSync(keyFile, `${stage.fx.buyer.key}\n`, { mode: 0o600 });
  return { ...stage, keyFile };
}

export interface AlgorandStage {
  readonly algod: FakeAlgod;
  /** Holds 1 USDC; payTo receives the payments; feePayer (not opted in to USDC) pays the group's fees. */
  readonly buyer: algosdk.Account;
  readonly payTo: algosdk.Account;
  readonly feePayer: algosdk.Account;
  readonly service: RunningService;
  /** Base URL without the trailing slash. */
  readonly base: string;
  stop(): Promise<void>;
}

/** The whole service with payments on Algorand mainnet's USDC, settled in process through the loopback algod. */
export async function startAlgorandStage(): Promise<AlgorandStage> {
  const algod = startFakeAlgod();
  const account = (opts: { usdc?: bigint; optIn?: boolean } = {}) => newAlgodAccount(algod, { algo: 10n * ALGO, ...opts });
  const buyer = account({ usdc: 1_000_000n });
  const payTo = account();
  const feePayer = account({ optIn: false });
  const { service, base } = await startPaidServiceWith(algorandX402(algod, { payTo, feePayer }));
  return {
    algod,
    buyer,
    payTo,
    feePayer,
    service,
    base,
    async stop() {
      await service.close();
      await algod.stop();
    },
  };
}

/** The Algorand stage with a site serving `html` at /page and a temporary folder named after `prefix`. */
export async function withAlgorandBuyerPage(prefix: string, html: string): Promise<AlgorandStage & { readonly site: SiteServer; readonly tmp: string }> {
  return withPage(await startAlgorandStage(), prefix, html);
}

/**
 * A fetch for a buyer that counts its requests and those carrying a payment: the PAYMENT-SIGNATURE
 * header (HTTP) or `_meta["x402/payment"]` in a JSON-RPC call (MCP).
 */
export function countingFetch(): { f: typeof fetch; seen: { signatures: number; requests: number } } {
  const seen = { signatures: 0, requests: 0 };
  const carriesMcpPayment = (body: string) => {
    try {
      return (JSON.parse(body) as { params?: { _meta?: Record<string, unknown> } }).params?._meta?.["x402/payment"] !== undefined;
    } catch {
      return false;
    }
  };
  const f = (async (input: RequestInfo | URL, init?: RequestInit) => {
    seen.requests++;
    if (new Headers(init?.headers).has("payment-signature")) seen.signatures++;
    else if (typeof init?.body === "string" && carriesMcpPayment(init.body)) seen.signatures++;
    return fetch(input, init);
  }) as typeof fetch;
  return { f, seen };
}
