/**
 * @module x402/families — one "rail" per configured network: how to read a payment's identity, which
 * facilitator verifies and settles it (in-process or remote), and how reconcile checks the chain.
 * Families register here; adding one (Solana) is a folder plus one entry.
 */
import { type ConfiguredNetwork, isBuiltInNetwork, type ResolvedNetwork, type X402Config } from "./config.ts";
import type { FamilyNetwork } from "./family.ts";
import { registeredFamily } from "./family-registry.ts";
import { avmReasons } from "./avm/errors.ts";
import { createExactAvmMechanism, identifyAvmPayment } from "./avm/exact.ts";
import { createExactEvmMechanism } from "./evm/exact.ts";
import { evmReasons } from "./evm/errors.ts";
import { identifyEvmPayment } from "./evm/payload.ts";
import { createLocalFacilitator } from "./facilitators/local.ts";
import { createRemoteFacilitator } from "./facilitators/remote.ts";
import type { Facilitator, IdentifyResult, PendingSettlement, SchemeMechanism, SettlementCheck } from "./facilitator.ts";
import type { PaymentPayload } from "./messages.ts";

export interface Rail {
  readonly network: ConfiguredNetwork;
  readonly facilitator: Facilitator;
  identify(payload: PaymentPayload): IdentifyResult;
  /** Reason given for a payment we already used. */
  readonly replayReason: string;
  /** Reason given for an authorization that expires too soon to settle. */
  readonly expiringReason: string;
  /** Chain lookup for reconcile; absent when the network has no RPC/algod of ours (remote settlement only). */
  readonly checkSettlement: ((pending: PendingSettlement) => Promise<SettlementCheck>) | undefined;
  /** requirements.extra for offers; may ask the facilitator (AVM fee payer from /supported). */
  requirementsExtra(): Promise<Record<string, unknown>>;
}

export interface RailFactoryContext {
  readonly config: X402Config;
  readonly now: () => Date;
  readonly fetch: typeof fetch | undefined;
  readonly pollingIntervalMs: number | undefined;
}

export interface FamilyRegistration {
  createMechanism(network: ResolvedNetwork, ctx: RailFactoryContext): SchemeMechanism;
  identify(payload: PaymentPayload): IdentifyResult;
  replayReason: string;
  expiringReason: string;
}

export const families: Record<string, FamilyRegistration> = {
  evm: {
    createMechanism: (network, ctx) => {
      if (network.family !== "evm") throw new Error("not an EVM network");
      return createExactEvmMechanism({
        network,
        settlementMarginSeconds: ctx.config.settlementMarginSeconds,
        confirmationTimeoutMs: ctx.config.confirmationTimeoutMs,
        now: ctx.now,
        ...(ctx.pollingIntervalMs !== undefined ? { pollingIntervalMs: ctx.pollingIntervalMs } : {}),
      });
    },
    identify: identifyEvmPayment,
    replayReason: evmReasons.nonceAlreadyUsed,
    expiringReason: evmReasons.validBefore,
  },
  avm: {
    createMechanism: (network, ctx) => {
      if (network.family !== "avm") throw new Error("not an Algorand network");
      return createExactAvmMechanism({
        network,
        confirmationTimeoutMs: ctx.config.confirmationTimeoutMs,
        ...(ctx.fetch ? { fetch: ctx.fetch } : {}),
        ...(ctx.pollingIntervalMs !== undefined ? { pollingIntervalMs: ctx.pollingIntervalMs } : {}),
      });
    },
    identify: identifyAvmPayment,
    replayReason: avmReasons.alreadyUsed,
    expiringReason: avmReasons.invalidValidity,
  },
};

function hasChainAccess(network: ResolvedNetwork): boolean {
  return network.family === "evm" ? network.rpcUrl !== undefined : network.algodUrl !== undefined;
}

