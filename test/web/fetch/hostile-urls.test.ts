/**
 * The hostile URL table (issue 3): every address class and spelling, names resolving into
 * private space, redirects into private space, userinfo, bad ports and schemes — each refused
 * through the engine's public read() with the right code, and no connection made to the target.
 *
 * The engine runs in production mode (no loopback switch). Resolution is injected. The only
 * host the table lets through is `origin.test`, vetted as a public address (93.184.216.34); the
 * connector records every attempt and routes that one stand-in address to the loopback page
 * server, so redirect rows start from a real HTTP origin. Any other attempt is recorded and
 * rejected without opening a socket: no packet can leave even when a guard is broken.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { ApiError } from "../../../src/errors.ts";
import { createWebEngine } from "../../../src/web/engine.ts";
import { type Connector, createPinnedConnector } from "../../../src/web/fetch/http-connector.ts";
import { createStaticResolver } from "../../../src/web/fetch/resolver.ts";
import { type PageServer, ROBOTS_ALLOW, startPageServer } from "../../support/page-server.ts";

const USER_AGENT = "Tollbooth/0.1 (+https://tollbooth.example/contact)";
/** The public address origin.test resolves to; the connector sends it to the loopback page server. */
const ORIGIN_ADDRESS = "93.184.216.34";

let site: PageServer;
beforeAll(() => {
  site = startPageServer({ robots: ROBOTS_ALLOW });
});
afterAll(async () => {
  await site.stop();
});

interface Attempt {
  /** The address the engine vetted and asked to connect to. */
  vetted: string;
  /** Where a socket actually went ("" when none was opened). */
  connected: string;
  url: string;
}

function createRoutingConnector(attempts: Attempt[]): Connector {
  const real = createPinnedConnector();
  return (request) => {
    if (request.address !== ORIGIN_ADDRESS) {
      attempts.push({ vetted: request.address, connected: "", url: request.url.href });
      return Promise.reject(new Error(`test connector refused to connect to ${request.address}`));
    }
    attempts.push({ vetted: request.address, connected: "127.0.0.1", url: request.url.href });
    return real({ ...request, address: "127.0.0.1", port: site.port });
  };
}

const BASE_DNS: Record<string, string[]> = {
  "origin.test": [ORIGIN_ADDRESS],
  localhost: ["127.0.0.1"],
  "internal.corp": ["10.0.0.5"],
  "metadata.google.internal": ["169.254.169.254"],
};

/** A URL on origin.test that redirects to `target` (status 302 unless given). */
function redirectTo(target: string, status = 302): string {
  return `http://origin.test/redirect-to?status=${status}&url=${encodeURIComponent(target)}`;
}

type Code = "URL_NOT_ALLOWED" | "TARGET_NOT_PUBLIC" | "DNS_FAILED";
/** [what, url, extra name → addresses, expected code] */
type Row = [string, string, Record<string, string[]>, Code];

