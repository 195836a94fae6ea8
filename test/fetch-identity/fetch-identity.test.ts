/**
 * Web Bot Auth on the fetcher (--fetch-identity on): a loopback origin checks every request it gets
 * as a site would, with the web-bot-auth library's verifier and the keys it fetches from our
 * server's /.well-known/http-message-signatures-directory (itself checked as signed by the
 * directory's key); a rotated key keeps verifying; off by default, nothing is signed and no
 * directory is served.
 * @see issue 42
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verify as verifyMessage } from "http-message-sig";
import { HTTP_MESSAGE_SIGNATURES_DIRECTORY, MediaType, verify } from "web-bot-auth";
import { verifierFromJWK } from "web-bot-auth/crypto";
import { buildService, type Service } from "../../src/boot.ts";
import { loadConfig } from "../../src/config.ts";
import { rotateEvidenceKeys } from "../../src/evidence/key-file.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { problemsOf } from "../support/config-problems.ts";
import { skipWithout } from "../support/requirements.ts";

const noBrowser = skipWithout("chromium", "the browser's requests signed when rendering");

type Jwk = JsonWebKey & { kid: string };
interface Seen {
  path: string;
  request: Request;
  /** The keyid that verified, or why verification failed. */
  verdict: { ok: true; keyid: string } | { ok: false; reason: string };
}

const dataDir = mkdtempSync(join(tmpdir(), "tollbooth-fetch-identity-"));
let front: ReturnType<typeof Bun.serve>;
let origin: ReturnType<typeof Bun.serve>;
let signing: Service;
let plain: Service;
const seen: Seen[] = [];

/** What a site does: the directory named by Signature-Agent, checked as signed by its own keys. */
async function fetchDirectory(agentHeader: string): Promise<Jwk[]> {
  const base = JSON.parse(agentHeader) as string;
  const response = await fetch(new URL(HTTP_MESSAGE_SIGNATURES_DIRECTORY, base));
  if (response.headers.get("content-type") !== MediaType.HTTP_MESSAGE_SIGNATURES_DIRECTORY) throw new Error(`directory content type ${response.headers.get("content-type")}`);
  const directory = (await response.json()) as { keys: Jwk[] };
  await verifyMessage({ request: { method: "GET", url: response.url, headers: {} }, response: { status: response.status, headers: response.headers } }, async (data, signature, params) => {
    if (params.tag !== "http-message-signatures-directory") throw new Error("directory signature tag");
    const jwk = directory.keys.find((k) => k.kid === params.keyid);
    if (!jwk) throw new Error("directory signed by a key it does not list");
    await (await verifierFromJWK(jwk))(data, signature, params as never);
  });
  return directory.keys;
}

/** Verifies a request as the site would; throws when it does not verify. */
async function verifyRequest(request: Request): Promise<string> {
  const agent = request.headers.get("signature-agent");
  if (!agent) throw new Error("no Signature-Agent");
  const keys = await fetchDirectory(agent);
  return verify(request, async (data, signature, params) => {
    const jwk = keys.find((k) => k.kid === params.keyid);
    if (!jwk) throw new Error(`keyid ${params.keyid} is not in the directory`);
    await (await verifierFromJWK(jwk))(data, signature, params);
    return params.keyid;
  });
}

async function serviceWith(argv: string[]): Promise<Service> {
  return buildService(loadConfig({ argv: ["--memory-soft-limit-mb", "0", "--unsafe-allow-loopback-targets", ...argv] }), { log: createMemoryLogger() });
}

const read = (service: Service, path: string) =>
  service.handle(
    new Request("http://127.0.0.1:8402/v1/web/read", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: `http://127.0.0.1:${origin.port}${path}` }) }),
    "127.0.0.1",
  );

beforeAll(async () => {
  let handle: ((request: Request) => Promise<Response>) | undefined;
  front = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => (handle ? handle(request) : new Response("starting", { status: 503 })) });
  origin = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const verdict = await verifyRequest(request.clone()).then(
        (keyid) => ({ ok: true as const, keyid }),
        (error: Error) => ({ ok: false as const, reason: error.message }),
      );
      seen.push({ path, request, verdict });
      if (path === "/robots.txt") return new Response("User-agent: *\nDisallow: /private\n", { headers: { "content-type": "text/plain" } });
      if (path === "/app.js") return new Response("document.querySelector('main').insertAdjacentHTML('beforeend', '<p>Written by the script.</p>');", { headers: { "content-type": "text/javascript" } });
      if (path === "/app") {
        return new Response(`<!doctype html><html><head><title>App</title><script src="/app.js" defer></script></head><body><main><p>${"Words of the app. ".repeat(30)}</p></main></body></html>`, {
          headers: { "content-type": "text/html; charset=utf-8" },
        });
      }
      return new Response(`<!doctype html><html><head><title>Page ${path}</title></head><body><main><p>${"Words of the page. ".repeat(30)}</p></main></body></html>`, {
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    },
  });
  signing = await serviceWith(["--data", dataDir, "--fetch-identity", "on", "--public-url", `http://127.0.0.1:${front.port}`]);
  handle = (request) => signing.handle(request, "127.0.0.1");
  plain = await serviceWith(["--data", ":memory:"]);
}, 60_000);

