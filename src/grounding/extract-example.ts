/** @module grounding/extract-example — the documented web/extract call and its answer (offsets true to the text). */
import type { ExtractRequest, ExtractResult } from "./extract-schemas.ts";

export const exampleExtractRequest: ExtractRequest = {
  url: "https://example.com/",
  schema: {
    type: "object",
    properties: {
      purpose: { type: "string", description: "What the domain is for." },
      needs_permission: { type: "boolean", description: "Whether using it needs permission.", "x-derived": true },
    },
  },
};

const exampleText = "Example Domain\nThis domain is for use in illustrative examples in documents. You may use this domain in literature without prior coordination or asking for permission.\nMore information...";

export const exampleExtractResult: ExtractResult = {
  ok: true,
  url: "https://example.com/",
  final_url: "https://example.com/",
  fetched_at: "2026-01-01T00:00:00.000Z",
  title: "Example Domain",
  text: exampleText,
  text_sha256: "0".repeat(64),
  characters: exampleText.length,
  truncated: false,
  data: { purpose: "for use in illustrative examples in documents", needs_permission: false },
  evidence: [
    { path: "/purpose", quote: "for use in illustrative examples in documents", start: 30, end: 75, match: "exact" },
    { path: "/needs_permission", derived: true, quotes: [{ quote: "without prior coordination or asking for permission", start: 115, end: 166, match: "exact" }] },
  ],
  unsupported: [],
  partial: false,
  usage: { model: "grok-4-fast", steps: 1, tool_calls: 0, input_tokens: 610, output_tokens: 74, cost_usd: 0.00016 },
  warnings: [],
  content_is_untrusted: true,
};
