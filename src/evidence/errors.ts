/** @module evidence/errors — signed evidence's public error codes (listed in /openapi.json with every code). */
import { defineErrors } from "../module/define.ts";

export const errors = defineErrors({
  EVIDENCE_MALFORMED: { status: 400, message: "The body is not a signed evidence result: a result object (or batch) whose successful items carry attestation {jws, kid} with a compact JWS." },
});
