/** Buys structured peer intelligence from the directory and its checks (no live fan-out). */
import { defineSkill, PeerSurveySchema, t } from "tollbooth";

export default defineSkill({
  skill: "network.peer_survey",
  summary: "Peer intelligence from the directory and its background checks: peers, their skills and prices, reachability, open_for_work, latency and when each was seen.",
  input: t.Object({}, { additionalProperties: false }),
  output: PeerSurveySchema,
  price: "0.03",
  async: false,
  timeoutMs: 15_000,
  examples: [
    {
      input: {},
      output: {
        generated_at: "2026-01-02T00:00:00.000Z",
        peers: [
          {
            listing_id: "lst_0123456789abcdef",
            name: "Crawler Co-op",
            endpoint: "https://crawler.example/",
            skills: ["crawl.site"],
            tags: ["crawling"],
            prices: { "crawl.site": "0.2" },
            networks: ["eip155:8453"],
            reachable: true,
            open_for_work: true,
            latency_ms: 120,
            seen_at: "2026-01-02T00:00:00.000Z",
            checked_at: "2026-01-02T00:00:00.000Z",
          },
        ],
        skills: [{ skill: "crawl.site", peers: 1, lowest_price_usd: "0.2" }],
        counts: { listed: 1, reachable: 1, open_for_work: 1, never_checked: 0 },
      },
    },
  ],
  // Read from stored rows only: a paid call never makes this server contact the network.
  async run(_input, ctx) {
    return ctx.directory.survey();
  },
});
