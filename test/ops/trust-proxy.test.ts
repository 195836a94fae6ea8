/**
 * --trust-proxy over real sockets: requests leave from 127.0.0.2 (the trusted proxy) and
 * 127.0.0.3 (an untrusted peer), both naming the same client 203.0.113.7. Only the trusted one
 * may name it: rate limits, idempotency scopes and the log line follow the resolved client.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import http from "node:http";
import { type RunningService, startService } from "../../src/boot.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { createClientResolver, parseTrustedProxies, type TrustedProxies } from "../../src/http/client-address.ts";
import { createMemoryLogger } from "../../src/log.ts";
import { join } from "node:path";
import { repoRoot } from "../support/binary-build.ts";

const trustedProxy = "127.0.0.2";
const otherPeer = "127.0.0.3";
const client = "203.0.113.7";

let service: RunningService;
let log: ReturnType<typeof createMemoryLogger>;

beforeAll(async () => {
  log = createMemoryLogger();
  const config = loadConfig({ argv: ["--port", "0", "--data", ":memory:", "--trust-proxy", `${trustedProxy}/32, 10.0.0.0/8`, "--plugins", join(repoRoot, "examples"), "--rate-limit-per-min", "2", "--render", "off", "--extract-workers", "0"] });
  service = await startService(config, { log });
});
afterAll(() => service.close());

function post(from: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: service.server.port, path, method: "POST", localAddress: from, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const clientOf = (requestId: string) => log.lines.find((l) => l.msg === "request" && l.request_id === requestId)?.client;

describe("--trust-proxy", () => {
  it("lets only the trusted proxy name the client, in the log line", async () => {
    const viaProxy = await post(trustedProxy, "/v1/jobs", { skill: "word.count", text: "a" }, { "x-forwarded-for": `198.51.100.1, ${client}` });
    expect(viaProxy.status).toBe(200);
    expect(clientOf(String(viaProxy.headers["x-request-id"]))).toBe(client);
    const viaOther = await post(otherPeer, "/v1/jobs", { skill: "word.count", text: "a" }, { "x-forwarded-for": client });
    expect(viaOther.status).toBe(200);
    expect(clientOf(String(viaOther.headers["x-request-id"]))).toBe(otherPeer);
    const forwarded = await post(trustedProxy, "/v1/jobs", { skill: "word.count", text: "a" }, { forwarded: `for="[2001:db8::17]:4711";proto=https` });
    expect(clientOf(String(forwarded.headers["x-request-id"]))).toBe("2001:db8::17");
  });

  it("keeps idempotency scopes per resolved client", async () => {
    const key = { "idempotency-key": "same-key-1" };
    const first = await post(trustedProxy, "/v1/jobs", { skill: "word.count", text: "one two" }, { ...key, "x-forwarded-for": "198.51.100.20" });
    expect(first.status).toBe(200);
    // The same client through the proxy again: a replay of its own key.
    const replay = await post(trustedProxy, "/v1/jobs", { skill: "word.count", text: "one two" }, { ...key, "x-forwarded-for": "198.51.100.20" });
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    // The untrusted peer naming that client is not that client: no replay of its response.
    const spoof = await post(otherPeer, "/v1/jobs", { skill: "word.count", text: "three" }, { ...key, "x-forwarded-for": "198.51.100.20" });
    expect(spoof.status).toBe(200);
    expect(spoof.headers["idempotent-replayed"]).toBeUndefined();
  });

  it("rate-limits each resolved client on its own, and an untrusted peer as itself", async () => {
    const call = (from: string, xff: string) => post(from, "/v1/jobs", { skill: "word.count", text: "x" }, { "x-forwarded-for": xff });
    // 2 per minute: two clients behind the proxy each get their two.
    expect((await call(trustedProxy, "192.0.2.1")).status).toBe(200);
    expect((await call(trustedProxy, "192.0.2.1")).status).toBe(200);
    expect((await call(trustedProxy, "192.0.2.2")).status).toBe(200);
    expect((await call(trustedProxy, "192.0.2.1")).status).toBe(429);
    expect((await call(trustedProxy, "192.0.2.2")).status).toBe(200);
    // The untrusted peer cannot borrow a fresh client address to dodge its own limit
    // (it already spent its two in the tests above under its own address).
    const dodge = await call(otherPeer, "192.0.2.99");
    expect(dodge.status).toBe(429);
  });

  it("lists the peers seen, with the ones that sent forwarding headers", () => {
    const peers = service.clients.peers();
    expect(peers.find((p) => p.address === trustedProxy)).toMatchObject({ trusted: true });
    expect(peers.find((p) => p.address === otherPeer)).toMatchObject({ trusted: false });
    expect(peers.find((p) => p.address === otherPeer)!.forwarded).toBeGreaterThan(0);
  });
});

describe("client resolution rules", () => {
  const trusted = parseTrustedProxies("10.0.0.0/8,fd00::/8") as TrustedProxies;
  const resolve = (peer: string, headers: Record<string, string>) => createClientResolver(trusted).resolve(peer, new Headers(headers));

  it("walks the chain from the right past trusted hops", () => {
    expect(resolve("10.0.0.1", { "x-forwarded-for": "192.0.2.5, 10.1.1.1" })).toBe("192.0.2.5");
    // A client-supplied leftmost entry is not believed once an untrusted hop is found.
    expect(resolve("10.0.0.1", { "x-forwarded-for": "1.2.3.4, 192.0.2.5" })).toBe("192.0.2.5");
    expect(resolve("::ffff:10.0.0.1", { "x-forwarded-for": "192.0.2.5" })).toBe("192.0.2.5");
    expect(resolve("fd00::1", { forwarded: "for=192.0.2.60:1234, for=10.2.2.2" })).toBe("192.0.2.60");
    // The proxy's X-Forwarded-For wins over a Forwarded header the caller sent through it.
    expect(resolve("10.0.0.1", { forwarded: "for=1.2.3.4", "x-forwarded-for": "192.0.2.5" })).toBe("192.0.2.5");
    expect(resolve("10.0.0.1", { "x-forwarded-for": "garbage, 10.0.0.9" })).toBe("10.0.0.9");
    expect(resolve("10.0.0.1", { forwarded: "for=unknown" })).toBe("10.0.0.1");
    expect(resolve("192.0.2.9", { "x-forwarded-for": "192.0.2.5" })).toBe("192.0.2.9");
    expect(createClientResolver(undefined).resolve("10.0.0.1", new Headers({ "x-forwarded-for": "192.0.2.5" }))).toBe("10.0.0.1");
  });

  it("refuses a setting that is not CIDR, naming the flag", () => {
    expect(() => loadConfig({ argv: ["--trust-proxy", "10.0.0.0/33"] })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { TOLLBOOTH_TRUST_PROXY: "caddy" } })).toThrow(/TOLLBOOTH_TRUST_PROXY: "caddy" is not/);
    expect(loadConfig({ argv: ["--trust-proxy", "127.0.0.1,::1"] }).trustProxy).toBe("127.0.0.1,::1");
  });
});
