/**
 * @module x402/network-config — what every family's network entry shares (settlement mode, the
 * facilitator, secrets given inline or as a file, price columns): the pieces each family's
 * configuration part (family.ts FamilyConfig; evm/config.ts, avm/config.ts) is built from.
 */
import { readFileSync } from "node:fs";
import { type Static, Type } from "@sinclair/typebox";
import type { SharedNetworkSettings } from "./family.ts";

const Url = Type.String({ pattern: "^https?://" });
export { Url as UrlSchema };

export const FacilitatorConfig = Type.Object({
  url: Url,
  /** Extra headers sent on every facilitator call (e.g. an API key). */
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  timeoutMs: Type.Optional(Type.Integer({ minimum: 1, default: 30_000 })),
});
export type FacilitatorConfig = Static<typeof FacilitatorConfig>;

export const SettlementSchema = Type.Union([Type.Literal("local"), Type.Literal("remote")]);

export class X402ConfigError extends Error {
  override name = "X402ConfigError";
}

/** A secret given inline or as a file path, read once; never named in messages. */
export function readSecret(inline: string | undefined, file: string | undefined, what: string): string | undefined {
  if (inline !== undefined && file !== undefined) throw new X402ConfigError(`${what}: give the key inline or as a file, not both`);
  if (file === undefined) return inline?.trim();
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    throw new X402ConfigError(`${what}: the key file ${file} cannot be read`);
  }
}

/** The columns a network charges by: its name, its id, then its family's. */
export function priceColumnsOf(name: string, network: string, familyColumns: readonly string[]): readonly string[] {
  return [...new Set([name, network, ...familyColumns])];
}

/** The facilitator a network settles through remotely, and the check that remote settlement has one. */
export function remoteFacilitatorOf(entry: { readonly settlement: "local" | "remote"; readonly facilitator?: FacilitatorConfig | undefined }, shared: SharedNetworkSettings, network: string): FacilitatorConfig | undefined {
  const facilitator = entry.facilitator ?? shared.facilitator;
  if (entry.settlement === "remote" && !facilitator) throw new X402ConfigError(`network ${network}: remote settlement needs a facilitator url`);
  return facilitator;
}