const ROWS: Row[] = [
  // schemes and syntax
  ["ftp scheme", "ftp://origin.test/file.txt", {}, "URL_NOT_ALLOWED"],
  ["file scheme", "file:///etc/passwd", {}, "URL_NOT_ALLOWED"],
  ["gopher scheme", "gopher://origin.test:70/_stats", {}, "URL_NOT_ALLOWED"],
  ["javascript scheme", "javascript:alert(1)", {}, "URL_NOT_ALLOWED"],
  ["data scheme", "data:text/html,<h1>hi</h1>", {}, "URL_NOT_ALLOWED"],
  ["ws scheme", "ws://origin.test/socket", {}, "URL_NOT_ALLOWED"],
  ["no host", "http://", {}, "URL_NOT_ALLOWED"],
  ["not a URL", "origin.test/page", {}, "URL_NOT_ALLOWED"],
  ["URL over 2048 characters", `http://origin.test/${"a".repeat(2048)}`, {}, "URL_NOT_ALLOWED"],
  // ports
  ["port 8080", "http://origin.test:8080/", {}, "URL_NOT_ALLOWED"],
  ["port 22 over https", "https://origin.test:22/", {}, "URL_NOT_ALLOWED"],
  ["redis port", "http://origin.test:6379/", {}, "URL_NOT_ALLOWED"],
  ["port 0", "http://origin.test:0/", {}, "URL_NOT_ALLOWED"],
  // userinfo
  ["user and password", "http://user:pass@origin.test/", {}, "URL_NOT_ALLOWED"],
  ["user only", "http://user@origin.test/", {}, "URL_NOT_ALLOWED"],
  ["public name as userinfo before a private host", "http://origin.test@10.0.0.1/", {}, "URL_NOT_ALLOWED"],
  ["encoded slash in userinfo", "http://127.0.0.1%2f@origin.test/", {}, "URL_NOT_ALLOWED"],
  // numeric spellings of IPv4
  ["decimal loopback", "http://2130706433/", {}, "URL_NOT_ALLOWED"],
  ["hex loopback", "http://0x7f000001/", {}, "URL_NOT_ALLOWED"],
  ["octal loopback", "http://0177.0.0.1/", {}, "URL_NOT_ALLOWED"],
  ["short loopback", "http://127.1/", {}, "URL_NOT_ALLOWED"],
  ["mixed hex part", "http://0x7f.0.0.1/", {}, "URL_NOT_ALLOWED"],
  ["hex last part", "http://127.0.0.0x1/", {}, "URL_NOT_ALLOWED"],
  ["whole octal", "http://017700000001/", {}, "URL_NOT_ALLOWED"],
  ["zero-padded parts", "http://127.000.000.001/", {}, "URL_NOT_ALLOWED"],
  ["decimal 10.0.0.1", "http://167772161/", {}, "URL_NOT_ALLOWED"],
  ["decimal metadata", "http://2852039166/latest/meta-data/", {}, "URL_NOT_ALLOWED"],
  ["hex metadata", "http://0xa9.0xfe.0xa9.0xfe/", {}, "URL_NOT_ALLOWED"],
  ["octal metadata", "http://0251.0376.0251.0376/", {}, "URL_NOT_ALLOWED"],
  ["single zero", "http://0/", {}, "URL_NOT_ALLOWED"],
  ["percent-encoded digits", "http://%31%32%37.0.0.1/", {}, "URL_NOT_ALLOWED"],
  ["full-width digits", "http://１２７.0.0.1/", {}, "URL_NOT_ALLOWED"],
  ["circled digits", "http://①②⑦.0.0.1/", {}, "URL_NOT_ALLOWED"],
  // dotted-decimal literals of every non-public class
  ["loopback", "http://127.0.0.1/", {}, "TARGET_NOT_PUBLIC"],
  ["loopback, trailing dot", "http://127.0.0.1./", {}, "TARGET_NOT_PUBLIC"],
  ["loopback elsewhere in 127/8", "http://127.53.1.1/", {}, "TARGET_NOT_PUBLIC"],
  ["this network 0/8", "http://0.0.0.0/", {}, "TARGET_NOT_PUBLIC"],
  ["private 10/8", "http://10.1.2.3/", {}, "TARGET_NOT_PUBLIC"],
  ["private 172.16/12", "http://172.16.5.4/", {}, "TARGET_NOT_PUBLIC"],
  ["private 172.31", "http://172.31.255.254/", {}, "TARGET_NOT_PUBLIC"],
  ["private 192.168/16", "http://192.168.0.1/", {}, "TARGET_NOT_PUBLIC"],
  ["link-local metadata", "http://169.254.169.254/latest/meta-data/", {}, "TARGET_NOT_PUBLIC"],
  ["CGNAT 100.64/10", "http://100.64.0.1/", {}, "TARGET_NOT_PUBLIC"],
  ["CGNAT top", "http://100.127.255.254/", {}, "TARGET_NOT_PUBLIC"],
  ["IETF protocol assignments", "http://192.0.0.170/", {}, "TARGET_NOT_PUBLIC"],
  ["documentation TEST-NET-1", "http://192.0.2.10/", {}, "TARGET_NOT_PUBLIC"],
  ["documentation TEST-NET-2", "http://198.51.100.10/", {}, "TARGET_NOT_PUBLIC"],
  ["documentation TEST-NET-3", "http://203.0.113.10/", {}, "TARGET_NOT_PUBLIC"],
  ["benchmarking 198.18/15", "http://198.19.0.1/", {}, "TARGET_NOT_PUBLIC"],
  ["6to4 relay anycast", "http://192.88.99.1/", {}, "TARGET_NOT_PUBLIC"],
  ["multicast", "http://224.0.0.251/", {}, "TARGET_NOT_PUBLIC"],
  ["reserved 240/4", "http://240.0.0.1/", {}, "TARGET_NOT_PUBLIC"],
  ["broadcast", "http://255.255.255.255/", {}, "TARGET_NOT_PUBLIC"],
  // IPv6 literals
  ["IPv6 loopback", "http://[::1]/", {}, "TARGET_NOT_PUBLIC"],
  ["IPv6 unspecified", "http://[::]/", {}, "TARGET_NOT_PUBLIC"],
  ["IPv4-mapped loopback", "http://[::ffff:127.0.0.1]/", {}, "TARGET_NOT_PUBLIC"],
  ["IPv4-mapped metadata, hex", "http://[::ffff:a9fe:a9fe]/", {}, "TARGET_NOT_PUBLIC"],
  ["public IPv6 (IPv4 only)", "http://[2606:4700::1111]/", {}, "TARGET_NOT_PUBLIC"],
  ["IPv6 with zone id", "http://[fe80::1%25eth0]/", {}, "URL_NOT_ALLOWED"],
  // names resolving into private space
  ["localhost", "http://localhost/", {}, "TARGET_NOT_PUBLIC"],
  ["LOCALHOST with trailing dot", "http://LOCALHOST./", {}, "TARGET_NOT_PUBLIC"],
  ["percent-encoded localhost", "http://loc%61lhost/", {}, "TARGET_NOT_PUBLIC"],
  ["name → 10/8", "http://internal.corp/admin", {}, "TARGET_NOT_PUBLIC"],
  ["name → metadata", "http://metadata.google.internal/computeMetadata/v1/", {}, "TARGET_NOT_PUBLIC"],
  ["name → CGNAT", "https://carrier.test/", { "carrier.test": ["100.100.100.100"] }, "TARGET_NOT_PUBLIC"],
  ["name → 0.0.0.0", "http://zero.test/", { "zero.test": ["0.0.0.0"] }, "TARGET_NOT_PUBLIC"],
  ["name → multicast", "http://mcast.test/", { "mcast.test": ["239.1.1.1"] }, "TARGET_NOT_PUBLIC"],
  ["name → benchmarking", "http://bench.test/", { "bench.test": ["198.18.7.7"] }, "TARGET_NOT_PUBLIC"],
  ["one public and one private address", "http://mixed.test/", { "mixed.test": [ORIGIN_ADDRESS, "192.168.1.1"] }, "TARGET_NOT_PUBLIC"],
  ["private address listed first", "http://mixed2.test/", { "mixed2.test": ["10.9.9.9", ORIGIN_ADDRESS] }, "TARGET_NOT_PUBLIC"],
  ["name → IPv4-mapped IPv6", "http://mapped.test/", { "mapped.test": ["::ffff:10.0.0.1", ORIGIN_ADDRESS] }, "TARGET_NOT_PUBLIC"],
  ["name → NAT64 of a private address", "http://nat64.test/", { "nat64.test": ["64:ff9b::a00:1"] }, "TARGET_NOT_PUBLIC"],
  ["name → 6to4", "http://sixtofour.test/", { "sixtofour.test": ["2002:a00:1::1"] }, "TARGET_NOT_PUBLIC"],
  ["name → Teredo", "http://teredo.test/", { "teredo.test": ["2001:0:4136:e378:8000:63bf:3fff:fdd2"] }, "TARGET_NOT_PUBLIC"],
  ["name with only IPv6", "http://v6only.test/", { "v6only.test": ["2606:2800:220:1:248:1893:25c8:1946"] }, "TARGET_NOT_PUBLIC"],
  ["resolver answers garbage", "http://garbage.test/", { "garbage.test": ["not-an-address"] }, "TARGET_NOT_PUBLIC"],
  ["name that does not resolve", "http://nxdomain.test/", {}, "DNS_FAILED"],
  ["name with no address", "http://empty.test/", { "empty.test": [] }, "DNS_FAILED"],
  // redirects from a public origin into private space, bad schemes, ports and userinfo
  ["redirect → loopback", redirectTo("http://127.0.0.1/"), {}, "TARGET_NOT_PUBLIC"],
  ["redirect → metadata", redirectTo("http://169.254.169.254/latest/meta-data/"), {}, "TARGET_NOT_PUBLIC"],
  ["301 → name in 10/8", redirectTo("http://internal.corp/admin", 301), {}, "TARGET_NOT_PUBLIC"],
  ["307 → private literal", redirectTo("http://192.168.0.1/", 307), {}, "TARGET_NOT_PUBLIC"],
  ["308 → localhost", redirectTo("https://localhost/", 308), {}, "TARGET_NOT_PUBLIC"],
  ["303 → CGNAT", redirectTo("http://100.64.1.1/", 303), {}, "TARGET_NOT_PUBLIC"],
  ["protocol-relative redirect → metadata", redirectTo("//169.254.169.254/x"), {}, "TARGET_NOT_PUBLIC"],
  ["redirect → IPv6 loopback", redirectTo("http://[::1]/"), {}, "TARGET_NOT_PUBLIC"],
  // The raw Location is vetted before URL normalisation would turn these spellings into dotted decimal.
  ["redirect → decimal loopback", redirectTo("http://2130706433/"), {}, "URL_NOT_ALLOWED"],
  ["redirect → hex metadata", redirectTo("http://0xa9fea9fe/"), {}, "URL_NOT_ALLOWED"],
  ["redirect → decimal spelling of a public address", redirectTo("http://134744072/"), {}, "URL_NOT_ALLOWED"],
  ["protocol-relative redirect → octal spelling", redirectTo("//0177.0.0.1/"), {}, "URL_NOT_ALLOWED"],
  ["redirect → file scheme", redirectTo("file:///etc/passwd"), {}, "URL_NOT_ALLOWED"],
  ["redirect → gopher", redirectTo("gopher://origin.test:70/_x"), {}, "URL_NOT_ALLOWED"],
  ["redirect → port 8443", redirectTo("https://origin.test:8443/"), {}, "URL_NOT_ALLOWED"],
  ["redirect → localhost port 6379", redirectTo("http://localhost:6379/"), {}, "URL_NOT_ALLOWED"],
  ["redirect → userinfo", redirectTo("http://user:pass@origin.test/"), {}, "URL_NOT_ALLOWED"],
  ["two hops, then 10/8", redirectTo(redirectTo("http://10.0.0.1/")), {}, "TARGET_NOT_PUBLIC"],
  ["redirect → a name resolving to 10/8", redirectTo("http://private-name.test/"), { "private-name.test": ["10.0.0.7"] }, "TARGET_NOT_PUBLIC"],
];

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return error instanceof ApiError ? error.code : `not an ApiError: ${String(error)}`;
  }
  return "no error";
}

