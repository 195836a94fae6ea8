import { describe, expect, it } from "bun:test";
import { ApiError } from "../../../src/errors.ts";
import { createStaticResolver } from "../../../src/web/fetch/resolver.ts";
import { classifyIPv4, resolvePublicTarget, vetTarget, vetUrl } from "../../../src/web/fetch/target-guard.ts";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof ApiError ? error.code : String(error);
  }
  return undefined;
}

async function asyncCodeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return error instanceof ApiError ? error.code : String(error);
  }
  return undefined;
}

describe("web/target-guard vetUrl", () => {
  it("accepts public http and https URLs on ports 80 and 443", () => {
    expect(vetUrl("http://example.com/a?b=1").port).toBe(80);
    expect(vetUrl("https://example.com/").port).toBe(443);
    expect(vetUrl("https://example.com:443/").port).toBe(443);
    expect(vetUrl("http://example.com:80/").port).toBe(80);
    expect(vetUrl("https://example.com:80/").port).toBe(80);
  });

  it.each([
    ["ftp://example.com/", "scheme"],
    ["file:///etc/passwd", "scheme"],
    ["javascript:alert(1)", "scheme"],
    ["http://example.com:8080/", "port"],
    ["https://example.com:22/", "port"],
    ["http://user:pass@example.com/", "userinfo"],
    ["http://user@example.com/", "userinfo"],
    ["not a url", "syntax"],
  ])("refuses %s (%s)", (url) => {
    expect(codeOf(() => vetUrl(url))).toBe("URL_NOT_ALLOWED");
  });

  it("refuses URLs longer than 2048 characters", () => {
    const base = "https://example.com/";
    expect(vetUrl(base + "a".repeat(2048 - base.length)).url.href.length).toBe(2048);
    expect(codeOf(() => vetUrl(base + "a".repeat(2049 - base.length)))).toBe("URL_NOT_ALLOWED");
  });

  it.each(["http://2130706433/", "http://0x7f000001/", "http://0177.0.0.1/", "http://127.1/", "http://0x7f.0.0.1/", "http://134744072/", "http://8.8.2056/"])(
    "refuses the numeric IPv4 spelling %s",
    (url) => {
      expect(codeOf(() => vetUrl(url))).toBe("URL_NOT_ALLOWED");
    },
  );

  it("refuses IPv6 literals", () => {
    expect(codeOf(() => vetUrl("http://[::1]/"))).toBe("TARGET_NOT_PUBLIC");
    expect(codeOf(() => vetUrl("http://[::ffff:127.0.0.1]/"))).toBe("TARGET_NOT_PUBLIC");
  });

  it("lets any port through syntax only when loopback targets are allowed", () => {
    expect(vetUrl("http://127.0.0.1:3000/", { allowLoopbackTargets: true }).port).toBe(3000);
  });
});

describe("web/target-guard addresses", () => {
  it.each([
    ["0.1.2.3", "this network"],
    ["10.0.0.1", "private"],
    ["100.64.0.1", "shared address space (CGNAT)"],
    ["100.127.255.255", "shared address space (CGNAT)"],
    ["127.0.0.1", "loopback"],
    ["169.254.169.254", "link-local"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.0.0.8", "IETF protocol assignments"],
    ["192.0.2.1", "documentation (TEST-NET-1)"],
    ["192.168.1.1", "private"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["198.51.100.7", "documentation (TEST-NET-2)"],
    ["203.0.113.9", "documentation (TEST-NET-3)"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved (includes broadcast)"],
    ["255.255.255.255", "reserved (includes broadcast)"],
  ])("classifies %s as %s", (ip, range) => {
    expect(classifyIPv4(ip)).toBe(range);
  });

  it.each(["8.8.8.8", "93.184.216.34", "100.63.255.255", "100.128.0.1", "172.15.255.255", "172.32.0.1", "198.17.255.255", "198.20.0.1", "223.255.255.255"])(
    "classifies %s as public",
    (ip) => {
      expect(classifyIPv4(ip)).toBeUndefined();
    },
  );

  const resolver = createStaticResolver({
    "public.test": ["93.184.216.34"],
    "private.test": ["10.0.0.1"],
    "metadata.test": ["169.254.169.254"],
    "cgnat.test": ["100.64.0.1"],
    "mixed.test": ["93.184.216.34", "192.168.0.10"],
    "mapped.test": ["::ffff:127.0.0.1"],
    "mapped-hex.test": ["::ffff:7f00:1"],
    "v6only.test": ["2606:2800:220:1:248:1893:25c8:1946"],
    "dual.test": ["2606:2800:220:1:248:1893:25c8:1946", "93.184.216.34"],
    "loop.test": ["127.0.0.1"],
  });

  it("returns the vetted address of a public host", async () => {
    expect(await resolvePublicTarget("public.test", { resolver, allowLoopbackTargets: false })).toBe("93.184.216.34");
    expect(await resolvePublicTarget("dual.test", { resolver, allowLoopbackTargets: false })).toBe("93.184.216.34");
  });

  it.each(["private.test", "metadata.test", "cgnat.test", "mixed.test", "mapped.test", "mapped-hex.test", "v6only.test", "loop.test"])(
    "refuses %s",
    async (host) => {
      expect(await asyncCodeOf(resolvePublicTarget(host, { resolver, allowLoopbackTargets: false }))).toBe("TARGET_NOT_PUBLIC");
    },
  );

  it("keeps refusing private, link-local and mapped addresses when loopback targets are allowed", async () => {
    for (const host of ["private.test", "metadata.test", "cgnat.test", "mapped.test"]) {
      expect(await asyncCodeOf(resolvePublicTarget(host, { resolver, allowLoopbackTargets: true }))).toBe("TARGET_NOT_PUBLIC");
    }
    expect(await resolvePublicTarget("loop.test", { resolver, allowLoopbackTargets: true })).toBe("127.0.0.1");
  });

  it("reports a name that does not resolve as DNS_FAILED", async () => {
    expect(await asyncCodeOf(resolvePublicTarget("nowhere.test", { resolver, allowLoopbackTargets: false }))).toBe("DNS_FAILED");
  });

  it("allows non-standard ports only to loopback in test mode", async () => {
    expect(await asyncCodeOf(vetTarget("http://public.test:8080/", { resolver, allowLoopbackTargets: true }))).toBe("URL_NOT_ALLOWED");
    expect((await vetTarget("http://loop.test:8080/", { resolver, allowLoopbackTargets: true })).address).toBe("127.0.0.1");
    expect(await asyncCodeOf(vetTarget("http://loop.test:8080/", { resolver, allowLoopbackTargets: false }))).toBe("URL_NOT_ALLOWED");
  });
});
