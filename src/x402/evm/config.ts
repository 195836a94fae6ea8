/**
 * @module x402/evm/config — the EVM family's entry in `x402.networks` (`"family": "evm"`): its
 * schema, and its resolution against the known networks (networks.ts) into the network the EVM
 * code reads: chain id, USDC's address and EIP-712 domain, the settler and refund keys.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { FamilyConfig, PaymentNetwork } from "../family.ts";
import { findKnownNetwork, parseEvmChainId } from "../networks.ts";
import { FacilitatorConfig, priceColumnsOf, readSecret, remoteFacilitatorOf, SettlementSchema, UrlSchema, X402ConfigError } from "../network-config.ts";

/** Its networks charge by the Base column when a price table has none of their own (base-sepolia charges what Base does). */
export const evmPriceColumns = ["base"] as const;

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
  settlement: SettlementSchema,
  /** JSON-RPC endpoint: required for local settlement, used for reconciliation when present. */
  rpcUrl: Type.Optional(UrlSchema),
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

/** Fills defaults from the known table and checks what each settlement mode needs. Throws X402ConfigError. */
export function resolveEvmNetwork(n: EvmNetworkConfig, shared: { readonly facilitator?: FacilitatorConfig | undefined }): ResolvedEvmNetwork {
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
  if (n.settlement === "local" && (!n.rpcUrl || !key)) {
    throw new X402ConfigError(`network ${network}: local settlement needs rpcUrl and a settler key`);
  }
  const facilitator = remoteFacilitatorOf(n, shared, network);
  const name = n.name ?? knownEvm?.name ?? network;
  return {
    family: "evm",
    network,
    name,
    priceColumns: priceColumnsOf(name, network, evmPriceColumns),
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

export const evmConfig: FamilyConfig<ResolvedEvmNetwork> = {
  name: "evm",
  entrySchema: EvmNetworkConfig,
  resolve: (entry, shared) => resolveEvmNetwork(entry as EvmNetworkConfig, shared),
};
