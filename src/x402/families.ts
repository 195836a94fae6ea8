/**
 * @module x402/families — one "rail" per configured network: how to read a payment's identity, which
 * facilitator verifies and settles it (in-process or remote), and how reconcile checks the chain.
 * Every family gives the same PaymentFamily (family.ts): the built-in evm/ and avm/ from their
 * folders, the others from the folders `x402.families` names (family-registry.ts).
 */
import type { ConfiguredNetwork, X402Config } from "./config.ts";
import { avmFamily } from "./avm/family.ts";
import { evmFamily } from "./evm/family.ts";
import type { MechanismContext, PaymentFamily } from "./family.ts";
import { registeredFamily } from "./family-registry.ts";
import { createLocalFacilitator } from "./facilitators/local.ts";
import { createRemoteFacilitator } from "./facilitators/remote.ts";
import type { Facilitator, IdentifyResult, PendingSettlement, SettlementCheck } from "./facilitator.ts";
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
  /** requirements.extra of an `upto` offer, when this network can take one (a remote facilitator listing it); undefined otherwise. */
  uptoRequirementsExtra(): Promise<Record<string, unknown> | undefined>;
}

export interface RailFactoryContext {
  readonly config: X402Config;
  readonly now: () => Date;
  readonly fetch: typeof fetch | undefined;
  readonly pollingIntervalMs: number | undefined;
}

export function createRails(networks: readonly ConfiguredNetwork[], ctx: RailFactoryContext): Map<string, Rail> {
  const mechanismContext: MechanismContext = {
    now: ctx.now,
    fetch: ctx.fetch,
    pollingIntervalMs: ctx.pollingIntervalMs,
    settlementMarginSeconds: ctx.config.settlementMarginSeconds,
    confirmationTimeoutMs: ctx.config.confirmationTimeoutMs,
  };
  const rails = new Map<string, Rail>();
  for (const network of networks) rails.set(network.network, railOf(familyOf(network), network, mechanismContext, ctx.fetch));
  return rails;
}

/** The family of a configured network: the built-in evm/ and avm/ are looked up like a loaded one. */
export function familyOf(network: ConfiguredNetwork): PaymentFamily<ConfiguredNetwork> {
  const family: PaymentFamily<ConfiguredNetwork> | undefined = network.family === "loaded" ? registeredFamily(network.familyName) : builtInFamilies[network.family];
  if (!family) throw new Error(`no payment family ${network.family === "loaded" ? network.familyName : network.family}`);
  return family;
}

const builtInFamilies: Readonly<Record<string, PaymentFamily<ConfiguredNetwork>>> = { evm: evmFamily, avm: avmFamily };

function railOf<N extends ConfiguredNetwork>(family: PaymentFamily<N>, network: N, ctx: MechanismContext, fetchImpl: typeof fetch | undefined): Rail {
  const wantsLocal = network.settlement === "local" || family.hasChainAccess?.(network) === true;
  const local = wantsLocal ? family.createMechanism?.(network, ctx) : undefined;
  let facilitator: Facilitator;
  let requirementsExtra: () => Promise<Record<string, unknown>>;
  // Local settlement is Tollbooth's own `exact` mechanism: `upto` only through a facilitator that lists it.
  let uptoRequirementsExtra = async (): Promise<Record<string, unknown> | undefined> => undefined;
  if (network.settlement === "local") {
    if (!local) throw new Error(`network ${network.network}: family ${family.name} cannot settle locally`);
    facilitator = createLocalFacilitator([local]);
    requirementsExtra = async () => local.requirementsExtra();
  } else {
    if (!network.facilitator) throw new Error(`network ${network.network}: no facilitator`);
    const remote = createRemoteFacilitator({ ...network.facilitator, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
    facilitator = remote;
    const fixed = family.remoteRequirementsExtra?.(network);
    requirementsExtra = fixed ? async () => fixed : cachedSupportedExtra(remote, network.network);
    const upto = family.uptoRequirementsExtra;
    if (upto) {
      const supportedUpto = cachedSupportedKind(remote, network.network, "upto");
      uptoRequirementsExtra = async () => {
        const extra = await supportedUpto().catch(() => undefined);
        return extra ? upto(network, extra) : undefined;
      };
    }
  }
  return {
    network,
    facilitator,
    identify: (payload: PaymentPayload): IdentifyResult => family.identify(payload),
    replayReason: family.replayReason,
    expiringReason: family.expiringReason,
    checkSettlement: local ? (pending: PendingSettlement): Promise<SettlementCheck> => local.checkSettlement(pending) : undefined,
    requirementsExtra,
    uptoRequirementsExtra,
  };
}

/** The facilitator's `kinds[].extra` for our network (AVM: the fee payer), fetched once and kept; a failed fetch is retried next time. */
function cachedSupportedExtra(facilitator: Facilitator, network: string): () => Promise<Record<string, unknown>> {
  const kind = cachedSupportedKind(facilitator, network, "exact");
  return async () => {
    const extra = await kind();
    if (!extra) throw new Error(`the facilitator does not support exact on ${network}`);
    return extra;
  };
}

/** The extra of the facilitator's v2 kind for `scheme` on our network (undefined: not listed), fetched once and kept; a failed fetch is retried next time. */
function cachedSupportedKind(facilitator: Facilitator, network: string, scheme: string): () => Promise<Record<string, unknown> | undefined> {
  let cached: Promise<Record<string, unknown> | undefined> | undefined;
  return () => {
    cached ??= facilitator.supported().then(
      (supported) => {
        const kind = supported.kinds.find((k) => k.x402Version === 2 && k.scheme === scheme && k.network === network);
        return kind ? (kind.extra ?? {}) : undefined;
      },
      (error: unknown) => {
        cached = undefined;
        throw error;
      },
    );
    return cached;
  };
}
