/**
 * The offer-receipt signer over the evidence key file: it signs with the current key, a rotation
 * is followed by the running signer, and a receipt signed before the rotation still verifies with
 * the official extension against the published keys (the retired key stays in the JWKS and the
 * DID document), and not against the key that replaced it.
 * @see issue 40 (Standard receipts)
 */
import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type JWSSignedReceipt, verifyReceiptSignatureJWS } from "@x402/extensions/offer-receipt";
import { openEvidenceKeys, rotateEvidenceKeys } from "../../src/evidence/key-file.ts";
import { createOfferReceiptSigner, didDocumentOf } from "../../src/x402/offer-receipt.ts";

const dir = mkdtempSync(join(tmpdir(), "tb-receipt-keys-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const resourceUrl = "https://seller.example/v1/web/read";
const facts = { resourceUrl, payer: "0x1111111111111111111111111111111111111111", network: "eip155:8453", transaction: `0x${"ab".repeat(32)}`, requestId: "req_0123456789abcdef0123456789abcdef" };
const receiptOf = (extension: { info: Record<string, unknown> }) => extension.info.receipt as JWSSignedReceipt;
const kidOf = (jws: string) => (JSON.parse(Buffer.from(jws.split(".")[0]!, "base64url").toString("utf8")) as { kid: string }).kid;

describe("x402/offer-receipt signer over the evidence keys", () => {
  it("signs with the current key, follows a rotation, and an older receipt still verifies against the published keys", async () => {
    const keys = await openEvidenceKeys(dir);
    const signer = await createOfferReceiptSigner(keys);
    const before = receiptOf(await signer.receipt(facts));
    const first = (await keys.current()).kid;
    expect(kidOf(before.signature)).toBe(`did:web:seller.example#${first}`);

    const { current } = await rotateEvidenceKeys(dir);
    // The holder re-reads the key file at most once a second: sign until the new key is taken (a busy machine may take longer).
    let after = receiptOf(await signer.receipt(facts));
    for (const deadline = Date.now() + 10_000; kidOf(after.signature) !== `did:web:seller.example#${current}` && Date.now() < deadline; ) {
      await Bun.sleep(200);
      after = receiptOf(await signer.receipt(facts));
    }
    expect(kidOf(after.signature)).toBe(`did:web:seller.example#${current}`);

    const doc = didDocumentOf(resourceUrl, await keys.jwks());
    const keyFor = (jws: string) => doc.verificationMethod.find((m) => m.id === kidOf(jws))?.publicKeyJwk;
    expect(doc.verificationMethod.map((m) => m.id)).toEqual([`did:web:seller.example#${current}`, `did:web:seller.example#${first}`]);
    for (const receipt of [before, after]) {
      expect(await verifyReceiptSignatureJWS(receipt, keyFor(receipt.signature) as never)).toMatchObject({ ...facts, version: 1 });
    }
    // Signed by the retired key, checked against the current one: refused.
    await expect(verifyReceiptSignatureJWS(before, keyFor(after.signature) as never)).rejects.toThrow();
  }, 30_000);
});
