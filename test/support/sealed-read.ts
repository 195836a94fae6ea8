/** A web/read result as the server seals it, for tests of the evidence keys (file and database). */
import { noteEvidence } from "../../src/evidence/notes.ts";
import { createEvidenceSeal } from "../../src/evidence/seal.ts";
import { textSha256 } from "../../src/evidence/statement.ts";

/** The facts a web read notes for `text` fetched from example.com. */
export const webReadFacts = (text: string) => ({
  url: "https://example.com/",
  final_url: "https://example.com/",
  source_status: 200,
  fetched_at: "2026-11-27T12:00:00.000Z",
  content_type: "text/html",
  source_sha256: "0".repeat(64),
  text_sha256: textSha256(text),
  format: "text" as const,
  version: "web-read/1",
});

/** A result for `text`, sealed with `keys` as the server at 127.0.0.1:8402 would. */
export async function sealedWebRead(keys: Parameters<typeof createEvidenceSeal>[0], text = "Hello"): Promise<Record<string, unknown> & { attestation: { kid: string } }> {
  const sealed = await createEvidenceSeal(keys).seal(noteEvidence({ ok: true, url: "https://example.com/", text }, webReadFacts(text)), { server: "http://127.0.0.1:8402" });
  return sealed as Record<string, unknown> & { attestation: { kid: string } };
}
