/**
 * @module x402/config — the payment layer's configuration (TypeBox) and its resolution against the
 * known-network table. The app merges `X402Config` into its own config (TOLLBOOTH_* variables).
 * Secrets (settlement keys) are given inline from an environment variable or as a file path; they
 * are read once here and never appear in messages.
 */
import { readFileSync } from "node:fs";
import { Type, type Static } from "@sinclair/typebox";
import type { FamilyNetwork, PaymentNetwork } from "./family.ts";
import { registeredFamily } from "./family-registry.ts";
import { findKnownNetwork, normalizeNetwork, parseEvmChainId, algorandNetworkId } from "./networks.ts";

const Url = Type.String({ pattern: "^https?://" });

export const FacilitatorConfig = Type.Object({
  url: Url,
  /** Extra headers sent on every facilitator call (e.g. an API key). */
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  timeoutMs: Type.Optional(Type.Integer({ minimum: 1, default: 30_000 })),
});
export type FacilitatorConfig = Static<typeof FacilitatorConfig>;

const Settlement = Type.Union([Type.Literal("local"), Type.Literal("remote")]);

export const EvmNetworkConfig = Type.Object({
  family: Type.Literal("evm"),
  /** CAIP-2 id (eip155:8453) or a known name (base, base-sepolia). */
  network: Type.String(),
  /** Short name used to pick a per-network price ("base"); defaults to the known name. */
  name: Type.Optional(Type.String()),
  payTo: Type.String({ pattern: "^0x[0-9a-fA-F]{40}$" }),
  /** Required for custom networks; default from the known table. */
  asset: Type.Optional(Type.String({ pattern: "^0x[0-9a-fA-F]{40}$" })),
  decimals: Type.Optional(Type.Integer({ minimum: 0, maximum: 18 })),
  eip712: Type.Optional(Type.Object({ name: Type.String(), version: Type.String() })),
  settlement: Settlement,
  /** JSON-RPC endpoint: required for local settlement, used for reconciliation when present. */
  rpcUrl: Type.Optional(Url),
  /** 0x-prefixed 32-byte hex key paying the gas (local settlement). */
  settlerPrivateKey: Type.Optional(Type.String()),
  settlerPrivateKeyFile: Type.Optional(Type.String()),
  /** Key of an account holding the token (typically payTo's own) that pays refunds due; needs rpcUrl. */
  refundPrivateKey: Type.Optional(Type.String()),
  refundPrivateKeyFile: Type.Optional(Type.String()),
  /** Overrides the global facilitator for this network (remote settlement). */
  facilitator: Type.Optional(FacilitatorConfig),
});
export type EvmNetworkConfig = Static<typeof EvmNetworkConfig>;

export const AvmNetworkConfig = Type.Object({
  family: Type.Literal("avm"),
  /** CAIP-2 id in either form (32-character or full genesis hash) or a known name (algorand). */
  network: Type.String(),
  name: Type.Optional(Type.String()),
  payTo: Type.String({ pattern: "^[A-Z2-7]{58}$" }),
  asset: Type.Optional(Type.String({ pattern: "^[0-9]+$" })),
  decimals: Type.Optional(Type.Integer({ minimum: 0, maximum: 19 })),
  genesisHash: Type.Optional(Type.String()),
  genesisId: Type.Optional(Type.String()),
  settlement: Settlement,
  algodUrl: Type.Optional(Url),
  algodToken: Type.Optional(Type.String()),
  /** 25-word mnemonic of the fee payer (local settlement). */
  feePayerMnemonic: Type.Optional(Type.String()),
  feePayerMnemonicFile: Type.Optional(Type.String()),
  /** 25-word mnemonic of an account holding the USDC ASA (typically payTo) that pays refunds due; needs algodUrl. */
  refundMnemonic: Type.Optional(Type.String()),
  refundMnemonicFile: Type.Optional(Type.String()),
  facilitator: Type.Optional(FacilitatorConfig),
});
export type AvmNetworkConfig = Static<typeof AvmNetworkConfig>;

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
    settlement: Settlement,
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

export interface ResolvedEvmNetwork extends PaymentNetwork {
  readonly family: "evm";
  readonly network: string;
  readonly name: string;
  readonly chainId: number;
  readonly payTo: `0x${string}`;
  readonly asset: `0x${string}`;
  readonly decimals: number;
  readonly eip712: { readonly name: string; readonly version: string };
  readonly settlement: "local" | "remote";
  readonly rpcUrl: string | undefined;
  readonly settlerPrivateKey: `0x${string}` | undefined;
  /** Pays refunds due (refunds/payer.ts); absent = refunds are left to the operator. */
  readonly refundPrivateKey?: `0x${string}` | undefined;
  readonly facilitator: FacilitatorConfig | undefined;
}

