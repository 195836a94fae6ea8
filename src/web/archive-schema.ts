/**
 * @module web/archive-schema — the request and result of web/archive, its request check, its
 * price, its bounds and its example.
 */
import { type Static, Type as t } from "@sinclair/typebox";
import type { NetworkPrices } from "../plugin/price.ts";
import { AttestationSchema } from "../evidence/attestation-schema.ts";
import { capturedPageFields } from "./screenshot-schema.ts";

export const ARCHIVE_RESULT_VERSION = "web-archive/1";
const MiB = 1024 * 1024;
/** The bounds of one capture, stated in docs/archive.md. */
export const ARCHIVE_BOUNDS = {
  defaultMaxBytes: 5 * MiB,
  minMaxBytes: 64 * 1024,
  maxMaxBytes: 20 * MiB,
  maxResourceBytes: 5 * MiB,
  maxResources: 200,
};
/** Above this max_bytes the larger price applies. */
const LARGE_ARCHIVE_BYTES = 5 * MiB;

export const ArchiveRequestSchema = t.Object(
  {
    url: t.String({ format: "uri", maxLength: 2048, description: "Public http(s) URL, port 80 or 443." }),
    render: t.Optional(t.Boolean({ default: true, description: "Load the page in headless Chromium and archive every request it makes (false: the page's own response only, fetched without a browser)." })),
    screenshot: t.Optional(t.Boolean({ description: "Add a PNG of the 1280×800 viewport to the archive (default: true when rendering; needs render)." })),
    max_bytes: t.Optional(
      t.Integer({
        minimum: ARCHIVE_BOUNDS.minMaxBytes,
        maximum: ARCHIVE_BOUNDS.maxMaxBytes,
        default: ARCHIVE_BOUNDS.defaultMaxBytes,
        description: `Response bytes kept in all (default 5 MiB, at most 20 MiB); one resource over ${ARCHIVE_BOUNDS.maxResourceBytes / MiB} MiB, or past ${ARCHIVE_BOUNDS.maxResources} resources, is left out and listed.`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type ArchiveRequest = Static<typeof ArchiveRequestSchema>;

const ResourceSchema = t.Object({ url: t.String(), status: t.Integer(), type: t.String({ description: "The browser's resource type (Document, Script, Image, ...)." }), bytes: t.Integer() });
const LeftOutSchema = t.Object({ url: t.String(), reason: t.String() });

export const ArchiveResultSchema = t.Object({
  ...capturedPageFields,
  title: t.String(),
  content_type: t.Literal("application/wacz"),
  wacz_base64: t.String({ description: "The WACZ file, base64: save it as page.wacz and open it in ReplayWeb.page." }),
  package_sha256: t.String({ description: "SHA-256 of the WACZ file's bytes, lowercase hex (signed)." }),
  datapackage_hash: t.String({ description: "sha256:<hex> of the package's datapackage.json: what its datapackage-digest.json signs." }),
  wacz_public_key: t.Optional(t.String({ description: "The ECDSA P-384 key (SPKI, base64) that signed the package (signed in the statement)." })),
  bytes: t.Integer({ description: "Size of the WACZ file." }),
  warc_bytes: t.Integer({ description: "Size of the WARC inside it (gzipped records)." }),
  kept_bytes: t.Integer({ description: "Response body bytes kept (the cap counts these)." }),
  resources: t.Array(ResourceSchema, { description: "Every response kept, in the order the browser finished them." }),
  left_out: t.Array(LeftOutSchema, { description: "Responses seen and not kept, with the reason (also in the archive's metadata record)." }),
  screenshot: t.Union([t.Object({ width: t.Integer(), height: t.Integer(), sha256: t.String() }), t.Null()]),
  warnings: t.Array(t.String()),
  content_is_untrusted: t.Literal(true),
  attestation: t.Optional(AttestationSchema),
});
export type ArchiveResult = Static<typeof ArchiveResultSchema>;

export function checkArchiveRequest(input: ArchiveRequest): string | undefined {
  if (input.render === false && input.screenshot === true) return "a screenshot needs the browser: send render: true, or screenshot: false";
  return undefined;
}

/** A rendered archive up to 5 MiB, a larger one, and the page alone without a browser, in USD per price column. */
export function priceArchive(input: ArchiveRequest): NetworkPrices {
  if (input.render === false) return { base: "0.01", algorand: "0.02" };
  return (input.max_bytes ?? ARCHIVE_BOUNDS.defaultMaxBytes) > LARGE_ARCHIVE_BYTES ? { base: "0.05", algorand: "0.1" } : { base: "0.03", algorand: "0.06" };
}

export const exampleArchiveRequest: ArchiveRequest = { url: "https://example.com/" };

/** The answer's shape for one small page (wacz_base64 and the hashes shortened here: a real one is a few kilobytes for such a page). */
export const exampleArchiveResult: ArchiveResult = {
  ok: true,
  version: ARCHIVE_RESULT_VERSION,
  url: "https://example.com/",
  final_url: "https://example.com/",
  fetched_at: "2026-12-06T08:00:00.000Z",
  source_status: 200,
  title: "Example Domain",
  content_type: "application/wacz",
  wacz_base64: "UEsDBBQAAAAAAAAAIQAAAAAAAAAAAAAAAAAAAAAA…",
  package_sha256: "5f0c6d1e…",
  datapackage_hash: "sha256:9b2a47c3…",
  wacz_public_key: "MHYwEAYHKoZIzj0CAQYFK4EEACIDYgAE…",
  bytes: 48_213,
  warc_bytes: 46_870,
  kept_bytes: 1_256,
  resources: [{ url: "https://example.com/", status: 200, type: "Document", bytes: 1_256 }],
  left_out: [],
  screenshot: { width: 1280, height: 800, sha256: "0d4e5b7a…" },
  warnings: [],
  content_is_untrusted: true,
};
