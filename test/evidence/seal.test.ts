/**
 * The seal after settlement: a result whose facts cannot be signed (RFC 8785 has no spelling for a
 * lone surrogate) goes out saying so in attestation_error, and in a batch only that item: the
 * others stay signed. @see issue 40, defect 2
 */
import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEvidenceKeys } from "../../src/evidence/key-file.ts";
import { noteEvidence } from "../../src/evidence/notes.ts";
import { createEvidenceSeal } from "../../src/evidence/seal.ts";
import { verifyEvidence } from "../../src/evidence/verify.ts";
import { webReadFacts } from "../support/sealed-read.ts";

const dir = mkdtempSync(join(tmpdir(), "tb-seal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const item = (url: string, text: string) => noteEvidence({ ok: true, url, text }, { ...webReadFacts(text), url });

describe("evidence/seal", () => {
  it("states a result it cannot sign (attestation_error) and signs every other item of the batch", async () => {
    const keys = await openEvidenceKeys(dir);
    const failures: Error[] = [];
    const seal = createEvidenceSeal(keys, () => new Date(), (error) => failures.push(error));
    const batch = { ok: true, batch: true, count: 3, results: [item("https://example.com/a", "A"), item("https://example.com/\ud800", "B"), { ok: false, url: "https://x.test/", error: "SOURCE_ERROR_STATUS" }] };
    const sealed = (await seal.seal(batch, { server: "http://127.0.0.1:8402", payment: { network: "eip155:84532", transaction: "0xabc" } })) as { results: Record<string, unknown>[] };
    const [good, bad, failed] = sealed.results;
    expect(good!.attestation).toBeDefined();
    expect(good!.attestation_error).toBeUndefined();
    expect(bad!.attestation).toBeUndefined();
    expect(bad!.attestation_error).toEqual({ error: "EVIDENCE_UNSIGNED", message: expect.stringContaining("payment settled") });
    expect(failed).toEqual(batch.results[2]!);
    expect(failures).toHaveLength(1);
    const checked = await verifyEvidence({ ...sealed, results: [good] }, await keys.jwks());
    expect(checked).toMatchObject({ kind: "checked", valid: true });
  });

  it("states it on a single result too, rather than returning it silently unsigned", async () => {
    const seal = createEvidenceSeal(await openEvidenceKeys(dir));
    const sealed = (await seal.seal(item("https://example.com/\udfff", "C"), { server: "http://127.0.0.1:8402" })) as Record<string, unknown>;
    expect(sealed.attestation_error).toMatchObject({ error: "EVIDENCE_UNSIGNED" });
    expect(sealed.text).toBe("C");
  });
});
