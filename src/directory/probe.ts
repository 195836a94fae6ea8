/**
 * @module directory/probe — reads what a listed agent publishes about itself, only through the
 * web engine's guarded fetch (public addresses only, robots.txt honoured, size and time capped):
 * its A2A agent card, and its free capabilities probe for open_for_work, skills and prices.
 */
import { ApiError } from "../errors.ts";
import type { WebEngine } from "../web/engine.ts";
import type { CheckOutcome, Listing, PriceSummary } from "./listing-store.ts";

/** A card or capabilities document is small; anything bigger is not one. */
const maxDocumentBytes = 256 * 1024;
const maxItems = 50;
const text = (v: unknown, max: number) => (typeof v === "string" ? v.trim().slice(0, max) : "");

export interface CardFacts {
  readonly name: string;
  readonly description: string;
  readonly endpoint: string | null;
  readonly skills: string[];
  readonly tags: string[];
  readonly priceSummary: PriceSummary;
  readonly networks: string[];
}

/** A price as cards write it: "0.01", 0.01, or {base: "0.01", ...} / {amount: "0.01"}. */
function priceText(price: unknown): string | undefined {
  if (typeof price === "string" && /^\d+(\.\d+)?$/.test(price)) return price;
  if (typeof price === "number" && Number.isFinite(price) && price >= 0) return String(price);
  if (price && typeof price === "object") {
    const p = price as Record<string, unknown>;
    for (const key of ["base", "amount", "usd", "price"]) {
      const found = priceText(p[key]);
      if (found) return found;
    }
  }
  return undefined;
}

function networksOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [];
  return [...new Set(list.map((n) => (typeof n === "string" ? n : text((n as { network?: unknown })?.network, 64))).filter(Boolean))].slice(0, 10);
}

/** The listing fields an A2A agent card (v0.3 or v1.0) gives; throws when it is not a card. */
export function parseAgentCard(json: unknown): CardFacts {
  if (!json || typeof json !== "object" || Array.isArray(json)) throw new Error("the card is not a JSON object");
  const card = json as Record<string, unknown>;
  const name = text(card.name, 120);
  if (!name) throw new Error("the card has no name");
  const interfaces = Array.isArray(card.supportedInterfaces) ? (card.supportedInterfaces as { url?: unknown }[]) : [];
  const endpoint = text(card.url, 2048) || text(interfaces[0]?.url, 2048) || null;
  const skills = (Array.isArray(card.skills) ? (card.skills as Record<string, unknown>[]) : []).slice(0, maxItems);
  const priceSummary: PriceSummary = {};
  const tags = new Set<string>();
  for (const skill of skills) {
    const id = text(skill?.id, 80) || text(skill?.name, 80);
    if (!id) continue;
    const price = priceText(skill.price);
    if (price) priceSummary[id] = price;
    for (const tag of Array.isArray(skill.tags) ? skill.tags : []) if (typeof tag === "string" && tag.trim()) tags.add(tag.trim().toLowerCase().slice(0, 40));
  }
  const payments = card.payments as { networks?: unknown } | undefined;
  return {
    name,
    description: text(card.description, 1000),
    endpoint,
    skills: skills.map((s) => text(s?.id, 80) || text(s?.name, 80)).filter(Boolean),
    tags: [...tags].slice(0, 20),
    priceSummary,
    networks: networksOf(payments?.networks),
  };
}

/** One guarded GET of a JSON document, timed. */
export async function fetchJson(web: WebEngine, url: string, signal: AbortSignal): Promise<{ json: unknown; latencyMs: number }> {
  const started = performance.now();
  const fetched = await web.fetchBytes(url, { maxBytes: maxDocumentBytes, tooLargeCode: "SOURCE_TOO_LARGE", signal });
  const latencyMs = Math.round(performance.now() - started);
  try {
    return { json: JSON.parse(new TextDecoder("utf-8").decode(fetched.bytes)), latencyMs };
  } catch {
    throw new Error(`${url} did not answer with JSON`);
  }
}

