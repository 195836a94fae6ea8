/**
 * @module web/examples — fixed example inputs and outputs of the web evidence endpoints, with
 * real hashes, for the plugin declarations, the docs and the free GET /v1/web/sample.
 */
import { sha256Hex } from "./text/text-output.ts";
import type { ReadResult } from "./read-result.ts";

const text = "Example Domain\nThis domain is for use in illustrative examples in documents.\nMore information...";
const markdown = "# Example Domain\n\nThis domain is for use in illustrative examples in documents.\n\n[More information...](https://www.iana.org/domains/example)";

export const exampleReadResult: ReadResult = {
  ok: true,
  version: "web-read/1",
  url: "https://example.com/",
  final_url: "https://example.com/",
  fetched_at: "2026-11-21T08:00:00.000Z",
  source_status: 200,
  content_type: "text/html",
  source_sha256: sha256Hex("<!doctype html><title>Example Domain</title>"),
  title: "Example Domain",
  description: "",
  language: "en",
  text,
  text_sha256: sha256Hex(text),
  characters: [...text].length,
  truncated: false,
  headings: [{ level: 1, text: "Example Domain" }],
  links: [{ text: "More information...", url: "https://www.iana.org/domains/example" }],
  javascript_rendered: false,
  warnings: [],
  content_is_untrusted: true,
};

export const exampleMarkdownResult: ReadResult = {
  ...exampleReadResult,
  format: "markdown",
  markdown,
  markdown_sha256: sha256Hex(markdown),
};

const previousText = "Example Domain\nThis domain is reserved.\nMore information...";

export const exampleChangesResult = {
  ...exampleReadResult,
  comparison: {
    changed: true,
    previous_sha256: sha256Hex(previousText),
    current_sha256: sha256Hex(text),
    added: ["This domain is for use in illustrative examples in documents."],
    removed: ["This domain is reserved."],
    added_lines: 1,
    removed_lines: 1,
  },
};

export const examplePreviousText = previousText;

/** A page whose only changes are noise: a stamp line removed by ignore_patterns, an ad box by ignore_selectors. */
const filteredText = "Blue kettle\nPrice: 30 EUR\nIn stock";

export const exampleFilteredChangesRequest = {
  url: "https://example.com/kettle",
  previous_text: "Blue kettle\nPrice: 30 EUR\nIn stock\nUpdated 5 minutes ago",
  ignore_selectors: [".ad", "#visitor-count"],
  ignore_patterns: ["^Updated \\d+ minutes ago$"],
  trigger_patterns: ["^Price:", "(?i)^(in|out of) stock$"],
};

const { text: _unchangedTextIsOmitted, ...readWithoutText } = exampleReadResult;

export const exampleFilteredChangesResult = {
  ...readWithoutText,
  url: "https://example.com/kettle",
  final_url: "https://example.com/kettle",
  title: "Blue kettle",
  headings: [{ level: 1, text: "Blue kettle" }],
  links: [],
  text_sha256: sha256Hex(filteredText),
  characters: [...filteredText].length,
  comparison: {
    changed: false,
    previous_sha256: sha256Hex(filteredText),
    current_sha256: sha256Hex(filteredText),
    added: [],
    removed: [],
    added_lines: 0,
    removed_lines: 0,
    triggered: { added: [], removed: [] },
    filters: { ignore_selectors: { elements: 2, lines: 3 }, ignore_patterns: { lines: 1, by_pattern: [1], previous_lines: 1 } },
  },
};

const pdfPages = [
  { page: 1, text: "Annual report 2026\nRevenue grew 12 percent.", characters: 0 },
  { page: 2, text: "", characters: 0 },
].map((p) => ({ ...p, characters: [...p.text].length }));
const pdfText = pdfPages.map((p) => (p.text ? `--- page ${p.page} ---\n${p.text}` : `--- page ${p.page} ---`)).join("\n\n");

export const examplePdfResult = {
  ok: true as const,
  url: "https://example.com/report.pdf",
  page_count: 2,
  pages: pdfPages,
  text: pdfText,
  text_sha256: sha256Hex(pdfText),
  source_sha256: sha256Hex("%PDF-1.7 example"),
  truncated: false,
  empty_text_pages: [2],
  unreadable_text_pages: [],
  ocr_performed: false as const,
  warnings: ["Page 2 has no embedded text (scanned or blank); OCR is not performed."],
  extraction_ms: 42,
};