function setup(extraDns: Record<string, string[]>) {
  const attempts: Attempt[] = [];
  const engine = createWebEngine({
    userAgent: USER_AGENT,
    allowLoopbackTargets: false,
    resolver: createStaticResolver({ ...BASE_DNS, ...extraDns }),
    connector: createRoutingConnector(attempts),
    totalTimeoutMs: 5_000,
  });
  return { engine, attempts };
}

describe("web hostile URL table", () => {
  it("has at least 40 distinct hostile URLs", () => {
    expect(new Set(ROWS.map((row) => row[1])).size).toBeGreaterThanOrEqual(40);
  });

  it("reads the public origin through the same harness (so refusals below are the guard's)", async () => {
    const { engine, attempts } = setup({});
    const result = await engine.read({ url: "http://origin.test/pages/article.html", format: "text", maxChars: 20_000 }, AbortSignal.timeout(10_000));
    expect(result.title).toBe("River Survey Results | Example News");
    const followed = await engine.read({ url: redirectTo("http://origin.test/pages/short.html"), format: "text", maxChars: 20_000 }, AbortSignal.timeout(10_000));
    expect(followed.final_url).toBe("http://origin.test/pages/short.html");
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.every((a) => a.vetted === ORIGIN_ADDRESS && a.connected === "127.0.0.1")).toBe(true);
  });

  it.each(ROWS)("%s: %s is refused with %p", async (_what, url, dns, code) => {
    const { engine, attempts } = setup(dns);
    const before = site.hits("/redirect-to");
    expect(await codeOf(engine.read({ url, format: "text", maxChars: 20_000 }, AbortSignal.timeout(10_000)))).toBe(code);
    // No connection to the target: the only address ever dialled is the public origin stand-in, over loopback.
    expect(attempts.filter((a) => a.vetted !== ORIGIN_ADDRESS || a.connected !== "127.0.0.1")).toEqual([]);
    if (url.startsWith("http://origin.test/redirect-to")) {
      // The redirect was really served, and nothing after it was requested.
      expect(site.hits("/redirect-to")).toBeGreaterThan(before);
      expect(attempts.every((a) => new URL(a.url).pathname === "/redirect-to" || new URL(a.url).pathname === "/robots.txt")).toBe(true);
    } else {
      expect(attempts).toEqual([]);
    }
  });
});