export async function readAgentCard(web: WebEngine, cardUrl: string, signal: AbortSignal): Promise<CardFacts & { latencyMs: number }> {
  const { json, latencyMs } = await fetchJson(web, cardUrl, signal);
  return { ...parseAgentCard(json), latencyMs };
}

/** Where a listing's free capabilities probe is: /v1/capabilities beside its endpoint or card. */
export function capabilitiesUrl(listing: Pick<Listing, "endpoint" | "cardUrl">): string | undefined {
  const base = listing.endpoint ?? listing.cardUrl;
  if (!base) return undefined;
  try {
    return new URL("/v1/capabilities", base).toString();
  } catch {
    return undefined;
  }
}

function capabilityFacts(json: unknown): Pick<CheckOutcome, "openForWork" | "skills" | "priceSummary" | "networks"> {
  if (!json || typeof json !== "object") return {};
  const caps = json as Record<string, unknown>;
  const out: { openForWork?: boolean; skills?: string[]; priceSummary?: PriceSummary; networks?: string[] } = {};
  if (typeof caps.open_for_work === "boolean") out.openForWork = caps.open_for_work;
  if (Array.isArray(caps.skills)) out.skills = caps.skills.filter((s): s is string => typeof s === "string").slice(0, maxItems);
  if (Array.isArray(caps.catalogue)) {
    const prices: PriceSummary = {};
    for (const entry of (caps.catalogue as Record<string, unknown>[]).slice(0, maxItems)) {
      const id = text(entry?.id, 80);
      const price = priceText(entry?.price);
      if (id && price) prices[id] = price;
    }
    if (Object.keys(prices).length) out.priceSummary = prices;
  }
  const networks = networksOf((caps.payments as { networks?: unknown } | undefined)?.networks);
  if (networks.length) out.networks = networks;
  return out;
}

const reasonOf = (error: unknown) => (error instanceof ApiError ? `${error.code}: ${error.message}` : (error as Error).message).slice(0, 300);

/**
 * Re-reads a listing: its card (when it has one) and its capabilities probe. Reachable when
 * either answered; the capabilities' open_for_work, skills and prices replace the stored ones.
 */
export async function checkListing(web: WebEngine, listing: Listing, signal: AbortSignal, now: () => Date): Promise<CheckOutcome> {
  const errors: string[] = [];
  let latencyMs: number | null = null;
  let reachable = false;
  let facts: Pick<CheckOutcome, "openForWork" | "skills" | "priceSummary" | "networks"> = {};
  if (listing.cardUrl) {
    try {
      const card = await readAgentCard(web, listing.cardUrl, signal);
      reachable = true;
      latencyMs = card.latencyMs;
      facts = {
        ...(card.skills.length ? { skills: card.skills } : {}),
        ...(Object.keys(card.priceSummary).length ? { priceSummary: card.priceSummary } : {}),
        ...(card.networks.length ? { networks: card.networks } : {}),
      };
    } catch (error) {
      errors.push(`card: ${reasonOf(error)}`);
    }
  }
  const capsUrl = capabilitiesUrl(listing);
  if (capsUrl) {
    try {
      const caps = await fetchJson(web, capsUrl, signal);
      reachable = true;
      latencyMs = latencyMs === null ? caps.latencyMs : Math.min(latencyMs, caps.latencyMs);
      // The card lists every paid endpoint, the capabilities probe the job skills and fresher prices: keep both.
      const fromCaps = capabilityFacts(caps.json);
      facts = {
        ...facts,
        ...fromCaps,
        ...(fromCaps.skills || facts.skills ? { skills: [...new Set([...(facts.skills ?? []), ...(fromCaps.skills ?? [])])].slice(0, maxItems) } : {}),
        ...(fromCaps.priceSummary || facts.priceSummary ? { priceSummary: { ...facts.priceSummary, ...fromCaps.priceSummary } } : {}),
      };
    } catch (error) {
      errors.push(`capabilities: ${reasonOf(error)}`);
    }
  }
  return { at: now(), reachable, latencyMs, error: errors.length ? errors.join("; ") : null, ...(reachable ? facts : {}) };
}
