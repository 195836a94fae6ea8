/** Buys structured peer intelligence from the directory and its checks (no live fan-out). */
import { defineSkill, t } from "tollbooth";

export default defineSkill({
  skill: "network.peer_survey",
  summary: "Peer intelligence from the directory and its background checks: peers, their skills and prices, reachability, open_for_work, latency and when each was seen.",
  input: t.Object({}, { additionalProperties: false }),
  price: "0.03",
  async: false,
  timeoutMs: 15_000,
  examples: [{ input: {} }],
  // Read from stored rows only: a paid call never makes this server contact the network.
  async run(_input, ctx) {
    return ctx.directory.survey();
  },
});
