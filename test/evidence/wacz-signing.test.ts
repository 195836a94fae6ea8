/**
 * The WACZ package signature (evidence/wacz-signing.ts) and the WACZ check (evidence/wacz-check.ts),
 * without a browser: the P-384 key follows the evidence key (the same key gives the same P-384 key, a
 * rotation another), its signature is what the viewer's WebCrypto check accepts, and a package with a
 * changed, missing or unlisted file, or a digest of another datapackage.json, is refused. The JWKS
 * publishes the package key beside the evidence keys, and that key alone checks a package's signature.
 */
import { describe, expect, it } from "bun:test";
import { gunzipSync } from "node:zlib";
import { unzipSync, zipSync } from "fflate";
import { openEvidenceKeys } from "../../src/evidence/key-file.ts";
import { checkWacz } from "../../src/evidence/wacz-check.ts";
import { signWaczHash, verifyWaczSignedData, waczKeyFor } from "../../src/evidence/wacz-signing.ts";
import { publishedKeySet } from "../../src/evidence/routes.ts";
import { buildWacz } from "../../src/web/archive/wacz-package.ts";
import { buildWarc } from "../../src/web/archive/warc-records.ts";

const HASH = `sha256:${"ab".repeat(32)}`;

async function samplePackage(sign: (hash: string) => ReturnType<typeof signWaczHash>): Promise<Uint8Array> {
  const body = new TextEncoder().encode("<p>kept</p>");
  const warc = await buildWarc({
    pageUrl: "https://example.com/",
    fetchedAt: "2026-12-06T08:00:00.000Z",
    exchanges: [{ url: "https://example.com/", method: "GET", requestHeaders: {}, status: 200, statusText: "OK", protocol: "h2", responseHeaders: { "content-type": "text/html", "content-encoding": "br" }, body, sentAt: "2026-12-06T08:00:00.000Z", resourceType: "Document" }],
    leftOut: [],
    warnings: [],
    limits: {},
    software: "test",
  });
  return (await buildWacz({ warc, page: { url: "https://example.com/", ts: "2026-12-06T08:00:00.000Z", title: "t" }, software: "test", created: new Date(), sign })).wacz;
}

const failedParts = async (wacz: Uint8Array) => (await checkWacz(wacz)).checks.filter((c) => !c.ok).map((c) => c.part);

function rezip(wacz: Uint8Array, change: (files: Record<string, Uint8Array>) => void): Uint8Array {
  const files = unzipSync(wacz);
  change(files);
  return zipSync(files, { level: 0 });
}

describe("the WACZ package key", () => {
  it("is derived from the evidence key: the same for the same key, another after a rotation", async () => {
    const a = await openEvidenceKeys(":memory:");
    const b = await openEvidenceKeys(":memory:");
    const first = await waczKeyFor(await a.current());
    expect((await waczKeyFor({ ...(await a.current()), kid: "same-key-another-kid" })).publicKey).toBe(first.publicKey);
    expect((await waczKeyFor(await b.current())).publicKey).not.toBe(first.publicKey);
    expect(first.key.asymmetricKeyDetails?.namedCurve).toBe("secp384r1");
  });

  it("signs as the viewer checks (WebCrypto ECDSA P-384, SHA-256), and nothing else holds", async () => {
    const keys = await openEvidenceKeys(":memory:");
    const signed = await signWaczHash(HASH, await keys.current(), "test");
    expect(await verifyWaczSignedData(signed)).toBe(true);
    expect(await verifyWaczSignedData({ ...signed, hash: `sha256:${"cd".repeat(32)}` })).toBe(false);
    const other = await signWaczHash(HASH, await (await openEvidenceKeys(":memory:")).current(), "test");
    expect(await verifyWaczSignedData({ ...signed, publicKey: other.publicKey })).toBe(false);
    expect(await verifyWaczSignedData({ ...signed, signature: "not base64 of a signature" })).toBe(false);
  });
});

