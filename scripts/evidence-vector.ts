/**
 * Writes test/fixtures/evidence/vector.json: a web/read result of test/fixtures/pages/article.html
 * (read as https://tollbooth.example/article, no network), signed with a fresh key that is then
 * rotated out, and the JWK Set published after the rotation (new key first, the retired one kept).
 * The payment in the statement is an example (no chain was involved). Also writes
 * test/fixtures/evidence/extract-vector.json: a web/extract result of the same page, its model answer
 * written here (no model was called) and checked by the real grounding code, signed with the same key.
 * Run: bun scripts/evidence-vector.ts
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEvidenceKeys, rotateEvidenceKeys } from "../src/evidence/key-file.ts";
import { readCallerSchema } from "../src/grounding/caller-schema.ts";
import { extractPageChars, extractResult } from "../src/grounding/extract-endpoint.ts";
import { groundAnswer } from "../src/grounding/ground.ts";
import { indexText } from "../src/grounding/quote-match.ts";
import { createEvidenceSeal } from "../src/evidence/seal.ts";
import { noteRead } from "../src/web/evidence-facts.ts";
import { loadLocalFile, readLocalSource } from "../src/web/read-local.ts";

const root = join(import.meta.dir, "..");
const sourceFile = "test/fixtures/pages/article.html";
const dir = mkdtempSync(join(tmpdir(), "tollbooth-vector-"));
try {
  const keys = await openEvidenceKeys(dir);
  const read = await readLocalSource(await loadLocalFile(join(root, sourceFile), { url: "https://tollbooth.example/article" }), { format: "markdown", maxChars: 20_000 });
  const result = await createEvidenceSeal(keys).seal(noteRead(read, read), {
    server: "https://tollbooth.example",
    payment: { network: "eip155:8453", transaction: `0x${"5e".repeat(32)}` },
  });
  const page = await readLocalSource(await loadLocalFile(join(root, sourceFile), { url: "https://tollbooth.example/article" }), { format: "text", maxChars: extractPageChars });
  const schema = readCallerSchema({
    type: "object",
    properties: {
      authority: { type: "string" },
      published_on: { type: "string", description: "Weekday the report came out" },
      sampling_points: { type: "integer" },
      bank_km: { type: "number" },
      record_count: { type: "boolean", "x-derived": true },
    },
  });
  if (!schema.ok) throw new Error("the vector's schema is not supported");
  // What a model might answer: bank_km's quote does not write 40, so it is unsupported (partial).
  const answer = {
    authority: { value: "regional water authority", quote: "according to the regional water authority" },
    published_on: { value: "Monday", quote: "published its full report on Monday" },
    sampling_points: { value: 12, quote: "sampling water at twelve points" },
    bank_km: { value: 40, quote: "Volunteers walked forty kilometres of bank" },
    record_count: { value: true, quotes: ["counted more fish than any year since records began"] },
  };
  const grounded = groundAnswer(schema.root, answer, indexText(page.text), (quote) => quote);
  const usage = { model: "example-model", steps: 1, tool_calls: 0, input_tokens: 512, output_tokens: 96, cost_usd: 0.0002 };
  const extracted = await createEvidenceSeal(keys).seal(extractResult(page.url, page, grounded, usage, true), {
    server: "https://tollbooth.example",
    payment: { network: "eip155:8453", transaction: `0x${"7a".repeat(32)}` },
  });
  const { retired, current } = await rotateEvidenceKeys(dir);
  const jwks = await (await openEvidenceKeys(dir)).jwks();
  const vector = {
    note: `A web/read result signed by key ${retired}, which was then rotated out (its public key stays in jwks; ${current} signs now). The payment is an example. Source bytes: ${sourceFile}. Written by scripts/evidence-vector.ts.`,
    source_file: sourceFile,
    result,
    jwks,
  };
  mkdirSync(join(root, "test/fixtures/evidence"), { recursive: true });
  writeFileSync(join(root, "test/fixtures/evidence/vector.json"), `${JSON.stringify(vector, null, 2)}\n`);
  const extractVector = {
    note: `A web/extract result signed by key ${retired} (rotated out since, as in vector.json); the model answer was written by scripts/evidence-vector.ts and grounded by the real code. The payment is an example.`,
    source_file: sourceFile,
    result: extracted,
    jwks,
  };
  writeFileSync(join(root, "test/fixtures/evidence/extract-vector.json"), `${JSON.stringify(extractVector, null, 2)}\n`);
  console.log(`wrote test/fixtures/evidence/vector.json and extract-vector.json (signed by ${retired}, rotated to ${current})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
