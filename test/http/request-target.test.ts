import { describe, expect, it } from "bun:test";
import { ApiError } from "../../src/errors.ts";
import { readRequestTarget, validHost } from "../../src/http/request-target.ts";

const codeOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error instanceof ApiError ? error.code : "other";
  }
  return "none";
};

describe("validHost", () => {
  it("accepts names, addresses and ports a caller may send", () => {
    for (const host of ["a", "app", "App.Example.com", "my_service", "127.0.0.1:8402", "[::1]", "[::1]:80", "example.com.", "a:65535"]) expect(validHost(host)).toBe(host.toLowerCase());
  });

  it("refuses what is not a host[:port]", () => {
    for (const host of [null, "", "a b", "%", "a:99999", "a:", "-a", "a..b", "x".repeat(64), "évil.example", "[zz]", "a/b", "a@b"]) expect(validHost(host)).toBeUndefined();
  });
});

describe("readRequestTarget", () => {
  it("keeps the path and query, and the origin from the Host", () => {
    expect(readRequestTarget("http://app/v1/jobs?x=1", "app")).toEqual({ pathAndQuery: "/v1/jobs?x=1", path: "/v1/jobs", origin: "http://app" });
    expect(readRequestTarget("/health", "127.0.0.1:8402").origin).toBe("http://127.0.0.1:8402");
  });

  it("takes the host from an absolute URL when no Host header came (in-process requests)", () => {
    expect(readRequestTarget("http://127.0.0.1:8402/health", null).origin).toBe("http://127.0.0.1:8402");
  });

  it("refuses CONNECT targets, a missing Host and malformed escapes", () => {
    expect(codeOf(() => readRequestTarget("127.0.0.1:1", "127.0.0.1:1"))).toBe("INVALID_HOST");
    expect(codeOf(() => readRequestTarget("/health", null))).toBe("INVALID_HOST");
    expect(codeOf(() => readRequestTarget("/v1/payments/%ff", "a"))).toBe("INVALID_REQUEST");
  });
});
