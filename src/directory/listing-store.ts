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

export interface ListingStore {
  add(listing: NewListing, now: Date): Listing;
  get(id: string): Listing | undefined;
  /** Listed entries, newest first, filtered by tag or skill (exact, case-insensitive). */
  page(options: { tag?: string; skill?: string; offset: number; limit: number }): ListingPage;
  listAll(options?: { includeRemoved?: boolean }): Listing[];
  remove(id: string, now: Date): boolean;
  /** The listed entries checked longest ago (never-checked first). */
  dueForCheck(limit: number): Listing[];
  recordCheck(id: string, outcome: CheckOutcome): void;
  counts(): { listed: number; reachable: number; openForWork: number };
}

/** 64 random bits: listing ids are public. */
export const newListingId = () => `lst_${randomBytes(8).toString("hex")}`;

interface Row {
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

function toListing(r: Row): Listing {
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

export function createListingStore(db: Database): ListingStore {
  const insert = db.prepare(
    `INSERT INTO directory_listings (id, name, description, tags, skills, endpoint, card_url, price_summary, networks, contact, state, listed_at, verified_at, latency_ms, reachable)
     VALUES ($id, $name, $description, $tags, $skills, $endpoint, $card, $prices, $networks, $contact, 'listed', $at, $verified, $latency, $reachable)`,
  );
  const get = db.prepare<Row, [string]>("SELECT * FROM directory_listings WHERE id = ?");
  const listed = db.prepare<Row, []>("SELECT * FROM directory_listings WHERE state = 'listed' ORDER BY listed_at DESC, rowid DESC");
  const everything = db.prepare<Row, []>("SELECT * FROM directory_listings ORDER BY listed_at DESC, rowid DESC");
  const remove = db.prepare<unknown, [string, string]>("UPDATE directory_listings SET state = 'removed', removed_at = ? WHERE id = ? AND state = 'listed'");
  const due = db.prepare<Row, [number]>(
    "SELECT * FROM directory_listings WHERE state = 'listed' ORDER BY checked_at IS NOT NULL, checked_at, rowid LIMIT ?",
  );
  const check = db.prepare(
    `UPDATE directory_listings SET checked_at = $at, reachable = $reachable, latency_ms = $latency, check_error = $error,
       verified_at = CASE WHEN $reachable = 1 THEN $at ELSE verified_at END,
       open_for_work = CASE WHEN $reachable = 1 THEN $open ELSE open_for_work END,
       skills = COALESCE($skills, skills), price_summary = COALESCE($prices, price_summary), networks = COALESCE($networks, networks)
     WHERE id = $id`,
  );

  return {
    add(listing, now) {
      const id = newListingId();
      insert.run({
        id,
        name: listing.name,
        description: listing.description,
        tags: JSON.stringify(listing.tags),
        skills: JSON.stringify(listing.skills),
        endpoint: listing.endpoint,
        card: listing.cardUrl,
        prices: JSON.stringify(listing.priceSummary),
        networks: JSON.stringify(listing.networks),
        contact: listing.contact,
        at: now.toISOString(),
        verified: listing.verifiedAt ? listing.verifiedAt.toISOString() : null,
        latency: listing.latencyMs ?? null,
        reachable: listing.verifiedAt ? 1 : null,
      });
      return toListing(get.get(id)!);
    },
    get(id) {
      const row = get.get(id);
      return row ? toListing(row) : undefined;
    },
    page({ tag, skill, offset, limit }) {
      // Tags and skills are JSON arrays: filtered here, the directory is operator-sized.
      const wantTag = tag?.toLowerCase();
      const wantSkill = skill?.toLowerCase();
      const matching = listed
        .all()
        .map(toListing)
        .filter((l) => (!wantTag || lower(l.tags).includes(wantTag)) && (!wantSkill || lower(l.skills).includes(wantSkill)));
      return { listings: matching.slice(offset, offset + limit), total: matching.length };
    },
    listAll: (options = {}) => (options.includeRemoved ? everything : listed).all().map(toListing),
    remove: (id, now) => remove.run(now.toISOString(), id).changes === 1,
    dueForCheck: (limit) => due.all(limit).map(toListing),
    recordCheck(id, o) {
      check.run({
        id,
        at: o.at.toISOString(),
        reachable: o.reachable ? 1 : 0,
        latency: o.latencyMs,
        error: o.error ?? null,
        open: o.openForWork === undefined || o.openForWork === null ? null : o.openForWork ? 1 : 0,
        skills: o.skills ? JSON.stringify(o.skills) : null,
        prices: o.priceSummary ? JSON.stringify(o.priceSummary) : null,
        networks: o.networks ? JSON.stringify(o.networks) : null,
      });
    },
    counts() {
      const rows = listed.all();
      return {
        listed: rows.length,
        reachable: rows.filter((r) => r.reachable === 1).length,
        openForWork: rows.filter((r) => r.open_for_work === 1).length,
      };
    },
  };
}
