/**
 * @module x402/family — what a payment family (one CAIP-2 namespace: eip155, algorand, …) gives the
 * rest of Tollbooth, so that a network is one folder plus configuration. A family folder exports a
 * `family: PaymentFamily` from its `family.ts`; the operator names the folder in `x402.families` and
 * its networks in `x402.networks` with `"family": <its name>`. Nothing outside the folder changes:
 * prices, 402 offers, capabilities and the agent card all read the configured networks.
 * EVM and AVM are built in: evm/family.ts and avm/family.ts give the same descriptor (families.ts
 * builds every rail from one), their entries are resolved by their own configuration part
 * (evm/config.ts, avm/config.ts: the descriptor's `config`), and refund-senders.ts loads their
 * refund senders lazily.
 */
import type { IdentifyResult, SchemeMechanism } from "./facilitator.ts";
import type { TSchema } from "@sinclair/typebox";
import type { PaymentPayload } from "./messages.ts";
import type { RefundSender } from "./refund.ts";

/** What a family's resolution reads beside its own entry: the default remote facilitator. */
export interface SharedNetworkSettings {
  readonly facilitator?: PaymentNetwork["facilitator"];
}

/** A family's configuration part: its `x402.networks[]` entry schema and the resolution of one entry (throws X402ConfigError, network-config.ts). */
export interface FamilyConfig<N extends PaymentNetwork = PaymentNetwork> {
  /** What `x402.networks[].family` says. */
  readonly name: string;
  readonly entrySchema: TSchema;
  resolve(entry: Readonly<Record<string, unknown>>, shared: SharedNetworkSettings): N;
}

/** What every configured network is, whatever its family: enough to price, offer and publish it. */
export interface PaymentNetwork {
  readonly family: string;
  /** CAIP-2 id. */
  readonly network: string;
  /** Short name (base, algorand-testnet); the id when it has none. */
  readonly name: string;
  readonly payTo: string;
  readonly asset: string;
  readonly decimals: number;
  readonly settlement: "local" | "remote";
  readonly facilitator: { readonly url: string; readonly headers?: Record<string, string>; readonly timeoutMs?: number } | undefined;
  /** The price-table columns this network charges by, first found wins (plugin/price.ts priceIn): name, id, the family's columns. */
  readonly priceColumns: readonly string[];
}

/**
 * A network of a family loaded from a folder, with its configuration entry as written (the family
 * reads its own fields). `family` is the literal "loaded" (its name is `familyName`) so that
 * `network.family === "evm"` still narrows a configured network to the built-in EVM one.
 */
export interface FamilyNetwork extends PaymentNetwork {
  readonly family: "loaded";
  readonly familyName: string;
  readonly settings: Readonly<Record<string, unknown>>;
}

export interface MechanismContext {
  readonly now: () => Date;
  readonly fetch: typeof fetch | undefined;
  readonly pollingIntervalMs: number | undefined;
  readonly settlementMarginSeconds: number;
  readonly confirmationTimeoutMs: number;
}

/** One known network of a family: configuration may name it by `name` instead of giving id and asset. */
export interface KnownFamilyNetwork {
  readonly network: string;
  readonly name: string;
  readonly asset: string;
  readonly decimals: number;
}

/** What a family gives; `N` is the network type its code reads (a loaded family reads `FamilyNetwork.settings`; evm/ and avm/ their resolved networks). */
export interface PaymentFamily<N extends PaymentNetwork = FamilyNetwork> {
  /** What `x402.networks[].family` says (lowercase; evm and avm are taken). */
  readonly name: string;
  /** CAIP-2 namespace its network ids start with (`<namespace>:`). */
  readonly namespace: string;
  readonly knownNetworks: readonly KnownFamilyNetwork[];
  /** The price-table columns its networks charge by when a table has no column of the network's own: its own first, then a built-in one (base or algorand) so existing tables price it. */
  readonly priceColumns: readonly string[];
  /**
   * Its entry in `x402.networks`: schema and resolution (evm/config.ts, avm/config.ts). A loaded
   * family may leave it out: its entries then take the common fields and `checkSettings`.
   */
  readonly config?: FamilyConfig<N>;
  /** Checks the fields of its own in a network's configuration entry; a message when they are wrong. */
  checkSettings?(settings: Readonly<Record<string, unknown>>): string | undefined;
  /** The payer a payload's authorization names, before anything is verified (never grants anything); undefined when it names none or is not this family's. */
  namedPayer(payload: PaymentPayload): string | undefined;
  /** Who pays and the replay key, from a payload of this family. */
  identify(payload: PaymentPayload): IdentifyResult;
  readonly replayReason: string;
  readonly expiringReason: string;
  /** Verifies and settles in process; needed for local settlement and used for reconcile when it has chain access. */
  createMechanism?(network: N, ctx: MechanismContext): SchemeMechanism;
  /** Whether a network settled remotely still has a chain endpoint of ours, so reconcile looks payments up itself (EVM rpcUrl, AVM algodUrl). */
  hasChainAccess?(network: N): boolean;
  /** requirements.extra when a remote facilitator settles (the EVM token domain); default: the facilitator's /supported extra. */
  remoteRequirementsExtra?(network: N): Record<string, unknown>;
  /**
   * requirements.extra of an `upto` offer (the buyer authorizes a limit, the seller settles what was
   * delivered) when a remote facilitator lists `upto` for the network in /supported, from that kind's
   * extra; undefined when it cannot be offered. Families without it never offer `upto`.
   */
  uptoRequirementsExtra?(network: N, supportedExtra: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined;
  /** The address that signs this network's settlements when it settles locally (the EVM settler account, the Algorand fee payer); undefined when it has none. */
  settlerAddress?(network: N): Promise<string | undefined>;
  /** The refund sender for a network whose configuration has a refund key; undefined when it has none. */
  loadRefundSender?(network: N, options: { pollingIntervalMs?: number; fetch?: typeof fetch }): Promise<RefundSender | undefined>;
}
