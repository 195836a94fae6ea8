/**
 * @module web/read-result — TypeBox schemas of the read result (spec web-evidence §2.1 without
 * request_id, which the HTTP layer adds), the compact web/fetch projection, and batch inline errors (§2.4).
 */
import { type Static, Type } from "@sinclair/typebox";
import { AttestationErrorSchema, AttestationSchema } from "../evidence/attestation-schema.ts";

/** Result version string (spec §9: results carry a version string). Bump on any change of extraction output. */
export const READ_RESULT_VERSION = "web-read/1";

const Sha256 = Type.String({ pattern: "^[0-9a-f]{64}$", description: "SHA-256, 64 lowercase hex" });

export const HeadingSchema = Type.Object({ level: Type.Integer({ minimum: 1, maximum: 6 }), text: Type.String() }, { additionalProperties: false });
export const LinkSchema = Type.Object({ text: Type.String(), url: Type.String() }, { additionalProperties: false });

const common = {
  ok: Type.Literal(true),
  version: Type.String(),
  url: Type.String({ description: "the requested URL" }),
  final_url: Type.String({ description: "URL after redirects" }),
  fetched_at: Type.String({ format: "date-time" }),
  source_status: Type.Integer({ description: "HTTP status of the source" }),
  content_type: Type.String({ description: "content type of the source (media type, lowercase)" }),
  title: Type.String(),
  text: Type.String({ description: "clean text in canonical form, at most max_chars characters (code points)" }),
  text_sha256: Sha256,
  characters: Type.Integer({ minimum: 0, description: "characters (code points) in text" }),
  truncated: Type.Boolean({ description: "true when text or markdown was cut to max_chars" }),
  format: Type.Optional(Type.Literal("markdown")),
  markdown: Type.Optional(Type.String()),
  markdown_sha256: Type.Optional(Sha256),
  selector: Type.Optional(Type.String()),
  javascript_rendered: Type.Boolean(),
  warnings: Type.Array(Type.String()),
  content_is_untrusted: Type.Literal(true),
  attestation: Type.Optional(AttestationSchema),
  attestation_error: Type.Optional(AttestationErrorSchema),
};

/** spec §2.1 read result, without request_id. */
export const ReadResultSchema = Type.Object(
  {
    ...common,
    source_sha256: Sha256,
    description: Type.String(),
    language: Type.String(),
    headings: Type.Array(HeadingSchema),
    links: Type.Array(LinkSchema),
  },
  { additionalProperties: false, $id: "ReadResult" },
);
export type ReadResult = Static<typeof ReadResultSchema>;

/** spec §2.1 compact fetch result (web/fetch), without request_id. */
export const CompactResultSchema = Type.Object(common, { additionalProperties: false, $id: "CompactReadResult" });
export type CompactResult = Static<typeof CompactResultSchema>;

/** spec §2.4 inline error, an element of a batch's results. */
export const InlineErrorSchema = Type.Object(
  {
    ok: Type.Literal(false),
    url: Type.String(),
    error: Type.String({ description: "error code" }),
    status: Type.Integer(),
    message: Type.String(),
  },
  { additionalProperties: false, $id: "InlineError" },
);
export type InlineError = Static<typeof InlineErrorSchema>;

const COMPACT_FIELDS = Object.keys(common) as (keyof CompactResult)[];

/** The web/fetch projection of a read result: only the compact fields, in spec order. */
export function toCompactResult(result: ReadResult): CompactResult {
  const compact: Record<string, unknown> = {};
  for (const field of COMPACT_FIELDS) {
    if (result[field] !== undefined) compact[field] = result[field];
  }
  return compact as CompactResult;
}
