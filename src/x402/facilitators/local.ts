/**
 * @module x402/facilitators/local — an in-process facilitator: routes verify/settle to the scheme
 * mechanism registered for the requirements' network. The same object backs the loopback
 * facilitator HTTP server in tests, so local and remote settlement share one implementation.
 */
import type { Facilitator, PendingSettlement, SchemeMechanism, SettleHooks, SettlementCheck } from "../facilitator.ts";
import { normalizeNetwork } from "../networks.ts";
import { reasons, type PaymentPayload, type PaymentRequirements, type SettleResponse, type SupportedResponse, type VerifyResponse } from "../messages.ts";

export interface LocalFacilitator extends Facilitator {
  checkSettlement(pending: PendingSettlement): Promise<SettlementCheck>;
  mechanismFor(network: string): SchemeMechanism | undefined;
}

export function createLocalFacilitator(mechanisms: readonly SchemeMechanism[]): LocalFacilitator {
  const byNetwork = new Map(mechanisms.map((m) => [m.network, m]));
  const mechanismFor = (network: string) => byNetwork.get(normalizeNetwork(network));

  return {
    mechanismFor,
    async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
      if (payload.x402Version !== 2) return { isValid: false, invalidReason: reasons.invalidVersion };
      const mechanism = mechanismFor(requirements.network);
      if (!mechanism) return { isValid: false, invalidReason: reasons.invalidNetwork };
      if (requirements.scheme !== mechanism.scheme) return { isValid: false, invalidReason: reasons.invalidScheme };
      return mechanism.verify(payload, requirements);
    },
    async settle(payload: PaymentPayload, requirements: PaymentRequirements, hooks?: SettleHooks): Promise<SettleResponse> {
      const mechanism = mechanismFor(requirements.network);
      if (!mechanism || requirements.scheme !== mechanism.scheme) {
        return { success: false, transaction: "", network: requirements.network, errorReason: mechanism ? reasons.invalidScheme : reasons.invalidNetwork };
      }
      return mechanism.settle(payload, requirements, hooks);
    },
    async supported(): Promise<SupportedResponse> {
      const signers: Record<string, string[]> = {};
      for (const m of mechanisms) {
        const key = `${m.network.split(":")[0]}:*`;
        signers[key] = [...new Set([...(signers[key] ?? []), ...m.signers()])];
      }
      return {
        kinds: mechanisms.map((m) => {
          const extra = m.family === "avm" ? m.requirementsExtra() : undefined;
          return { x402Version: 2, scheme: m.scheme, network: m.network, ...(extra ? { extra } : {}) };
        }),
        extensions: [],
        signers,
      };
    },
    async checkSettlement(pending: PendingSettlement): Promise<SettlementCheck> {
      const mechanism = mechanismFor(pending.network);
      if (!mechanism) return { state: "pending" };
      return mechanism.checkSettlement(pending);
    },
  };
}
