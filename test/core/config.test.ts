import { describe, expect, it } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { envName, flagName, loadConfig, storeProblems } from "../../src/config.ts";
import { problemsOf } from "../support/config-problems.ts";

describe("config", () => {
  it("has working defaults: port 8402, ./data, payments off bound to loopback", () => {
    const config = loadConfig({});
    expect(config.port).toBe(8402);
    expect(config.data).toBe("./data");
    expect(config.payments).toBe("off");
    expect(config.host).toBe("127.0.0.1");
    expect(config.unsafeAllowLoopbackTargets).toBe(false);
  });

  it("binds all interfaces by default only when payments are on", () => {
    const paid = ["--payments", "on", "--pay-to-base", "0x" + "a".repeat(40), "--facilitator-url", "http://127.0.0.1:9/"];
    expect(loadConfig({ argv: paid }).host).toBe("0.0.0.0");
    expect(loadConfig({ argv: ["--payments", "off", "--host", "0.0.0.0"] }).host).toBe("0.0.0.0");
  });

  it("refuses payments on without anywhere to be paid", () => {
    expect(problemsOf(() => loadConfig({ argv: ["--payments", "on"] }))[0]).toContain("--pay-to-base");
    expect(problemsOf(() => loadConfig({ argv: ["--payments", "on", "--pay-to-base", "0x" + "b".repeat(40)] }))[0]).toContain("--facilitator-url");
    expect(problemsOf(() => loadConfig({ argv: ["--pay-to-base", "0x12"] }))[0]).toContain("--pay-to-base: must match");
  });

  it("takes the full x402 configuration as JSON from a variable", () => {
    const x402 = { networks: [{ family: "evm", network: "eip155:8453", payTo: "0x" + "c".repeat(40), settlement: "remote" }], facilitator: { url: "http://127.0.0.1:9" } };
    const config = loadConfig({ argv: ["--payments", "on"], env: { TOLLBOOTH_X402: JSON.stringify(x402) } });
    expect(config.x402?.networks[0]?.payTo).toBe("0x" + "c".repeat(40));
    expect(problemsOf(() => loadConfig({ env: { TOLLBOOTH_X402: '{"networks": "nope"}' } }))[0]).toContain("TOLLBOOTH_X402");
  });

  it("derives flag and variable names from the key", () => {
    expect(flagName("unsafeAllowLoopbackTargets")).toBe("unsafe-allow-loopback-targets");
    expect(envName("unsafeAllowLoopbackTargets")).toBe("TOLLBOOTH_UNSAFE_ALLOW_LOOPBACK_TARGETS");
    expect(envName("payments")).toBe("TOLLBOOTH_PAYMENTS");
  });

  it("takes flags over variables over the file", () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-config-"));
    const file = join(dir, "tollbooth.json");
    writeFileSync(file, JSON.stringify({ port: 7000, data: "/var/tb", logLevel: "warn" }));
    const config = loadConfig({
      argv: ["--port=9000", "--config", file],
      env: { TOLLBOOTH_PORT: "8000", TOLLBOOTH_DATA: "/srv/tb" },
    });
    expect(config.port).toBe(9000);
    expect(config.data).toBe("/srv/tb");
    expect(config.logLevel).toBe("warn");
  });

  it("accepts the test-only loopback switch as a bare flag or a variable", () => {
    expect(loadConfig({ argv: ["--unsafe-allow-loopback-targets"] }).unsafeAllowLoopbackTargets).toBe(true);
    expect(loadConfig({ env: { TOLLBOOTH_UNSAFE_ALLOW_LOOPBACK_TARGETS: "1" } }).unsafeAllowLoopbackTargets).toBe(true);
  });

  it("names every bad flag, variable and file key together", () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-config-"));
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ porty: 1, logLevel: "loud" }));
    const problems = problemsOf(() =>
      loadConfig({ argv: ["--port", "http", "--bogus", "--config", file], env: { TOLLBOOTH_PAYMENTS: "maybe" } }),
    );
    expect(problems.some((p) => p.startsWith("--port:") && p.includes("whole number"))).toBe(true);
    expect(problems.some((p) => p.startsWith("--bogus: unknown flag"))).toBe(true);
    expect(problems.some((p) => p.startsWith("TOLLBOOTH_PAYMENTS:") && p.includes('"on", "off"'))).toBe(true);
    expect(problems.some((p) => p.includes('unknown key "porty"'))).toBe(true);
    expect(problems.some((p) => p.includes('key "logLevel"'))).toBe(true);
  });

  it("says when a flag is missing its value or the file is unreadable", () => {
    expect(problemsOf(() => loadConfig({ argv: ["--port"] }))[0]).toContain("--port: needs a value");
    expect(problemsOf(() => loadConfig({ argv: ["--config", "/nonexistent/tb.json"] }))[0]).toContain("config file /nonexistent/tb.json");
  });
});

describe("--database-url", () => {
  it("takes a postgres:// URL from the flag or TOLLBOOTH_DATABASE_URL and refuses anything else", () => {
    expect(loadConfig({ argv: ["--database-url", "postgres://tb@127.0.0.1:5432/tollbooth"], env: {} }).databaseUrl).toBe("postgres://tb@127.0.0.1:5432/tollbooth");
    expect(loadConfig({ argv: [], env: { TOLLBOOTH_DATABASE_URL: "postgresql://tb@db/tollbooth" } }).databaseUrl).toBe("postgresql://tb@db/tollbooth");
    expect(() => loadConfig({ argv: ["--database-url", "mysql://db/x"], env: {} })).toThrow(/--database-url/);
  });

  it("refuses a database URL, naming the flag, only while a table family has no PostgreSQL engine", () => {
    expect(storeProblems({ databaseUrl: undefined }, ["toy family"])).toEqual([]);
    expect(storeProblems({ databaseUrl: "postgres://tb@db/x" })).toEqual([]);
    expect(storeProblems({ databaseUrl: "postgres://tb@db/x" }, ["toy family"])).toEqual([expect.stringMatching(/--database-url: .*toy family/)]);
  });
});
