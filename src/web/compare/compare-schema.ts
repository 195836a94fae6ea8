/**
 * @module web/compare/compare-schema — TypeBox schema of comparison in a web/changes result (spec web-evidence §2.2).
 */
import { type Static, Type } from "@sinclair/typebox";

const sha256HexOf = (description: string) => Type.String({ pattern: "^[a-f0-9]{64}$", description });

const Count = Type.Integer({ minimum: 0 });

/** What each filter of a web/changes request removed (only the filters sent appear). */
export const FilterCountsSchema = Type.Object(
  {
    ignore_selectors: Type.Optional(
      Type.Object(
        { elements: Count, lines: Count },
        { additionalProperties: false, description: "Elements removed from the page before extraction, and the non-blank lines of text they held (wherever they stood on the page)." },
      ),
    ),
    ignore_patterns: Type.Optional(
      Type.Object(
        {
          lines: Count,
          by_pattern: Type.Array(Count, { description: "Lines of the current text removed by each pattern (the first that matched), in the order sent." }),
          previous_lines: Type.Optional(Type.Integer({ minimum: 0, description: "Lines removed from previous_text (0 when it came from an answer with the same filters)." })),
        },
        { additionalProperties: false, description: "Lines of the current text (read up to max_chars of kept text) removed by ignore_patterns." },
      ),
    ),
  },
  { additionalProperties: false, description: "How many lines each filter removed." },
);

export type FilterCounts = Static<typeof FilterCountsSchema>;

/** Longest comparison.summary, in characters (code points). */
export const SUMMARY_MAX_CHARS = 2000;

export const ComparisonSchema = Type.Object(
  {
    changed: Type.Union([Type.Boolean(), Type.Null()], {
      description:
        "null on the first snapshot (no baseline); otherwise whether the compared text's SHA-256 (after filters) differs from the baseline's; " +
        "with trigger_patterns, whether a line matching one was added or removed.",
    }),
    previous_sha256: Type.Optional(sha256HexOf("SHA-256 of the baseline as compared (previous_text after ignore_patterns, or previous_sha256 as sent), in lowercase hex.")),
    current_sha256: sha256HexOf('SHA-256 of the compared text (text, or markdown with compare "markdown") after filters, in lowercase hex: the baseline hash to keep for the next check with the same filters.'),
    added: Type.Optional(
      Type.Array(Type.String(), { description: "Unique lines of the current text absent from previous_text, in order of appearance (with previous_text only)." }),
    ),
    removed: Type.Optional(
      Type.Array(Type.String(), { description: "Unique lines of previous_text absent from the current text, in order of appearance (with previous_text only)." }),
    ),
    added_lines: Type.Optional(Type.Integer({ minimum: 0 })),
    removed_lines: Type.Optional(Type.Integer({ minimum: 0 })),
    triggered: Type.Optional(
      Type.Object(
        {
          added: Type.Array(Type.String(), { description: "Lines of added that match a trigger pattern." }),
          removed: Type.Array(Type.String(), { description: "Lines of removed that match a trigger pattern." }),
        },
        { additionalProperties: false, description: "With trigger_patterns and previous_text: the added and removed lines that decide changed." },
      ),
    ),
    filters: Type.Optional(FilterCountsSchema),
    summary: Type.Optional(Type.String({ maxLength: SUMMARY_MAX_CHARS, description: "With diff_summary: one deterministic sentence (format in compare-summary.ts)." })),
    selector: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export type Comparison = Static<typeof ComparisonSchema>;
