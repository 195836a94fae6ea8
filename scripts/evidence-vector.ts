/**
 * Writes test/fixtures/evidence/vector.json: a web/read result of test/fixtures/pages/article.html
 * (read as https://tollbooth.example/article, no network), signed with a fresh key that is then
 * rotated out, and the JWK Set published after the rotation (new key first, the retired one kept).
 * The payment in the statement is an example (no chain was involved). Run: bun scripts/evidence-vector.ts
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEvidenceKeys, rotateEvidenceKeys } from "../src/evidence/key-file.ts";
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
  console.log(`wrote test/fixtures/evidence/vector.json (signed by ${retired}, rotated to ${current})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
