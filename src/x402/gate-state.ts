/**
 * @module x402/gate-state — what every payment step reads: the configuration, the clock, the
 * receipts, one rail per network, the settlements running here and the held replay answers.
 * Built once per server; the steps (authorize.ts, settle.ts, payment-records.ts) are plain
 * functions over it.
 */
import { createReceiptStore, type ReceiptStore } from "../store/receipts.ts";
import type { Database } from "../store/db.ts";
import { type ConfiguredNetwork, resolveNetworks, type X402Config } from "./config.ts";
import { createReplayCache, type ReplayCache, type ReplayCacheOptions } from "./payment-identifier.ts";
import { createRails, type Rail } from "./families.ts";
import type { OfferReceiptSigner } from "./offer-receipt.ts";

export interface GateState {
  readonly config: X402Config;
  readonly now: () => Date;
  readonly store: ReceiptStore;
  readonly networks: readonly ConfiguredNetwork[];
  readonly rails: ReadonlyMap<string, Rail>;
  /** Receipts whose settle call is running in this process; reconcile leaves them alone. */
  readonly settling: Set<string>;
  readonly replays: ReplayCache;
  /** Signs offers and receipts (the offer-receipt extension); absent: they go out unsigned. */
  readonly offerReceipts?: OfferReceiptSigner;
}

export interface GateStateDeps {
  readonly config: X402Config;
  /** The receipts to keep payments in: a store of either engine, or a SQLite database to open one on. */
  readonly receipts?: ReceiptStore;
  readonly db?: Database;
  readonly now?: () => Date;
  /** Used for remote facilitators (tests inject a loopback-only fetch). */
  readonly fetch?: typeof fetch;
  /** Receipt polling interval for local EVM settlement (default 1 s; tests use less). */
  readonly pollingIntervalMs?: number;
  /** Held results for payment-identifier retries (TTL and byte budget; the clock is `now`). */
  readonly replay?: Omit<ReplayCacheOptions, "now">;
  readonly offerReceipts?: OfferReceiptSigner;
}

function receiptsOf(deps: GateStateDeps): ReceiptStore {
  if (deps.receipts) return deps.receipts;
  if (!deps.db) throw new Error("the payment gate needs a receipt store or a database");
  return createReceiptStore(deps.db);
}

export function createGateState(deps: GateStateDeps): GateState {
  const { config } = deps;
  const now = deps.now ?? (() => new Date());
  const networks = resolveNetworks(config);
  return {
    config,
    now,
    store: receiptsOf(deps),
    networks,
    rails: createRails(networks, { config, now, fetch: deps.fetch, pollingIntervalMs: deps.pollingIntervalMs }),
    settling: new Set(),
    replays: createReplayCache({ ...deps.replay, now: () => now().getTime() }),
    ...(deps.offerReceipts ? { offerReceipts: deps.offerReceipts } : {}),
  };
}
