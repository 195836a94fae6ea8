/**
 * @module directory/service — the directory inside a running server: the free documents (never
 * a contact), the `ctx.directory` facet the intro and survey skills read, and the background
 * checker that re-reads a few listings a minute through the guarded fetch.
 */
import { type Static, Type as t, type TSchema } from "@sinclair/typebox";
import { ApiError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { WebEngine } from "../web/engine.ts";
import type { Listing, ListingStore } from "./listing-store.ts";
import { capabilitiesUrl, checkListing } from "./probe.ts";

export const ListingIdSchema = t.String({ pattern: "^lst_[0-9a-f]{16}$", description: "A listing id from GET /v1/directory/listings." });

const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);
const Prices = t.Record(t.String(), t.String(), { description: "skill id → dollar price" });

export const IntroPackSchema = t.Object({
  listing_id: t.String(),
  name: t.String(),
  description: t.String(),
  contact: Nullable(t.String()),
  endpoints: t.Object({ service: Nullable(t.String()), agent_card: Nullable(t.String()), capabilities: Nullable(t.String()) }),
  payment: t.Object({ protocol: Nullable(t.String()), networks: t.Array(t.String()), price_summary: Prices }),
  skills: t.Array(t.String()),
  tags: t.Array(t.String()),
  listed_at: t.String(),
  verified_at: Nullable(t.String({ description: "Last time a check read its card or capabilities." })),
  last_check: t.Object({ checked_at: Nullable(t.String()), reachable: Nullable(t.Boolean()), open_for_work: Nullable(t.Boolean()), latency_ms: Nullable(t.Integer()), error: Nullable(t.String()) }),
});

export const PeerSurveySchema = t.Object({
  generated_at: t.String(),
  peers: t.Array(
    t.Object({
      listing_id: t.String(),
      name: t.String(),
      endpoint: Nullable(t.String()),
      skills: t.Array(t.String()),
      tags: t.Array(t.String()),
      prices: Prices,
      networks: t.Array(t.String()),
      reachable: Nullable(t.Boolean()),
      open_for_work: Nullable(t.Boolean()),
      latency_ms: Nullable(t.Integer()),
      seen_at: Nullable(t.String({ description: "Last time a check reached it." })),
      checked_at: Nullable(t.String()),
    }),
  ),
  skills: t.Array(t.Object({ skill: t.String(), peers: t.Integer(), lowest_price_usd: Nullable(t.String()) })),
  counts: t.Object({ listed: t.Integer(), reachable: t.Integer(), open_for_work: t.Integer(), never_checked: t.Integer() }),
});

export const maxPageSize = 100;
export const defaultPageSize = 20;
/** One check's time limit (card and capabilities together). */
const checkTimeoutMs = 20_000;

/** A listing as anyone may see it: no contact. */
export function publicListing(l: Listing) {
  return {
    id: l.id,
    name: l.name,
    description: l.description,
    tags: l.tags,
    skills: l.skills,
    endpoint: l.endpoint,
    agent_card_url: l.cardUrl,
    price_summary: l.priceSummary,
    networks: l.networks,
    state: l.state,
    listed_at: l.listedAt,
    last_verified_at: l.verifiedAt,
    check: { checked_at: l.checkedAt, reachable: l.reachable, open_for_work: l.openForWork, latency_ms: l.latencyMs },
  };
}

/** What `directory.intro` sells: how to reach and pay the listed agent. */
export function introPack(l: Listing): Static<typeof IntroPackSchema> {
  return {
    listing_id: l.id,
    name: l.name,
    description: l.description,
    contact: l.contact,
    endpoints: {
      service: l.endpoint,
      agent_card: l.cardUrl,
      capabilities: capabilitiesUrl(l) ?? null,
    },
    payment: { protocol: l.networks.length ? "x402" : null, networks: [...l.networks], price_summary: { ...l.priceSummary } },
    skills: [...l.skills],
    tags: [...l.tags],
    listed_at: l.listedAt,
    verified_at: l.verifiedAt,
    last_check: { checked_at: l.checkedAt, reachable: l.reachable, open_for_work: l.openForWork, latency_ms: l.latencyMs, error: l.checkError },
  };
}

function surveyPeer(l: Listing): Static<typeof PeerSurveySchema>["peers"][number] {
  return {
    listing_id: l.id,
    name: l.name,
    endpoint: l.endpoint,
    skills: [...l.skills],
    tags: [...l.tags],
    prices: { ...l.priceSummary },
    networks: [...l.networks],
    reachable: l.reachable,
    open_for_work: l.openForWork,
    latency_ms: l.latencyMs,
    seen_at: l.verifiedAt,
    checked_at: l.checkedAt,
  };
}

/** What `ctx.directory` offers a skill file. */
export interface DirectoryFacet {
  /** The listing's contact pack: 404 unknown, 410 removed. */
  intro(listingId: string): Promise<Static<typeof IntroPackSchema>>;
  /** Peer intelligence from the stored rows and checks; no network access. */
  survey(): Promise<Static<typeof PeerSurveySchema>>;
}

export interface DirectoryDocs {
  overview(baseUrl: string): Promise<unknown>;
  listings(query: URLSearchParams): Promise<unknown>;
  /** Listed sellers: the circle of peers (for /v1/circle). */
  peers(): Promise<ReturnType<typeof publicListing>[]>;
}

export interface DirectoryService {
  readonly facet: DirectoryFacet;
  readonly docs: DirectoryDocs;
  /** Checks the listings due (bounded); the checker calls it on its timer. */
  checkDue(limit: number): Promise<number>;
  stop(): void;
}

export interface DirectoryServiceDeps {
  readonly listings: ListingStore;
  readonly web: WebEngine;
  readonly log: Logger;
  readonly now: () => Date;
  /** 0: no background checks. */
  readonly checksPerMin: number;
}

