/**
 * Shared setup of the EVM payment tests: anvil + TestUsdc("USD Coin", "2"), a funded buyer, a
 * payTo account, a settler key, an in-memory store and the official @x402 buyer.
 */
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { openDatabase, type Database } from "../../src/store/db.ts";
import { receiptMigrations } from "../../src/store/receipts.ts";
import type { X402Config } from "../../src/x402/config.ts";
import { deployTestUsdc, startAnvil, type Anvil, type TestUsdc } from "../support/anvil.ts";

export const CHAIN_ID = 31337;
export const NETWORK = `eip155:${CHAIN_ID}`;
export const USDC = 1_000_000n;

export interface EvmFixture {
  readonly anvil: Anvil;
  readonly token: TestUsdc;
  readonly buyer: { key: Hex; address: `0x${string}` };
  readonly payTo: `0x${string}`;
  readonly settler: { key: Hex; address: `0x${string}` };
  config(overrides?: Partial<X402Config>, network?: Record<string, unknown>): X402Config;
  /** The official buyer: @x402/fetch + @x402/evm exact, allowed to spend our local token. */
  officialFetch(key?: Hex, maxAtomic?: string): typeof fetch;
  stop(): Promise<void>;
}

export function freshDatabase(): Database {
  return openDatabase({ path: ":memory:", migrations: receiptMigrations });
}

export async function startEvmFixture(): Promise<EvmFixture> {
  const anvil = await startAnvil({ chainId: CHAIN_ID });
  const token = await deployTestUsdc(anvil, { name: "USD Coin", version: "2" });
  const buyer = await anvil.fundedAccount();
  const settler = await anvil.fundedAccount();
  const payTo = privateKeyToAccount(generatePrivateKey()).address;
  await token.mint(buyer.address, 10n * USDC);
  return {
    anvil,
    token,
    buyer,
    payTo,
    settler,
    config(overrides = {}, network = {}) {
      return {
        maxTimeoutSeconds: 300,
        settlementMarginSeconds: 30,
        confirmationTimeoutMs: 10_000,
        staleReservationSeconds: 900,
        ...overrides,
        networks: [
          {
            family: "evm",
            network: NETWORK,
            name: "anvil",
            payTo,
            asset: token.address,
            eip712: { name: "USD Coin", version: "2" },
            settlement: "local",
            rpcUrl: anvil.url,
            settlerPrivateKey: settler.key,
            ...network,
          } as X402Config["networks"][number],
        ],
      };
    },
    officialFetch(key = buyer.key, maxAtomic) {
      const client = new x402Client();
      registerExactEvmScheme(client, { signer: privateKeyToAccount(key), networks: [NETWORK] });
      client.setSpendControls({ allowedAssets: [{ network: NETWORK, asset: token.address, ...(maxAtomic ? { maxAmountPerPayment: maxAtomic } : {}) }] });
      return wrapFetchWithPayment(fetch, client) as typeof fetch;
    },
    stop: () => anvil.stop(),
  };
}