export interface ResolvedAvmNetwork extends PaymentNetwork {
  readonly family: "avm";
  readonly network: string;
  readonly name: string;
  readonly payTo: string;
  readonly asset: string;
  readonly decimals: number;
  readonly genesisHash: string;
  readonly genesisId: string | undefined;
  readonly settlement: "local" | "remote";
  readonly algodUrl: string | undefined;
  readonly algodToken: string | undefined;
  readonly feePayerMnemonic: string | undefined;
  readonly refundMnemonic?: string | undefined;
  readonly facilitator: FacilitatorConfig | undefined;
}

/** A network of a built-in family. */
export type ResolvedNetwork = ResolvedEvmNetwork | ResolvedAvmNetwork;

/** Any configured network: built in, or of a family loaded from a folder. */
export type ConfiguredNetwork = ResolvedNetwork | FamilyNetwork;

export function isBuiltInNetwork(network: ConfiguredNetwork): network is ResolvedNetwork {
  return network.family === "evm" || network.family === "avm";
}

/** Built-in families' price columns: base-sepolia charges what Base does, algorand-testnet what Algorand does. */
const builtInPriceColumns = { evm: ["base"], avm: ["algorand"] } as const;

function priceColumnsOf(name: string, network: string, familyColumns: readonly string[]): readonly string[] {
  return [...new Set([name, network, ...familyColumns])];
}

export class X402ConfigError extends Error {
  override name = "X402ConfigError";
}

function readSecret(inline: string | undefined, file: string | undefined, what: string): string | undefined {
  if (inline !== undefined && file !== undefined) throw new X402ConfigError(`${what}: give the key inline or as a file, not both`);
  if (file === undefined) return inline?.trim();
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    throw new X402ConfigError(`${what}: the key file ${file} cannot be read`);
  }
}

/** Fills defaults from the known table and checks what each settlement mode needs. Throws X402ConfigError. */
export function resolveNetworks(config: X402Config): ConfiguredNetwork[] {
  const seen = new Set<string>();
  return config.networks.map((n) => {
    const resolved = n.family === "evm" ? resolveEvm(n as EvmNetworkConfig, config) : n.family === "avm" ? resolveAvm(n as AvmNetworkConfig, config) : resolveFamily(n as FamilyNetworkConfig, config);
    if (seen.has(resolved.network)) throw new X402ConfigError(`network ${resolved.network} is configured twice`);
    seen.add(resolved.network);
    return resolved;
  });
}

function resolveEvm(n: EvmNetworkConfig, config: X402Config): ResolvedEvmNetwork {
  const known = findKnownNetwork(n.network);
  const knownEvm = known?.family === "evm" ? known : undefined;
  const network = knownEvm?.network ?? n.network;
  const chainId = parseEvmChainId(network);
  if (chainId === undefined) throw new X402ConfigError(`network ${n.network}: not an eip155:<chainId> id or known name`);
  const asset = (n.asset ?? knownEvm?.asset) as `0x${string}` | undefined;
  const eip712 = n.eip712 ?? knownEvm?.eip712;
  if (!asset || !eip712) throw new X402ConfigError(`network ${network}: custom networks need asset and eip712 {name, version}`);
  const key = readSecret(n.settlerPrivateKey, n.settlerPrivateKeyFile, `network ${network} settler key`);
  if (key !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(key)) {
    throw new X402ConfigError(`network ${network}: the settler key must be 0x followed by 64 hex digits`);
  }
  const refundKey = readSecret(n.refundPrivateKey, n.refundPrivateKeyFile, `network ${network} refund key`);
  if (refundKey !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(refundKey)) {
    throw new X402ConfigError(`network ${network}: the refund key must be 0x followed by 64 hex digits`);
  }
  if (refundKey !== undefined && !n.rpcUrl) throw new X402ConfigError(`network ${network}: a refund key needs rpcUrl`);
  const facilitator = n.facilitator ?? config.facilitator;
  if (n.settlement === "local" && (!n.rpcUrl || !key)) {
    throw new X402ConfigError(`network ${network}: local settlement needs rpcUrl and a settler key`);
  }
  if (n.settlement === "remote" && !facilitator) throw new X402ConfigError(`network ${network}: remote settlement needs a facilitator url`);
  const name = n.name ?? knownEvm?.name ?? network;
  return {
    family: "evm",
    network,
    name,
    priceColumns: priceColumnsOf(name, network, builtInPriceColumns.evm),
    chainId,
    payTo: n.payTo as `0x${string}`,
    asset,
    decimals: n.decimals ?? knownEvm?.decimals ?? 6,
    eip712,
    settlement: n.settlement,
    rpcUrl: n.rpcUrl,
    settlerPrivateKey: key as `0x${string}` | undefined,
    ...(refundKey !== undefined ? { refundPrivateKey: refundKey as `0x${string}` } : {}),
    facilitator,
  };
}