async function listingOrRefusal(listings: ListingStore, id: string): Promise<Listing> {
  const listing = await listings.get(id);
  if (!listing) throw new ApiError("DIRECTORY_LISTING_NOT_FOUND", { message: `No directory listing ${id}; see GET /v1/directory/listings. Nothing was charged.` });
  if (listing.state === "removed") throw new ApiError("DIRECTORY_LISTING_REMOVED");
  return listing;
}

function lowestPrice(prices: string[]): string | null {
  if (prices.length === 0) return null;
  return prices.reduce((a, b) => (Number(b) < Number(a) ? b : a));
}

function pageParam(query: URLSearchParams, name: string, fallback: number, max: number): number {
  const raw = query.get(name);
  if (raw === null || raw === "") return fallback;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) > max) {
    throw new ApiError("INVALID_REQUEST", { message: `Query parameter ${name} must be an integer from 0 to ${max}.` });
  }
  return Number(raw);
}

export function createDirectoryService(deps: DirectoryServiceDeps): DirectoryService {
  const { listings, web, log, now } = deps;

  const facet: DirectoryFacet = {
    intro: async (id) => introPack(await listingOrRefusal(listings, id)),
    async survey() {
      const all = await listings.listAll();
      const bySkill = new Map<string, string[]>();
      const peersBySkill = new Map<string, number>();
      for (const l of all) {
        for (const skill of l.skills) {
          peersBySkill.set(skill, (peersBySkill.get(skill) ?? 0) + 1);
          const price = l.priceSummary[skill];
          if (price !== undefined) bySkill.set(skill, [...(bySkill.get(skill) ?? []), price]);
        }
      }
      return {
        generated_at: now().toISOString(),
        peers: all.map(surveyPeer),
        skills: [...peersBySkill].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([skill, peers]) => ({ skill, peers, lowest_price_usd: lowestPrice(bySkill.get(skill) ?? []) })),
        counts: {
          listed: all.length,
          reachable: all.filter((l) => l.reachable === true).length,
          open_for_work: all.filter((l) => l.openForWork === true).length,
          never_checked: all.filter((l) => l.checkedAt === null).length,
        },
      };
    },
  };

  const docs: DirectoryDocs = {
    async overview(baseUrl) {
      const counts = await listings.counts();
      const tags = new Map<string, number>();
      for (const l of await listings.listAll()) for (const tag of l.tags) tags.set(tag, (tags.get(tag) ?? 0) + 1);
      return {
        ok: true,
        directory: "agents and sellers listed by this server's operator",
        description:
          "Listings describe other agents or sellers: name, skills, endpoint, agent card, prices, payment networks, and what a background check last saw (reachable, open_for_work, latency). Contact details are private and sold by the directory.intro skill.",
        counts: { listed: counts.listed, reachable: counts.reachable, open_for_work: counts.openForWork },
        top_tags: [...tags].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 20).map(([tag, n]) => ({ tag, listings: n })),
        listings: new URL("/v1/directory/listings", baseUrl).toString(),
        query: { tag: "only listings with this tag", skill: "only listings selling this skill id", offset: "skip this many (default 0)", limit: `page size (default ${defaultPageSize}, at most ${maxPageSize})` },
        paid: {
          "directory.intro": 'POST /v1/jobs {"skill": "directory.intro", "listing_id": ID}: the contact pack (endpoints, card, payment networks, contact) with when it was verified.',
          "network.peer_survey": 'POST /v1/jobs {"skill": "network.peer_survey"}: every peer with skills, prices, reachability, open_for_work, latency and when it was seen.',
        },
        how_to_be_listed:
          "Listings are added by the operator (tollbooth directory add --card URL). Publish an A2A agent card (/.well-known/agent-card.json) with your skills, prices and x402 networks, and a free /v1/capabilities with open_for_work, then send its URL to the operator named in this server's User-Agent contact URL.",
        checks: `A background check re-reads listed cards and capabilities through a guarded fetch (robots.txt honoured), ${deps.checksPerMin} per minute.`,
      };
    },
    async listings(query) {
      const limit = pageParam(query, "limit", defaultPageSize, maxPageSize) || defaultPageSize;
      const offset = pageParam(query, "offset", 0, 1_000_000);
      const tag = query.get("tag")?.trim().slice(0, 40) || undefined;
      const skill = query.get("skill")?.trim().slice(0, 80) || undefined;
      const page = await listings.page({ tag, skill, offset, limit });
      return {
        ok: true,
        total: page.total,
        offset,
        limit,
        ...(tag ? { tag } : {}),
        ...(skill ? { skill } : {}),
        next_offset: offset + page.listings.length < page.total ? offset + page.listings.length : null,
        listings: page.listings.map(publicListing),
      };
    },
    peers: async () => (await listings.listAll()).map(publicListing),
  };

  let checking = false;
  async function checkDue(limit: number): Promise<number> {
    if (checking || limit <= 0) return 0;
    checking = true;
    let done = 0;
    try {
      for (const listing of await listings.dueForCheck(limit)) {
        const outcome = await checkListing(web, listing, AbortSignal.timeout(checkTimeoutMs), now);
        await listings.recordCheck(listing.id, outcome);
        done++;
      }
    } finally {
      checking = false;
    }
    return done;
  }

  // A few per minute, one at a time: the directory never loads a listed server.
  const timer = deps.checksPerMin > 0
    ? setInterval(() => void checkDue(1).catch((error: Error) => log.warn("directory check failed", { error: error.message })), Math.round(60_000 / deps.checksPerMin))
    : undefined;
  timer?.unref?.();

  return { facet, docs, checkDue, stop: () => timer && clearInterval(timer) };
}
