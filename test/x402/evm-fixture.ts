/**
 * Shared setup of the EVM payment tests: anvil + TestUsdc("USD Coin", "2"), a funded buyer, a
 * payTo account, a settler key, an in-memory store and the official @x402 buyer.
 */
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { toHex, type Hex } from "viem";
import { randomBytes } from "node:crypto";
import { transferWithAuthorizationTypes } from "../../src/x402/evm/abi.ts";
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "../../src/x402/messages.ts";
import { catchPayment } from "../support/payment-capture.ts";
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
  officialFetch(key?: Hex, maxAtomic?: string, baseFetch?: typeof fetch): typeof fetch;
  /**
   * Runs the official buyer against `url` but keeps the PAYMENT-SIGNATURE it would send instead of
   * sending it. `editRequired` may alter the 402 the buyer sees (to make it sign something odd).
   */
  capturePayment(url: string, body: unknown, options?: { key?: Hex; editRequired?: (required: PaymentRequired) => void }): Promise<string>;
  /** An EIP-3009 authorization signed by `key` with any fields, as an x402 payload for `accepted`. */
  signedPayment(accepted: PaymentRequirements, fields: Partial<{ from: `0x${string}`; to: `0x${string}`; value: string; validAfter: string; validBefore: string; nonce: Hex }>, key?: Hex): Promise<PaymentPayload>;
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
  function officialFetch(key: Hex = buyer.key, maxAtomic?: string, baseFetch: typeof fetch = fetch): typeof fetch {
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(key), networks: [NETWORK] });
    client.setSpendControls({ allowedAssets: [{ network: NETWORK, asset: token.address, ...(maxAtomic ? { maxAmountPerPayment: maxAtomic } : {}) }] });
    return wrapFetchWithPayment(baseFetch, client) as typeof fetch;
  }
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
    officialFetch,
    async capturePayment(url, body, options = {}) {
      const catcher = catchPayment(options.editRequired);
      await officialFetch(options.key ?? buyer.key, undefined, catcher.fetch)(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return catcher.captured();
    },
    async signedPayment(accepted, fields, key = buyer.key) {
      const now = Math.floor(Date.now() / 1000);
      const authorization = {
        from: fields.from ?? buyer.address,
        to: fields.to ?? (accepted.payTo as `0x${string}`),
        value: fields.value ?? accepted.amount,
        validAfter: fields.validAfter ?? "0",
        validBefore: fields.validBefore ?? String(now + 300),
        nonce: fields.nonce ?? toHex(randomBytes(32)),
      };
      const signature = await privateKeyToAccount(key).signTypedData({
        domain: { name: "USD Coin", version: "2", chainId: CHAIN_ID, verifyingContract: token.address },
        types: transferWithAuthorizationTypes,
        primaryType: "TransferWithAuthorization",
        message: {
          ...authorization,
          value: BigInt(authorization.value),
          validAfter: BigInt(authorization.validAfter),
          validBefore: BigInt(authorization.validBefore),
        },
      });
      return { x402Version: 2, accepted, payload: { signature, authorization } };
    },
    stop: () => anvil.stop(),
  };
}
