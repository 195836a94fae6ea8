/**
 * @module directory/listing-store — the directory's one table: agents and sellers the operator
 * lists, with what the background checker last saw of each. The contact column is private: only
 * `directory.intro` (paid) and the operator's CLI read it.
 */
import { randomBytes } from "node:crypto";
import type { Database, Migration } from "../store/db.ts";

export const directoryMigrations: Migration[] = [
  {
    id: "directory_0001_listings",
    sql: `CREATE TABLE directory_listings (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      description TEXT NOT NULL,
      tags TEXT NOT NULL,
      skills TEXT NOT NULL,
      endpoint TEXT,
      card_url TEXT,
      price_summary TEXT NOT NULL,
      networks TEXT NOT NULL,
      contact TEXT,
      state TEXT NOT NULL,
      listed_at TEXT NOT NULL,
      verified_at TEXT,
      checked_at TEXT,
      reachable INTEGER,
      open_for_work INTEGER,
      latency_ms INTEGER,
      check_error TEXT,
      removed_at TEXT
    );
    CREATE INDEX directory_listings_state ON directory_listings (state, listed_at);
    CREATE INDEX directory_listings_checked ON directory_listings (state, checked_at);`,
  },
];

export type ListingState = "listed" | "removed";

/** Skill id → dollar price, as the listing's card or capabilities state it. */
export type PriceSummary = Record<string, string>;

export interface Listing {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly skills: readonly string[];
  readonly endpoint: string | null;
  readonly cardUrl: string | null;
  readonly priceSummary: PriceSummary;
  readonly networks: readonly string[];
  readonly contact: string | null;
  readonly state: ListingState;
  readonly listedAt: string;
  /** Last time a check reached it and read its card or capabilities. */
  readonly verifiedAt: string | null;
  readonly checkedAt: string | null;
  readonly reachable: boolean | null;
  readonly openForWork: boolean | null;
  readonly latencyMs: number | null;
  readonly checkError: string | null;
}

export type NewListing = Pick<Listing, "name" | "description" | "tags" | "skills" | "endpoint" | "cardUrl" | "priceSummary" | "networks" | "contact"> & {
  /** Set when the card was read while listing it. */
  readonly verifiedAt?: Date;
  readonly latencyMs?: number;
};

/** What one check saw. Fields it could not read stay as they were. */
export interface CheckOutcome {
  readonly at: Date;
  readonly reachable: boolean;
  readonly latencyMs: number | null;
  readonly openForWork?: boolean | null;
  readonly error?: string | null;
  readonly skills?: readonly string[];
  readonly priceSummary?: PriceSummary;
  readonly networks?: readonly string[];
}

export interface ListingPage {
  readonly listings: Listing[];
  readonly total: number;
}

/**
 * The directory's table family (issue 28): one asynchronous interface, two engines — SQLite here
 * (the default) and PostgreSQL (listing-pg.ts).
 */
export interface ListingStore {
  add(listing: NewListing, now: Date): Promise<Listing>;
  get(id: string): Promise<Listing | undefined>;
  /** Listed entries, newest first, filtered by tag or skill (exact, case-insensitive). */
  page(options: { tag?: string | undefined; skill?: string | undefined; offset: number; limit: number }): Promise<ListingPage>;
  listAll(options?: { includeRemoved?: boolean }): Promise<Listing[]>;
  remove(id: string, now: Date): Promise<boolean>;
  /** The listed entries checked longest ago (never-checked first). */
  dueForCheck(limit: number): Promise<Listing[]>;
  recordCheck(id: string, outcome: CheckOutcome): Promise<void>;
  counts(): Promise<{ listed: number; reachable: number; openForWork: number }>;
}

/** 64 random bits: listing ids are public. */
export const newListingId = () => `lst_${randomBytes(8).toString("hex")}`;

export interface ListingRow {
  id: string;
  name: string;
  description: string;
  tags: string;
  skills: string;
  endpoint: string | null;
  card_url: string | null;
  price_summary: string;
  networks: string;
  contact: string | null;
  state: string;
  listed_at: string;
  verified_at: string | null;
  checked_at: string | null;
  reachable: number | null;
  open_for_work: number | null;
  latency_ms: number | null;
  check_error: string | null;
}

const bool = (v: number | null) => (v === null ? null : v === 1);

export function toListing(r: ListingRow): Listing {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    tags: JSON.parse(r.tags) as string[],
    skills: JSON.parse(r.skills) as string[],
    endpoint: r.endpoint,
    cardUrl: r.card_url,
    priceSummary: JSON.parse(r.price_summary) as PriceSummary,
    networks: JSON.parse(r.networks) as string[],
    contact: r.contact,
    state: r.state as ListingState,
    listedAt: r.listed_at,
    verifiedAt: r.verified_at,
    checkedAt: r.checked_at,
    reachable: bool(r.reachable),
    openForWork: bool(r.open_for_work),
    latencyMs: r.latency_ms,
    checkError: r.check_error,
  };
}

