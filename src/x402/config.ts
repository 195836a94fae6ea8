/**
 * @module x402/config — the payment layer's configuration (TypeBox) and its resolution: each entry
 * of `x402.networks` is resolved by its family's configuration part (built in: evm/config.ts,
 * avm/config.ts; loaded from a folder: the family's `config`, or the common fields and its
 * `checkSettings`). The app merges `X402Config` into its own config (TOLLBOOTH_* variables).
 * Secrets (settlement keys) are given inline from an environment variable or as a file path; they
 * are read once by the family and never appear in messages.
 */
import { Type, type Static } from "@sinclair/typebox";
import { avmConfig, AvmNetworkConfig, type ResolvedAvmNetwork } from "./avm/config.ts";
import { evmConfig, EvmNetworkConfig, type ResolvedEvmNetwork } from "./evm/config.ts";
import type { FamilyConfig, FamilyNetwork, SharedNetworkSettings } from "./family.ts";
import { registeredFamily } from "./family-registry.ts";
import { FacilitatorConfig, priceColumnsOf, remoteFacilitatorOf, SettlementSchema, X402ConfigError } from "./network-config.ts";

export { FacilitatorConfig, X402ConfigError };
export { AvmNetworkConfig, type ResolvedAvmNetwork } from "./avm/config.ts";
export { EvmNetworkConfig, type ResolvedEvmNetwork } from "./evm/config.ts";

/**
 * The configuration parts of the families whose code is bundled, by the name their entries give
 * (the light half of each folder: evm/family.ts and avm/family.ts carry them too, with the chain
 * code this module must not load while payments are off).
 */
const builtInConfigs: Readonly<Record<string, FamilyConfig<ResolvedNetwork>>> = { evm: evmConfig, avm: avmConfig };

/** A network of a family loaded from a folder (x402/family.ts): the common fields; the family checks the rest. */
export const FamilyNetworkConfig = Type.Object(
  {
    family: Type.String({ pattern: "^(?!evm$|avm$)[a-z][a-z0-9-]*$" }),
    /** CAIP-2 id in the family's namespace, or a name the family knows. */
    network: Type.String(),
    name: Type.Optional(Type.String()),
    payTo: Type.String({ minLength: 1 }),
    asset: Type.Optional(Type.String({ minLength: 1 })),
    decimals: Type.Optional(Type.Integer({ minimum: 0, maximum: 18 })),
    settlement: SettlementSchema,
    facilitator: Type.Optional(FacilitatorConfig),
  },
  { additionalProperties: true },
);
export type FamilyNetworkConfig = Static<typeof FamilyNetworkConfig>;

export const X402Config = Type.Object({
  /** Folders of further payment families, each with a family.ts exporting `family` (x402/family.ts). */
  families: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  networks: Type.Array(Type.Union([EvmNetworkConfig, AvmNetworkConfig, FamilyNetworkConfig]), { minItems: 1 }),
  /** Default remote facilitator. */
  facilitator: Type.Optional(FacilitatorConfig),
  /** Offered to buyers; the official EVM client signs validBefore = now + this. */
  maxTimeoutSeconds: Type.Integer({ minimum: 10, default: 300 }),
  /** An authorization must stay valid at least this long after verification, so settlement can land. */
  settlementMarginSeconds: Type.Integer({ minimum: 0, default: 30 }),
  /** How long settle waits for confirmation before answering SETTLEMENT_PENDING. */
  confirmationTimeoutMs: Type.Integer({ minimum: 1, default: 60_000 }),
  /** A reservation older than this is treated as abandoned by reconcile (crash during the work). */
  staleReservationSeconds: Type.Integer({ minimum: 1, default: 900 }),
});
export type X402Config = Static<typeof X402Config>;

/** A network of a built-in family. */
export type ResolvedNetwork = ResolvedEvmNetwork | ResolvedAvmNetwork;

/** Any configured network: built in, or of a family loaded from a folder. */
export type ConfiguredNetwork = ResolvedNetwork | FamilyNetwork;

export function isBuiltInNetwork(network: ConfiguredNetwork): network is ResolvedNetwork {
  return network.family === "evm" || network.family === "avm";
}

/** Resolves every entry through its family and refuses a network configured twice. Throws X402ConfigError. */
export function resolveNetworks(config: X402Config): ConfiguredNetwork[] {
  const seen = new Set<string>();
  const shared: SharedNetworkSettings = { facilitator: config.facilitator };
  return config.networks.map((entry) => {
    const builtIn = builtInConfigs[entry.family];
    const loaded = builtIn ? undefined : registeredFamily(entry.family)?.config;
    const resolved: ConfiguredNetwork = builtIn ? builtIn.resolve(entry, shared) : loaded ? loaded.resolve(entry, shared) : resolveFamily(entry as FamilyNetworkConfig, shared);
    if (seen.has(resolved.network)) throw new X402ConfigError(`network ${resolved.network} is configured twice`);
    seen.add(resolved.network);
    return resolved;
  });
}

/** An entry of a loaded family without a `config` of its own: the common fields here, the family's own through `checkSettings`. */
function resolveFamily(n: FamilyNetworkConfig, shared: SharedNetworkSettings): FamilyNetwork {
  const family = registeredFamily(n.family);
  if (!family) throw new X402ConfigError(`network ${n.network}: no payment family ${n.family} (name its folder in x402.families)`);
  const known = family.knownNetworks.find((k) => k.network === n.network || k.name === n.network);
  const network = known?.network ?? n.network;
  if (!network.startsWith(`${family.namespace}:`)) throw new X402ConfigError(`network ${n.network}: not a ${family.namespace}: id or a name family ${family.name} knows`);
  const asset = n.asset ?? known?.asset;
  if (!asset) throw new X402ConfigError(`network ${network}: networks family ${family.name} does not know need asset`);
  const settingsProblem = family.checkSettings?.(n);
  if (settingsProblem) throw new X402ConfigError(`network ${network}: ${settingsProblem}`);
  if (n.settlement === "local" && !family.createMechanism) throw new X402ConfigError(`network ${network}: family ${family.name} cannot settle locally`);
  const facilitator = remoteFacilitatorOf(n, shared, network);
  const name = n.name ?? known?.name ?? network;
  return {
    family: "loaded",
    familyName: family.name,
    network,
    name,
    payTo: n.payTo,
    asset,
    decimals: n.decimals ?? known?.decimals ?? 6,
    settlement: n.settlement,
    facilitator,
    priceColumns: priceColumnsOf(name, network, family.priceColumns),
    settings: n,
  };
}