afterAll(async () => {
  await signing?.close();
  await plain?.close();
  await front?.stop(true);
  await origin?.stop(true);
  rmSync(dataDir, { recursive: true, force: true });
});

describe("fetch identity (Web Bot Auth)", () => {
  it("signs every request of a read (robots.txt and the page) so the site verifies them against our published directory", async () => {
    seen.length = 0;
    const response = await read(signing, "/first");
    expect(response.status).toBe(200);
    const current = ((await (await signing.handle(new Request("http://127.0.0.1:8402/.well-known/jwks.json"), "127.0.0.1")).json()) as { keys: Jwk[] }).keys[0]!.kid;
    expect(seen.map((s) => s.path)).toEqual(["/robots.txt", "/first"]);
    for (const s of seen) expect(s.verdict).toEqual({ ok: true, keyid: current });
    expect(seen[1]!.request.headers.get("signature-agent")).toBe(`"http://127.0.0.1:${front.port}"`);
    expect(seen[1]!.request.headers.get("signature-input")).toContain('tag="web-bot-auth"');
  }, 30_000);

  it("is refused by the site's verifier when the signed request is replayed to another authority", async () => {
    const original = seen.find((s) => s.path === "/first")!.request;
    expect(await verifyRequest(original)).toBeString();
    const replayed = new Request(original.url.replace("127.0.0.1", "localhost"), { headers: original.headers });
    await expect(verifyRequest(replayed)).rejects.toThrow();
  });

  it("keeps verifying across a key rotation: new requests carry the new key, and the old key stays published", async () => {
    const before = seen.find((s) => s.path === "/first")!;
    const { retired, current } = await rotateEvidenceKeys(dataDir);
    expect(before.verdict).toEqual({ ok: true, keyid: retired });
    // A running server notices a rotated key file within a second.
    await Bun.sleep(1200);
    seen.length = 0;
    expect((await read(signing, "/second")).status).toBe(200);
    const page = seen.find((s) => s.path === "/second")!;
    expect(page.verdict).toEqual({ ok: true, keyid: current });
    const directory = await fetchDirectory(`"http://127.0.0.1:${front.port}"`);
    expect(directory.map((k) => k.kid).sort()).toEqual([current, retired].sort());
    // The request signed before the rotation still verifies (within its one-minute lifetime).
    expect(await verifyRequest(before.request)).toBe(retired);
  }, 30_000);

  it("is off by default: no signature headers go out and no directory is served", async () => {
    seen.length = 0;
    expect((await read(plain, "/unsigned")).status).toBe(200);
    expect(seen.map((s) => s.path)).toEqual(["/robots.txt", "/unsigned"]);
    for (const s of seen) {
      for (const header of ["signature", "signature-input", "signature-agent"]) expect(s.request.headers.get(header)).toBeNull();
      expect(s.verdict).toEqual({ ok: false, reason: "no Signature-Agent" });
    }
    const directory = await plain.handle(new Request(`http://127.0.0.1:8402${HTTP_MESSAGE_SIGNATURES_DIRECTORY}`), "127.0.0.1");
    expect(directory.status).toBe(404);
  }, 30_000);

  it.skipIf(noBrowser)("signs the browser's requests when rendering (the page and its script), verified by the site", async () => {
    seen.length = 0;
    const response = await signing.handle(
      new Request("http://127.0.0.1:8402/v1/web/read", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: `http://127.0.0.1:${origin.port}/app`, render: true }) }),
      "127.0.0.1",
    );
    const body = (await response.json()) as { text?: string };
    expect(response.status).toBe(200);
    expect(body.text).toContain("Written by the script.");
    const byPath = new Map(seen.map((s) => [s.path, s.verdict]));
    expect(byPath.get("/app")).toMatchObject({ ok: true });
    expect(byPath.get("/app.js")).toMatchObject({ ok: true });
    expect(seen.filter((s) => !s.verdict.ok)).toEqual([]);
  }, 120_000);

  it("needs --public-url to be turned on", () => {
    expect(problemsOf(() => loadConfig({ argv: ["--fetch-identity", "on"] }))).toEqual([
      "--fetch-identity: on needs --public-url (Signature-Agent names it, and sites fetch the key directory from it)",
    ]);
  });
});
