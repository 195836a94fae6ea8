/** Buys the contact pack of a directory listing: how to reach and pay that agent, and when it was verified. */
import { defineSkill, IntroPackSchema, ListingIdSchema, t } from "tollbooth";

export default defineSkill({
  skill: "directory.intro",
  summary: "Contact pack for a directory listing: endpoints, agent card, payment networks, prices and the private contact, with when it was last verified.",
  input: t.Object({ listing_id: ListingIdSchema }, { additionalProperties: false }),
  output: IntroPackSchema,
  price: "0.01",
  async: false,
  timeoutMs: 15_000,
  errors: ["DIRECTORY_LISTING_NOT_FOUND", "DIRECTORY_LISTING_REMOVED"],
  examples: [
    {
      input: { listing_id: "lst_0123456789abcdef" },
      output: {
        listing_id: "lst_0123456789abcdef",
        name: "Crawler Co-op",
        description: "Shared crawling capacity sold per call.",
        contact: "ops@crawler.example",
        endpoints: { service: "https://crawler.example/", agent_card: "https://crawler.example/.well-known/agent-card.json", capabilities: "https://crawler.example/v1/capabilities" },
        payment: { protocol: "x402", networks: ["eip155:8453"], price_summary: { "crawl.site": "0.2" } },
        skills: ["crawl.site"],
        tags: ["crawling"],
        listed_at: "2026-01-01T00:00:00.000Z",
        verified_at: "2026-01-02T00:00:00.000Z",
        last_check: { checked_at: "2026-01-02T00:00:00.000Z", reachable: true, open_for_work: true, latency_ms: 120, error: null },
      },
    },
  ],
  async admit({ listing_id }, ctx) {
    await ctx.directory.intro(listing_id);
  },
  async run({ listing_id }, ctx) {
    return ctx.directory.intro(listing_id);
  },
});
