/**
 * One contract for the directory's listings on SQLite and on a real PostgreSQL (issue 28): the same
 * listings, pages, checks and counts from either engine and either of two instances.
 */
import { describe, expect, it } from "bun:test";
import { createPgListingStore, directoryPgMigrations } from "../../src/directory/listing-pg.ts";
import { createListingStore, directoryMigrations, type ListingStore, type NewListing } from "../../src/directory/listing-store.ts";
import { storeEngines, withInstances } from "../support/store-engines.ts";

const engines = storeEngines<ListingStore>("directory", { sqliteMigrations: directoryMigrations, sqlite: createListingStore, pgMigrations: directoryPgMigrations, pg: createPgListingStore });

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, seconds));
const agent = (name: string, extra: Partial<NewListing> = {}): NewListing => ({
  name,
  description: `${name} sells things`,
  tags: ["Crawl", "pdf"],
  skills: ["crawl.site"],
  endpoint: `https://${name}.example/a2a`,
  cardUrl: null,
  priceSummary: { "crawl.site": "0.2" },
  networks: ["eip155:8453"],
  contact: `ops@${name}.example`,
  ...extra,
});

for (const engine of engines) {
  describe.skipIf(engine.skip)(`directory listings on ${engine.name}`, () => {
    it(
      "lists agents and reads them back the same from the other instance; pages by tag and skill, newest first",
      withInstances(engine, async ({ one, two }) => {
        const a = await one.add(agent("alpha"), at(0));
        expect(a).toMatchObject({ name: "alpha", tags: ["Crawl", "pdf"], priceSummary: { "crawl.site": "0.2" }, state: "listed", listedAt: at(0).toISOString(), verifiedAt: null, reachable: null, openForWork: null, latencyMs: null, checkedAt: null });
        expect(a.id).toMatch(/^lst_[0-9a-f]{16}$/);
        expect(await two.get(a.id)).toEqual(a);
        const b = await two.add(agent("beta", { tags: ["news"], skills: ["web.brief"], cardUrl: "https://beta.example/.well-known/agent-card.json", verifiedAt: at(1), latencyMs: 42 }), at(1));
        expect(b).toMatchObject({ verifiedAt: at(1).toISOString(), reachable: true, latencyMs: 42 });
        const c = await one.add(agent("gamma"), at(1));
        expect(await one.page({ offset: 0, limit: 10 })).toMatchObject({ total: 3, listings: [{ id: c.id }, { id: b.id }, { id: a.id }] });
        expect(await two.page({ tag: "crawl", offset: 0, limit: 1 })).toMatchObject({ total: 2, listings: [{ id: c.id }] });
        expect(await two.page({ tag: "crawl", offset: 1, limit: 5 })).toMatchObject({ total: 2, listings: [{ id: a.id }] });
        expect(await two.page({ skill: "WEB.BRIEF", offset: 0, limit: 5 })).toMatchObject({ total: 1, listings: [{ id: b.id }] });
        expect(await one.remove(c.id, at(2))).toBe(true);
        expect(await two.remove(c.id, at(3))).toBe(false);
        expect((await two.listAll()).map((l) => l.id)).toEqual([b.id, a.id]);
        expect((await two.listAll({ includeRemoved: true })).map((l) => l.id)).toEqual([c.id, b.id, a.id]);
        expect(await one.get(c.id)).toMatchObject({ state: "removed" });
        expect(await one.get("lst_none")).toBeUndefined();
      }),
      30_000,
    );

    it(
      "checks the longest-unchecked first and records what a check saw, keeping what it could not read",
      withInstances(engine, async ({ one, two }) => {
        const a = await one.add(agent("alpha"), at(0));
        const b = await one.add(agent("beta"), at(1));
        expect((await two.dueForCheck(5)).map((l) => l.id)).toEqual([a.id, b.id]);
        await two.recordCheck(a.id, { at: at(10), reachable: true, latencyMs: 80, openForWork: true, skills: ["crawl.site", "pdf.read"], priceSummary: { "pdf.read": "0.01" } });
        expect(await one.get(a.id)).toMatchObject({ checkedAt: at(10).toISOString(), verifiedAt: at(10).toISOString(), reachable: true, openForWork: true, latencyMs: 80, skills: ["crawl.site", "pdf.read"], priceSummary: { "pdf.read": "0.01" }, networks: ["eip155:8453"], checkError: null });
        expect((await one.dueForCheck(5)).map((l) => l.id)).toEqual([b.id, a.id]);
        await one.recordCheck(b.id, { at: at(11), reachable: false, latencyMs: null, error: "timeout" });
        await one.recordCheck(a.id, { at: at(12), reachable: false, latencyMs: null, openForWork: false, error: "refused" });
        expect(await two.get(a.id)).toMatchObject({ checkedAt: at(12).toISOString(), verifiedAt: at(10).toISOString(), reachable: false, openForWork: true, checkError: "refused", skills: ["crawl.site", "pdf.read"] });
        expect((await two.dueForCheck(1)).map((l) => l.id)).toEqual([b.id]);
        await two.recordCheck(b.id, { at: at(13), reachable: true, latencyMs: 5, openForWork: null });
        expect(await one.get(b.id)).toMatchObject({ reachable: true, openForWork: null, verifiedAt: at(13).toISOString() });
        expect(await one.counts()).toEqual({ listed: 2, reachable: 1, openForWork: 1 });
        await one.recordCheck(a.id, { at: at(14), reachable: true, latencyMs: 5, openForWork: true });
        expect(await two.counts()).toEqual({ listed: 2, reachable: 2, openForWork: 1 });
        await two.remove(a.id, at(15));
        expect(await one.counts()).toEqual({ listed: 1, reachable: 1, openForWork: 0 });
      }),
      30_000,
    );
  });
}
