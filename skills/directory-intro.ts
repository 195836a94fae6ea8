/** Buys the contact pack of a directory listing: how to reach and pay that agent, and when it was verified. */
import { defineSkill, ListingIdSchema, t } from "tollbooth";

export default defineSkill({
  skill: "directory.intro",
  summary: "Contact pack for a directory listing: endpoints, agent card, payment networks, prices and the private contact, with when it was last verified.",
  input: t.Object({ listing_id: ListingIdSchema }, { additionalProperties: false }),
  price: "0.01",
  async: false,
  timeoutMs: 15_000,
  errors: ["DIRECTORY_LISTING_NOT_FOUND", "DIRECTORY_LISTING_REMOVED"],
  examples: [{ input: { listing_id: "lst_0123456789abcdef" } }],
  admit({ listing_id }, ctx) {
    ctx.directory.intro(listing_id);
  },
  async run({ listing_id }, ctx) {
    return ctx.directory.intro(listing_id);
  },
});
