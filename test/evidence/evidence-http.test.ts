/**
 * Signed evidence through the whole service: every successful web/read, web/fetch, web/markdown,
 * web/changes and pdf/read result (and batch item) carries an attestation that verifies against
 * /.well-known/jwks.json, and POST /v1/evidence/verify says which part of a changed result fails.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { base64url } from "jose";
import { verifyEvidence } from "../../src/evidence/verify.ts";
import { startFacilitatorServer } from "../support/facilitator.ts";
import { type SiteServer, startSiteServer } from "../support/site-server.ts";
import { type TestService, testService } from "../support/service.ts";

type Body = Record<string, unknown> & { results?: Record<string, unknown>[]; attestation?: { jws: string; kid: string } };
const pdfBytes = new Uint8Array(readFileSync(join(import.meta.dir, "../fixtures/pdf", "multi-page.pdf")));
const page = (para: string) => `<!doctype html><html lang="en"><head><title>Rates</title></head><body><main><h1>Rates</h1><p>${para}</p><p>The table below is updated hourly by the desk.</p></main></body></html>`;

let site: SiteServer;
let service: TestService;

async function post(path: string, json: unknown): Promise<{ status: number; body: Body }> {
  const res = await service.request(path, { method: "POST", json });
  return { status: res.status, body: (await res.json()) as Body };
}
const statementOf = (body: Body) => JSON.parse(new TextDecoder().decode(base64url.decode(body.attestation!.jws.split(".")[1]!))) as Record<string, unknown>;
const jwks = async () => (await (await service.request("/.well-known/jwks.json")).json()) as { keys: Record<string, string>[] };

beforeAll(async () => {
  site = startSiteServer();
  site.set("/a", page("EUR/USD is 1.09 today, \u{1F4C8} up."));
  site.set("/b", page("GBP/USD is 1.27 today."));
  site.set("/doc.pdf", pdfBytes, "application/pdf");
  service = await testService(["--unsafe-allow-loopback-targets"]);
});
afterAll(async () => {
  await service.close();
  await site.stop();
});

describe("attestations on results", () => {
  it("web/read: a compact EdDSA JWS of the canonical statement, verified against the published key", async () => {
    const { status, body } = await post("/v1/web/read", { url: site.url("/a") });
    expect(status).toBe(200);
    const [h] = body.attestation!.jws.split(".");
    expect(JSON.parse(new TextDecoder().decode(base64url.decode(h!)))).toEqual({ alg: "EdDSA", typ: "tollbooth-evidence+jws", kid: body.attestation!.kid });
    const statement = statementOf(body);
    expect(statement).toMatchObject({
      statement: "tollbooth-evidence/1",
      url: site.url("/a"),
      final_url: site.url("/a"),
      source_status: 200,
      fetched_at: body.fetched_at,
      content_type: "text/html",
      source_sha256: body.source_sha256,
      text_sha256: createHash("sha256").update(String(body.text)).digest("hex"),
      format: "text",
      version: body.version,
      server: "http://127.0.0.1:8402",
      payment: null,
    });
    const keys = await jwks();
    // The evidence key, then the WACZ package key derived from it (test/evidence/wacz-signing.test.ts).
    expect(keys.keys.map((k) => k.kty)).toEqual(["OKP", "EC"]);
    expect(keys.keys[0]!.kid).toBe(body.attestation!.kid);
    for (const key of keys.keys) expect(key).not.toHaveProperty("d");
    const outcome = await verifyEvidence(body, keys);
    expect(outcome).toMatchObject({ kind: "checked", valid: true });
  });

  it("web/fetch states the source hash its compact result does not show; web/markdown the Markdown hash and selector", async () => {
    const fetched = await post("/v1/web/fetch", { url: site.url("/a") });
    expect(fetched.body).not.toHaveProperty("source_sha256");
    expect(statementOf(fetched.body).source_sha256).toMatch(/^[0-9a-f]{64}$/);
    const markdown = await post("/v1/web/markdown", { url: site.url("/a"), selector: "main" });
    expect(statementOf(markdown.body)).toMatchObject({ format: "markdown", selector: "main", markdown_sha256: markdown.body.markdown_sha256 });
    for (const body of [fetched.body, markdown.body]) expect(await verifyEvidence(body, await jwks())).toMatchObject({ valid: true });
  });

  it("batches sign each successful item; failed items carry none", async () => {
    const { body } = await post("/v1/web/read", { urls: [site.url("/a"), site.url("/b"), site.url("/missing")] });
    expect(body.results!.map((r) => Boolean(r.attestation))).toEqual([true, true, false]);
    expect(statementOf(body.results![1] as Body).url).toBe(site.url("/b"));
    expect(await verifyEvidence(body, await jwks())).toMatchObject({ valid: true });
  });

  it("web/changes and pdf/read are signed too", async () => {
    const changes = await post("/v1/web/changes", { url: site.url("/a"), previous_text: "old text" });
    expect(statementOf(changes.body)).toMatchObject({ url: site.url("/a"), text_sha256: changes.body.text_sha256 });
    const pdf = await post("/v1/pdf/read", { url: site.url("/doc.pdf") });
    expect(pdf.status).toBe(200);
    expect(statementOf(pdf.body)).toMatchObject({ url: site.url("/doc.pdf"), final_url: site.url("/doc.pdf"), source_status: 200, content_type: "application/pdf", format: "pdf-text", version: "pdf-read/1", source_sha256: createHash("sha256").update(pdfBytes).digest("hex") });
    for (const body of [changes.body, pdf.body]) expect(await verifyEvidence(body, await jwks())).toMatchObject({ valid: true });
  });
});

describe("input that cannot be signed (@see issue 40, defect 2)", () => {
  it("refuses a lone surrogate in url or selector with 400 before anything runs", async () => {
    for (const json of [{ url: `${site.url("/a")}?q=\ud800` }, { url: site.url("/a"), selector: "main\udc00" }, { url: `${site.url("/a")}#\udc00`, selector: "main" }]) {
      const { status, body } = await post("/v1/web/read", json);
      expect({ status, error: body.error }).toEqual({ status: 400, error: "INVALID_REQUEST" });
      expect(String(body.message)).toContain("lone surrogate");
    }
    const pdf = await post("/v1/pdf/read", { url: `${site.url("/doc.pdf")}#\ud800` });
    expect(pdf.status).toBe(400);
  });

  it("answers such a URL in a batch as that item's inline error, every other item signed", async () => {
    const { status, body } = await post("/v1/web/read", { urls: [site.url("/a"), `${site.url("/b")}?\ud800`] });
    expect(status).toBe(200);
    expect(body.results![0]!.attestation).toBeDefined();
    expect(body.results![1]).toMatchObject({ ok: false, error: "URL_NOT_ALLOWED" });
    expect((await post("/v1/evidence/verify", body)).body).toMatchObject({ valid: true });
  });
});

describe("input that cannot be signed, with payments on", () => {
  it("is refused 400 before the 402 offer, so nothing is priced or charged", async () => {
    const facilitator = startFacilitatorServer({
      verify: async () => ({ isValid: false, invalidReason: "invalid_exact_evm_payload_signature" }),
      settle: async (_payload, requirements) => ({ success: false, errorReason: "invalid_exact_evm_payload_signature", transaction: "", network: requirements.network }),
      supported: async () => ({ kinds: [{ x402Version: 2, scheme: "exact", network: "eip155:8453" }], extensions: [], signers: {} }),
    });
    const paid = await testService(["--unsafe-allow-loopback-targets", "--payments", "on", "--public-url", "http://127.0.0.1:8402", "--pay-to-base", `0x${"1".repeat(40)}`, "--facilitator-url", facilitator.url]);
    try {
      const ask = async (json: unknown) => (await paid.request("/v1/web/read", { method: "POST", json })).status;
      expect(await ask({ url: site.url("/a") })).toBe(402);
      expect(await ask({ url: site.url("/a"), selector: "main\ud800" })).toBe(400);
      expect(await ask({ url: `${site.url("/a")}?\ud800` })).toBe(400);
    } finally {
      await paid.close();
      await facilitator.stop();
    }
  });
});

describe("the server a statement names (@see issue 40, defect 1)", () => {
  it("comes from the bind address without --public-url, never from the caller's Host", async () => {
    const res = await service.handle(new Request("http://evil.example:8402/v1/web/read", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: site.url("/a") }) }), "127.0.0.1");
    expect(statementOf((await res.json()) as Body).server).toBe("http://127.0.0.1:8402");
  });
});

describe("POST /v1/evidence/verify", () => {
  it("says valid, and names the part of a changed result that fails", async () => {
    const { body } = await post("/v1/web/read", { url: site.url("/a") });
    expect((await post("/v1/evidence/verify", body)).body).toMatchObject({ ok: true, valid: true });
    const cases: [Body, string][] = [
      [{ ...body, text: `${String(body.text).slice(0, -1)}X` }, "text"],
      [{ ...body, text_sha256: "0".repeat(64) }, "text_sha256"],
      [{ ...body, url: site.url("/b") }, "url"],
      [{ ...body, attestation: { ...body.attestation!, kid: "not-a-published-key" } }, "kid"],
    ];
    for (const [changed, part] of cases) {
      const { status, body: answer } = await post("/v1/evidence/verify", changed);
      expect(status).toBe(200);
      expect(answer).toMatchObject({ ok: true, valid: false, failed: { part } });
    }
    const source = Buffer.from(readFileSync(join(import.meta.dir, "../fixtures/pdf", "multi-page.pdf"))).toString("base64");
    const pdf = (await post("/v1/pdf/read", { url: site.url("/doc.pdf") })).body;
    expect((await post("/v1/evidence/verify", { ...pdf, source_base64: source })).body).toMatchObject({ valid: true });
    expect((await post("/v1/evidence/verify", { ...pdf, source_base64: Buffer.from("other bytes").toString("base64") })).body).toMatchObject({ valid: false, failed: { part: "source" } });
  });

  it("answers 400 EVIDENCE_MALFORMED with the part for anything that is not a signed result, never 500", async () => {
    const { body } = await post("/v1/web/read", { url: site.url("/a") });
    const [h, p, s] = body.attestation!.jws.split(".");
    const cases: [unknown, string][] = [
      [{ ok: true, text: "x" }, "attestation"],
      [{ ...body, attestation: "a.b.c" }, "attestation"],
      [{ ...body, attestation: { jws: "only.two", kid: "k" } }, "attestation"],
      [{ ...body, attestation: { jws: `${base64url.encode("not json")}.${p}.${s}`, kid: "k" } }, "header"],
      [{ ...body, attestation: { jws: `${h}.${base64url.encode("[1,2]")}.${s}`, kid: "k" } }, "payload"],
      [{ ok: true, batch: true, results: "none" }, "results"],
      [{ ok: true, batch: true, results: [null] }, "results[0]"],
      [{ ok: true, batch: true, results: [{ ok: false }] }, "results"],
      [{ ...body, source_base64: 12 }, "source_base64"],
      // @see issue 40, defect 3: JSON nested thousands deep inside the JWS parts (500 before the guard).
      [{ ...body, attestation: { jws: `${base64url.encode(`{"alg":${"[".repeat(5000)}${"]".repeat(5000)}}`)}.${p}.${s}`, kid: "k" } }, "header"],
      [{ ...body, attestation: { jws: `${h}.${base64url.encode(`{"statement":${"{\"a\":".repeat(5000)}1${"}".repeat(5000)}}`)}.${s}`, kid: "k" } }, "payload"],
    ];
    for (const [json, part] of cases) {
      const { status, body: answer } = await post("/v1/evidence/verify", json);
      expect({ status, part: answer.part, error: answer.error }).toEqual({ status: 400, part, error: "EVIDENCE_MALFORMED" });
    }
    for (const raw of ["[]", "null", "1", "{", '"x"']) {
      const res = await service.request("/v1/evidence/verify", { method: "POST", body: raw, headers: { "content-type": "application/json" } });
      expect(res.status).toBe(400);
    }
  });
});
