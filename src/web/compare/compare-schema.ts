/**
 * @module web/compare/compare-schema — TypeBox schema of comparison in a web/changes result (spec web-evidence §2.2).
 */
import { type Static, Type } from "@sinclair/typebox";

const Sha256Hex = Type.String({ pattern: "^[a-f0-9]{64}$", description: "64 lowercase hex characters" });

/** Longest comparison.summary, in characters (code points). */
export const SUMMARY_MAX_CHARS = 2000;

export const ComparisonSchema = Type.Object(
  {
    changed: Type.Union([Type.Boolean(), Type.Null()], {
      description: "null on the first snapshot (no baseline); otherwise whether the text's SHA-256 differs from the baseline's.",
    }),
    previous_sha256: Type.Optional(Sha256Hex),
    current_sha256: Sha256Hex,
    added: Type.Optional(
      Type.Array(Type.String(), { description: "Unique lines of the current text absent from previous_text, in order of appearance (with previous_text only)." }),
    ),
    removed: Type.Optional(
      Type.Array(Type.String(), { description: "Unique lines of previous_text absent from the current text, in order of appearance (with previous_text only)." }),
    ),
    added_lines: Type.Optional(Type.Integer({ minimum: 0 })),
    removed_lines: Type.Optional(Type.Integer({ minimum: 0 })),
    summary: Type.Optional(Type.String({ maxLength: SUMMARY_MAX_CHARS, description: "With diff_summary: one deterministic sentence (format in compare-summary.ts)." })),
    selector: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export type Comparison = Static<typeof ComparisonSchema>;
