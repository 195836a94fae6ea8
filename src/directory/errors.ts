/** @module directory/errors — the directory's public error codes (listed in /openapi.json with every code). */
import { defineErrors } from "../module/define.ts";

export const errors = defineErrors({
  DIRECTORY_LISTING_NOT_FOUND: { status: 404, message: "No such directory listing; see GET /v1/directory/listings. Nothing was charged." },
  DIRECTORY_LISTING_REMOVED: { status: 410, message: "This directory listing was removed; nothing was charged." },
});