describe("the package key in /.well-known/jwks.json", () => {
  it("is published after the evidence keys, and a package's signature checks against it as the JWKS gives it", async () => {
    const keys = await openEvidenceKeys(":memory:");
    // What the JWKS route answers (test/evidence/evidence-http.test.ts reads the served JWKS).
    const jwks = (await publishedKeySet(keys)) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.map((k) => k.kty)).toEqual(["OKP", "EC"]);
    const published = jwks.keys[1]!;
    expect(published).toMatchObject({ kty: "EC", crv: "P-384", alg: "ES384", use: "sig" });
    expect(published.d).toBeUndefined();
    expect(published.kid).not.toBe(jwks.keys[0]!.kid);

    const wacz = await samplePackage(async (hash) => signWaczHash(hash, await keys.current(), "test"));
    const { signedData } = JSON.parse(new TextDecoder().decode(unzipSync(wacz)["datapackage-digest.json"])) as { signedData: { hash: string; signature: string; publicKey: string } };
    // The buyer's check: the JWK imported as WebCrypto takes it, the signature over the hash string with SHA-256.
    const key = await crypto.subtle.importKey("jwk", published as JsonWebKey, { name: "ECDSA", namedCurve: "P-384" }, true, ["verify"]);
    const check = (signature: Uint8Array<ArrayBuffer>, hash: string) => crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, signature, new TextEncoder().encode(hash));
    const signature = new Uint8Array(Buffer.from(signedData.signature, "base64"));
    expect(await check(signature, signedData.hash)).toBe(true);
    expect(await check(signature, `sha256:${"cd".repeat(32)}`)).toBe(false);
    // The same key as the package names.
    expect(Buffer.from(await crypto.subtle.exportKey("spki", key)).toString("base64")).toBe(signedData.publicKey);

    // Another evidence key's JWKS does not check this package.
    const otherKeys = await openEvidenceKeys(":memory:");
    const otherJwk = ((await publishedKeySet(otherKeys)) as { keys: JsonWebKey[] }).keys[1]!;
    const otherKey = await crypto.subtle.importKey("jwk", otherJwk, { name: "ECDSA", namedCurve: "P-384" }, false, ["verify"]);
    expect(await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, otherKey, signature, new TextEncoder().encode(signedData.hash))).toBe(false);
  });
});

describe("checkWacz", () => {
  it("holds for a package as built, and names the key that signed it", async () => {
    const keys = await openEvidenceKeys(":memory:");
    const wacz = await samplePackage(async (hash) => signWaczHash(hash, await keys.current(), "test"));
    const outcome = await checkWacz(wacz);
    expect(outcome.checks.every((c) => c.ok)).toBe(true);
    expect(outcome.publicKey).toBe((await waczKeyFor(await keys.current())).publicKey);
  });

  it("refuses a changed, missing or unlisted file, another datapackage.json, and a package with no signature", async () => {
    const keys = await openEvidenceKeys(":memory:");
    const wacz = await samplePackage(async (hash) => signWaczHash(hash, await keys.current(), "test"));
    const changed = rezip(wacz, (files) => {
      const pages = files["pages/pages.jsonl"]!;
      pages[5] = pages[5]! ^ 1;
    });
    expect(await failedParts(changed)).toEqual(["wacz.files.pages/pages.jsonl"]);
    expect(await failedParts(rezip(wacz, (files) => delete files["indexes/index.cdx"]))).toEqual(["wacz.files.indexes/index.cdx"]);
    expect(await failedParts(rezip(wacz, (files) => (files["archive/extra.warc.gz"] = new Uint8Array(3))))).toEqual(["wacz.files"]);
    const otherPackage = rezip(wacz, (files) => {
      files["datapackage.json"] = new TextEncoder().encode(new TextDecoder().decode(files["datapackage.json"]).replace('"title": "t"', '"title": "u"'));
    });
    expect(await failedParts(otherPackage)).toEqual(["wacz.digest", "wacz.signature"]);
    expect(await failedParts(await samplePackage(async () => undefined as never))).toEqual(["wacz.signature"]);
    expect(await failedParts(new Uint8Array([1, 2, 3]))).toEqual(["wacz.zip"]);
  });

  it("stores the decoded body with the headers it no longer matches dropped and its length stated", async () => {
    const wacz = await samplePackage(async () => undefined as never);
    const warc = new TextDecoder("latin1").decode(gunzipSync(unzipSync(wacz)["archive/data.warc.gz"]!));
    expect(warc).not.toContain("content-encoding");
    expect(warc).toContain("Content-Length: 11\r\n\r\n<p>kept</p>");
  });
});