const lower = (values: readonly string[]) => values.map((v) => v.toLowerCase());

/** One page of listed entries (newest first) matching a tag or skill: filtered here, the directory is operator-sized. */
export function pageOf(listed: Listing[], { tag, skill, offset, limit }: { tag?: string | undefined; skill?: string | undefined; offset: number; limit: number }): ListingPage {
  const wantTag = tag?.toLowerCase();
  const wantSkill = skill?.toLowerCase();
  const matching = listed.filter((l) => (!wantTag || lower(l.tags).includes(wantTag)) && (!wantSkill || lower(l.skills).includes(wantSkill)));
  return { listings: matching.slice(offset, offset + limit), total: matching.length };
}

/** The columns of a new listing, the same for either engine (`reachable` 1 when its card was read). */
export function newListingColumns(listing: NewListing, now: Date) {
  return {
    id: newListingId(),
    name: listing.name,
    description: listing.description,
    tags: JSON.stringify(listing.tags),
    skills: JSON.stringify(listing.skills),
    endpoint: listing.endpoint,
    card_url: listing.cardUrl,
    price_summary: JSON.stringify(listing.priceSummary),
    networks: JSON.stringify(listing.networks),
    contact: listing.contact,
    state: "listed",
    listed_at: now.toISOString(),
    verified_at: listing.verifiedAt ? listing.verifiedAt.toISOString() : null,
    latency_ms: listing.latencyMs ?? null,
    reachable: listing.verifiedAt ? 1 : null,
  };
}

/** The columns one check sets (null: keep what was there; `open_for_work` and `verified_at` only change when reached). */
export function checkColumns(o: CheckOutcome) {
  return {
    at: o.at.toISOString(),
    reachable: o.reachable ? 1 : 0,
    latency: o.latencyMs,
    error: o.error ?? null,
    open: o.openForWork === undefined || o.openForWork === null ? null : o.openForWork ? 1 : 0,
    skills: o.skills ? JSON.stringify(o.skills) : null,
    prices: o.priceSummary ? JSON.stringify(o.priceSummary) : null,
    networks: o.networks ? JSON.stringify(o.networks) : null,
  };
}

export function createListingStore(db: Database): ListingStore {
  const insert = db.prepare(
    `INSERT INTO directory_listings (id, name, description, tags, skills, endpoint, card_url, price_summary, networks, contact, state, listed_at, verified_at, latency_ms, reachable)
     VALUES ($id, $name, $description, $tags, $skills, $endpoint, $card_url, $price_summary, $networks, $contact, $state, $listed_at, $verified_at, $latency_ms, $reachable)`,
  );
  const get = db.prepare<ListingRow, [string]>("SELECT * FROM directory_listings WHERE id = ?");
  const listed = db.prepare<ListingRow, []>("SELECT * FROM directory_listings WHERE state = 'listed' ORDER BY listed_at DESC, rowid DESC");
  const everything = db.prepare<ListingRow, []>("SELECT * FROM directory_listings ORDER BY listed_at DESC, rowid DESC");
  const remove = db.prepare<unknown, [string, string]>("UPDATE directory_listings SET state = 'removed', removed_at = ? WHERE id = ? AND state = 'listed'");
  const due = db.prepare<ListingRow, [number]>(
    "SELECT * FROM directory_listings WHERE state = 'listed' ORDER BY checked_at IS NOT NULL, checked_at, rowid LIMIT ?",
  );
  const check = db.prepare(
    `UPDATE directory_listings SET checked_at = $at, reachable = $reachable, latency_ms = $latency, check_error = $error,
       verified_at = CASE WHEN $reachable = 1 THEN $at ELSE verified_at END,
       open_for_work = CASE WHEN $reachable = 1 THEN $open ELSE open_for_work END,
       skills = COALESCE($skills, skills), price_summary = COALESCE($prices, price_summary), networks = COALESCE($networks, networks)
     WHERE id = $id`,
  );

  const byId = (id: string) => {
    const row = get.get(id);
    return row ? toListing(row) : undefined;
  };

  return {
    async add(listing, now) {
      const row = newListingColumns(listing, now);
      insert.run(row);
      return byId(row.id)!;
    },
    get: async (id) => byId(id),
    page: async (options) => pageOf(listed.all().map(toListing), options),
    listAll: async (options = {}) => (options.includeRemoved ? everything : listed).all().map(toListing),
    remove: async (id, now) => remove.run(now.toISOString(), id).changes === 1,
    dueForCheck: async (limit) => due.all(limit).map(toListing),
    async recordCheck(id, o) {
      check.run({ id, ...checkColumns(o) });
    },
    async counts() {
      const rows = listed.all();
      return {
        listed: rows.length,
        reachable: rows.filter((r) => r.reachable === 1).length,
        openForWork: rows.filter((r) => r.open_for_work === 1).length,
      };
    },
  };
}
