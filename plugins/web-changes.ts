/** Buys a change check of a page against a baseline the caller keeps (hash or prior text). */
import {
  ChangesOutputSchema,
  ChangesRequestSchema,
  changesEndpoint,
  checkChangesRequest,
  definePlugin,
  exampleChangesResult,
  exampleFilteredChangesRequest,
  exampleFilteredChangesResult,
  examplePreviousText,
  priceChanges,
} from "tollbooth";

export default definePlugin({
  id: "web.changes",
  route: "POST /v1/web/changes",
  summary: "Check a public page for change against your baseline: changed or not, and the added and removed lines.",
  description:
    "Compares freshly extracted text (navigation, headers and footers removed) with the caller's baseline: previous_sha256 for a compact check, previous_text for unique added and removed lines. No baseline: a first snapshot whose text and text_sha256 you keep. Keep max_chars and selector identical between runs. JavaScript is never rendered here. " +
    "Against noise: ignore_selectors (CSS) removes elements before extraction, ignore_patterns (RE2 line patterns) removes lines from both sides, trigger_patterns makes changed true only when a matching line is added or removed (needs previous_text), compare picks text or markdown; comparison.filters counts the lines each filter removed. " +
    "Hashes are of the filtered text: keep the answer's text or comparison.current_sha256 as the baseline for the next check with the same filters (ignore_selectors cannot be applied to an old text).",
  input: ChangesRequestSchema,
  output: ChangesOutputSchema,
  check: checkChangesRequest,
  price: priceChanges,
  timeoutMs: 60_000,
  errors: ["BASELINE_MISMATCH", "PATTERN_INVALID", "SELECTOR_NOT_APPLICABLE", "URL_NOT_ALLOWED", "TARGET_NOT_PUBLIC", "ROBOTS_DISALLOWED", "SOURCE_ERROR_STATUS", "SOURCE_TOO_LARGE", "UNSUPPORTED_CONTENT_TYPE", "PDF_NOT_SUPPORTED_HERE", "BOT_CHALLENGE", "CONTENT_TOO_COMPLEX", "SELECTOR_NOT_FOUND", "SELECTOR_INVALID", "SOURCE_UNREACHABLE", "SOURCE_TIMEOUT", "BATCH_FAILED"],
  examples: [
    { title: "Compare with the prior text", input: { url: "https://example.com/", previous_text: examplePreviousText }, output: exampleChangesResult },
    { title: "Watch the price and stock only, ignoring a stamp, an ad box and a visitor counter", input: exampleFilteredChangesRequest, output: exampleFilteredChangesResult },
  ],
  run: (input, ctx) => changesEndpoint(input, ctx),
});
