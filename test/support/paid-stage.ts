/**
 * The stage the buyer, MCP, transport-table (and A2A) tests set up alike: anvil with the test USDC
 * (the EVM fixture), the whole service with payments on settling there, and the official x402
 * buyer for a key. `withBuyerPage` adds what `tollbooth buy` needs: a site serving one page and
 * the buyer's key in a file only its owner may read.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import type { RunningService } from "../../src/boot.ts";
import { type EvmFixture, NETWORK, startEvmFixture } from "../x402/evm-fixture.ts";
import { startPaidServiceWith } from "./paid-service.ts";
import { type SiteServer, startSiteServer } from "./site-server.ts";

export interface PaidStage {
  readonly fx: EvmFixture;
  readonly service: RunningService;
  /** Base URL without the trailing slash. */
  readonly base: string;
  /** The official x402 client for `key` (the funded buyer's by default), paying the fixture's USDC on its network. */
  officialBuyer(key?: `0x${string}`): x402Client;
  stop(): Promise<void>;
}

export interface PaidStageOptions {
  /** A plugin folder (test/support/plugin-files.ts pluginFolder) served beside the built-in plugins. */
  readonly plugins?: string;
  /** Further server flags. */
  readonly args?: readonly string[];
  /** --unsafe-allow-loopback-targets (default true: the web endpoints read the tests' loopback sites). */
  readonly loopbackTargets?: boolean;
}

export async function startPaidStage(options: PaidStageOptions = {}): Promise<PaidStage> {
  const fx = await startEvmFixture();
  const args = [...(options.plugins ? ["--plugins", options.plugins] : []), ...(options.args ?? [])];
  const { service, base } = await startPaidServiceWith(fx.config(), ":memory:", { args, loopbackTargets: options.loopbackTargets ?? true });
  return {
    fx,
    service,
    base,
    officialBuyer(key = fx.buyer.key) {
      const client = new x402Client();
      registerExactEvmScheme(client, { signer: privateKeyToAccount(key), networks: [NETWORK] });
      client.setSpendControls({ allowedAssets: [{ network: NETWORK, asset: fx.token.address }] });
      return client;
    },
    async stop() {
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

/** The paid stage, a site serving `html` at /page, and the buyer's key file in a temporary folder named after `prefix`. */
export async function withBuyerPage(prefix: string, html: string): Promise<BuyerStage> {
  const stage = await startPaidStage();
  const site = startSiteServer();
  site.set("/page", html);
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  const keyFile = join(tmp, "buyer.key");
  writeFileSync(keyFile, `${stage.fx.buyer.key}\n`, { mode: 0o600 });
  return {
    ...stage,
    site,
    tmp,
    keyFile,
    async stop() {
      await stage.stop();
      await site.stop();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