export function createRails(networks: readonly ConfiguredNetwork[], ctx: RailFactoryContext): Map<string, Rail> {
  const rails = new Map<string, Rail>();
  for (const network of networks) {
    if (!isBuiltInNetwork(network)) {
      rails.set(network.network, familyRail(network, ctx));
      continue;
    }
    const family = families[network.family];
    if (!family) throw new Error(`no payment mechanism for family ${network.family}`);
    const local = network.settlement === "local" || hasChainAccess(network) ? family.createMechanism(network, ctx) : undefined;
    let facilitator: Facilitator;
    let requirementsExtra: () => Promise<Record<string, unknown>>;
    if (network.settlement === "local") {
      if (!local) throw new Error("unreachable");
      facilitator = createLocalFacilitator([local]);
      requirementsExtra = async () => local.requirementsExtra();
    } else {
      if (!network.facilitator) throw new Error(`network ${network.network}: no facilitator`);
      const remote = createRemoteFacilitator({ ...network.facilitator, ...(ctx.fetch ? { fetch: ctx.fetch } : {}) });
      facilitator = remote;
      requirementsExtra = network.family === "evm" ? async () => ({ name: network.eip712.name, version: network.eip712.version }) : cachedSupportedExtra(remote, network.network);
    }
    rails.set(network.network, {
      network,
      facilitator,
      identify: family.identify,
      replayReason: family.replayReason,
      expiringReason: family.expiringReason,
      checkSettlement: local ? (pending) => local.checkSettlement(pending) : undefined,
      requirementsExtra,
    });
  }
  return rails;
}

/** The rail of a network whose family was loaded from a folder (x402/family.ts). */
function familyRail(network: FamilyNetwork, ctx: RailFactoryContext): Rail {
  const family = registeredFamily(network.familyName);
  if (!family) throw new Error(`no payment family ${network.familyName}`);
  const mechanismContext = {
    now: ctx.now,
    fetch: ctx.fetch,
    pollingIntervalMs: ctx.pollingIntervalMs,
    settlementMarginSeconds: ctx.config.settlementMarginSeconds,
    confirmationTimeoutMs: ctx.config.confirmationTimeoutMs,
  };
  const local = network.settlement === "local" && family.createMechanism ? family.createMechanism(network, mechanismContext) : undefined;
  let facilitator: Facilitator;
  let requirementsExtra: () => Promise<Record<string, unknown>>;
  if (local) {
    facilitator = createLocalFacilitator([local]);
    requirementsExtra = async () => local.requirementsExtra();
  } else {
    if (!network.facilitator) throw new Error(`network ${network.network}: no facilitator`);
    const remote = createRemoteFacilitator({ ...network.facilitator, ...(ctx.fetch ? { fetch: ctx.fetch } : {}) });
    facilitator = remote;
    const fixed = family.remoteRequirementsExtra?.(network);
    requirementsExtra = fixed ? async () => fixed : cachedSupportedExtra(remote, network.network);
  }
  return {
    network,
    facilitator,
    identify: (payload) => family.identify(payload),
    replayReason: family.replayReason,
    expiringReason: family.expiringReason,
    checkSettlement: local ? (pending) => local.checkSettlement(pending) : undefined,
    requirementsExtra,
  };
}

/** The facilitator's `kinds[].extra` for our network (AVM: the fee payer), fetched once and kept; a failed fetch is retried next time. */
function cachedSupportedExtra(facilitator: Facilitator, network: string): () => Promise<Record<string, unknown>> {
  let cached: Promise<Record<string, unknown>> | undefined;
  return () => {
    cached ??= facilitator.supported().then(
      (supported) => {
        const kind = supported.kinds.find((k) => k.x402Version === 2 && k.scheme === "exact" && k.network === network);
        if (!kind) throw new Error(`the facilitator does not support exact on ${network}`);
        return kind.extra ?? {};
      },
      (error: unknown) => {
        cached = undefined;
        throw error;
      },
    );
    return cached;
  };
}
