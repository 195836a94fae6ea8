/**
 * @module web/pdf/pdf-schema — TypeBox schemas of the PDF result (spec web-evidence §2.5), for plugin outputs.
 */
import { type Static, Type } from "@sinclair/typebox";

const Sha256Hex = Type.String({ pattern: "^[a-f0-9]{64}$", description: "64 lowercase hex characters" });

export const PdfPageSchema = Type.Object(
  {
    page: Type.Integer({ minimum: 1, description: "Physical page number, from 1." }),
    label: Type.Optional(
      Type.String({ description: "The page's label from the PDF's /PageLabels (e.g. 'iv', 'A-3'); present only when the PDF defines labels." }),
    ),
    text: Type.String({
      description: "Canonical text of the page; empty when the page has no embedded text; only the readable lines of a partly unreadable page (see unreadable_text_pages).",
    }),
    characters: Type.Integer({ minimum: 0, description: "Unicode code points in text." }),
  },
  { additionalProperties: false },
);

/** The extraction itself: the PDF result without `ok` and `url`, which the endpoint adds. */
export const PdfExtractionSchema = Type.Object(
  {
    page_count: Type.Integer({ minimum: 1, description: "Pages in the document." }),
    pages: Type.Array(PdfPageSchema, {
      description: "Pages whose text is returned, in order; when truncated, pages after the cut are left out.",
    }),
    text: Type.String({
      description: "All returned page text; each page starts with a line '--- page N ---' (N physical), pages separated by a blank line.",
    }),
    text_sha256: Sha256Hex,
    source_sha256: Sha256Hex,
    truncated: Type.Boolean({ description: "True when text was cut to the character limit." }),
    empty_text_pages: Type.Array(Type.Integer({ minimum: 1 }), {
      description: "Physical pages with no embedded text (scanned or blank), over the whole document.",
    }),
    unreadable_text_pages: Type.Array(Type.Integer({ minimum: 1 }), {
      description:
        "Physical pages whose embedded text is mostly U+FFFD (more than half of its non-space characters: fonts without a Unicode map). Only their lines that are mostly readable and hold a word are returned (headings, labels, footers), and a warning names each; they are not in empty_text_pages.",
    }),
    ocr_performed: Type.Literal(false),
    warnings: Type.Array(Type.String()),
    extraction_ms: Type.Integer({ minimum: 0, description: "Milliseconds spent parsing the PDF and extracting its text." }),
  },
  { additionalProperties: false },
);

export type PdfPage = Static<typeof PdfPageSchema>;
export type PdfExtraction = Static<typeof PdfExtractionSchema>;
