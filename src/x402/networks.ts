/**
 * @module x402/networks — the one table of networks Tollbooth knows: CAIP-2 id, USDC asset, decimals
 * and, for EVM, the token's EIP-712 domain (read from the token, never guessed: Base says "USD Coin",
 * Base Sepolia says "USDC"). Custom networks (tests, other chains) come from config.
 */

export type Family = "evm" | "avm";

export interface EvmNetworkInfo {
  readonly family: "evm";
  readonly network: string;
  readonly name: string;
  readonly chainId: number;
  readonly asset: `0x${string}`;
  readonly decimals: number;
  readonly eip712: { readonly name: string; readonly version: string };
}

export interface AvmNetworkInfo {
  readonly family: "avm";
  readonly network: string;
  readonly name: string;
  /** Full base64 genesis hash; the CAIP-2 reference is its first 32 characters. */
  readonly genesisHash: string;
  readonly genesisId: string;
  readonly asset: string;
  readonly decimals: number;
}

export type NetworkInfo = EvmNetworkInfo | AvmNetworkInfo;

export const ALGORAND_MAINNET_GENESIS_HASH = "wGHE2Pwdvd7S12BL5FaOP20EGYesN73ktiC1qzkkit8=";
export const ALGORAND_TESTNET_GENESIS_HASH = "SGO1GKSzyE7IEPItTxCByw9x8FmnrCDexi9/cOUJOiI=";

export const knownNetworks: readonly NetworkInfo[] = [
  {
    family: "evm",
    network: "eip155:8453",
    name: "base",
    chainId: 8453,
    asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    decimals: 6,
    eip712: { name: "USD Coin", version: "2" },
  },
  {
    family: "evm",
    network: "eip155:84532",
    name: "base-sepolia",
    chainId: 84532,
    asset: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    decimals: 6,
    eip712: { name: "USDC", version: "2" },
  },
  {
    family: "avm",
    network: algorandNetworkId(ALGORAND_MAINNET_GENESIS_HASH),
    name: "algorand",
    genesisHash: ALGORAND_MAINNET_GENESIS_HASH,
    genesisId: "mainnet-v1.0",
    asset: "31566704",
    decimals: 6,
  },
  {
    family: "avm",
    network: algorandNetworkId(ALGORAND_TESTNET_GENESIS_HASH),
    name: "algorand-testnet",
    genesisHash: ALGORAND_TESTNET_GENESIS_HASH,
    genesisId: "testnet-v1.0",
    asset: "10458941",
    decimals: 6,
  },
];

/** The CAIP-2 id the official packages emit: `algorand:` + the first 32 characters of the genesis hash. */
export function algorandNetworkId(genesisHash: string): string {
  return `algorand:${genesisHash.slice(0, 32)}`;
}

/**
 * Canonical form of a network id: Algorand ids given with the full genesis hash (the spec's text)
 * become the 32-character form (what `/supported` and the official client use). Others unchanged.
 */
export function normalizeNetwork(network: string): string {
  if (network.startsWith("algorand:") && network.length > "algorand:".length + 32) {
    return `algorand:${network.slice("algorand:".length, "algorand:".length + 32)}`;
  }
  return network;
}

export function findKnownNetwork(networkOrName: string): NetworkInfo | undefined {
  const id = normalizeNetwork(networkOrName);
  return knownNetworks.find((n) => n.network === id || n.name === networkOrName);
}

/** eip155:<chainId> → chainId; undefined for anything else. */
export function parseEvmChainId(network: string): number | undefined {
  const match = /^eip155:([1-9][0-9]{0,15})$/.exec(network);
  return match ? Number(match[1]) : undefined;
}
