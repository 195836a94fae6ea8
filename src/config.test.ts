import { describe, expect, it } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, envName, flagName, loadConfig } from "./config.ts";

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  throw new Error("expected a ConfigError");
}

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
    expect(loadConfig({ argv: ["--payments", "on"] }).host).toBe("0.0.0.0");
    expect(loadConfig({ argv: ["--payments", "off", "--host", "0.0.0.0"] }).host).toBe("0.0.0.0");
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