function resolveAvm(n: AvmNetworkConfig, config: X402Config): ResolvedAvmNetwork {
  const known = findKnownNetwork(n.network);
  const knownAvm = known?.family === "avm" ? known : undefined;
  const genesisHash = n.genesisHash ?? knownAvm?.genesisHash;
  if (!genesisHash) throw new X402ConfigError(`network ${n.network}: custom Algorand networks need genesisHash`);
  const network = algorandNetworkId(genesisHash);
  if (!n.network.startsWith("algorand:") && !knownAvm) throw new X402ConfigError(`network ${n.network}: not an algorand: id or known name`);
  if (n.network.startsWith("algorand:") && normalizeNetwork(n.network) !== network) {
    throw new X402ConfigError(`network ${n.network}: does not match genesisHash ${genesisHash}`);
  }
  const asset = n.asset ?? knownAvm?.asset;
  if (!asset) throw new X402ConfigError(`network ${network}: custom Algorand networks need asset (ASA id)`);
  const mnemonic = readSecret(n.feePayerMnemonic, n.feePayerMnemonicFile, `network ${network} fee payer`);
  const refundMnemonic = readSecret(n.refundMnemonic, n.refundMnemonicFile, `network ${network} refund account`);
  if (refundMnemonic !== undefined && refundMnemonic.split(/\s+/).length !== 25) {
    throw new X402ConfigError(`network ${network}: the refund mnemonic must be 25 words`);
  }
  if (refundMnemonic !== undefined && !n.algodUrl) throw new X402ConfigError(`network ${network}: a refund mnemonic needs algodUrl`);
  const facilitator = n.facilitator ?? config.facilitator;
  if (n.settlement === "local" && (!n.algodUrl || !mnemonic)) {
    throw new X402ConfigError(`network ${network}: local settlement needs algodUrl and a fee payer mnemonic`);
  }
  if (n.settlement === "remote" && !facilitator) throw new X402ConfigError(`network ${network}: remote settlement needs a facilitator url`);
  const name = n.name ?? knownAvm?.name ?? network;
  return {
    family: "avm",
    network,
    name,
    priceColumns: priceColumnsOf(name, network, builtInPriceColumns.avm),
    payTo: n.payTo,
    asset,
    decimals: n.decimals ?? knownAvm?.decimals ?? 6,
    genesisHash,
    genesisId: n.genesisId ?? knownAvm?.genesisId,
    settlement: n.settlement,
    algodUrl: n.algodUrl,
    algodToken: n.algodToken,
    feePayerMnemonic: mnemonic,
    ...(refundMnemonic !== undefined ? { refundMnemonic } : {}),
    facilitator,
  };
}

function resolveFamily(n: FamilyNetworkConfig, config: X402Config): FamilyNetwork {
  const family = registeredFamily(n.family);
  if (!family) throw new X402ConfigError(`network ${n.network}: no payment family ${n.family} (name its folder in x402.families)`);
  const known = family.knownNetworks.find((k) => k.network === n.network || k.name === n.network);
  const network = known?.network ?? n.network;
  if (!network.startsWith(`${family.namespace}:`)) throw new X402ConfigError(`network ${n.network}: not a ${family.namespace}: id or a name family ${family.name} knows`);
  const asset = n.asset ?? known?.asset;
  if (!asset) throw new X402ConfigError(`network ${network}: networks family ${family.name} does not know need asset`);
  const settingsProblem = family.checkSettings?.(n);
  if (settingsProblem) throw new X402ConfigError(`network ${network}: ${settingsProblem}`);
  const facilitator = n.facilitator ?? config.facilitator;
  if (n.settlement === "local" && !family.createMechanism) throw new X402ConfigError(`network ${network}: family ${family.name} cannot settle locally`);
  if (n.settlement === "remote" && !facilitator) throw new X402ConfigError(`network ${network}: remote settlement needs a facilitator url`);
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
