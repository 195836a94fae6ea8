/**
 * @module x402/avm/config — the Algorand family's entry in `x402.networks` (`"family": "avm"`): its
 * schema, and its resolution against the known networks (networks.ts) into the network the AVM
 * code reads: genesis hash, the USDC ASA, the fee payer's and refund account's mnemonics.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { FamilyConfig, PaymentNetwork } from "../family.ts";
import { algorandNetworkId, findKnownNetwork, normalizeNetwork } from "../networks.ts";
import { FacilitatorConfig, priceColumnsOf, readSecret, remoteFacilitatorOf, SettlementSchema, UrlSchema, X402ConfigError } from "../network-config.ts";

/** Its networks charge by the Algorand column when a price table has none of their own (algorand-testnet charges what Algorand does). */
export const avmPriceColumns = ["algorand"] as const;

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
  settlement: SettlementSchema,
  algodUrl: Type.Optional(UrlSchema),
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

/** Fills defaults from the known table and checks what each settlement mode needs. Throws X402ConfigError. */
export function resolveAvmNetwork(n: AvmNetworkConfig, shared: { readonly facilitator?: FacilitatorConfig | undefined }): ResolvedAvmNetwork {
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
  if (n.settlement === "local" && (!n.algodUrl || !mnemonic)) {
    throw new X402ConfigError(`network ${network}: local settlement needs algodUrl and a fee payer mnemonic`);
  }
  const facilitator = remoteFacilitatorOf(n, shared, network);
  const name = n.name ?? knownAvm?.name ?? network;
  return {
    family: "avm",
    network,
    name,
    priceColumns: priceColumnsOf(name, network, avmPriceColumns),
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

export const avmConfig: FamilyConfig<ResolvedAvmNetwork> = {
  name: "avm",
  entrySchema: AvmNetworkConfig,
  resolve: (entry, shared) => resolveAvmNetwork(entry as AvmNetworkConfig, shared),
};
