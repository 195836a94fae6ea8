/** src/logs/diagnose.ts: the rules engine on one fixed log per failure family. @see issue 16 */
import { describe, expect, it } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { DiagnosisSchema, diagnoseLog } from "../../src/logs/diagnose.ts";
import { fixtureLog, lineOf } from "./fixture-logs.ts";

interface Case {
  file: string;
  family: string;
  /** The line the diagnosis must rest on (inside the failing lines). */
  errorLine: string;
  /** A line before the failure that must stay outside the window. */
  before?: string;
  rootCause: RegExp;
  matchId: string;
  patch?: RegExp;
}

const cases: Case[] = [
  { file: "npm-travis.log", family: "npm", errorLine: "Error: Cannot find module 'left-pad'", before: 'The command "npm ci" exited with 0.', rootCause: /`left-pad`/, matchId: "npm.cannot-find-module" },
  { file: "typescript-gha.log", family: "typescript", errorLine: "TS2322", before: "added 1 packages", rootCause: /TS2322 in src\/server\.ts line 42/, matchId: "typescript.compile-error" },
  { file: "pytest-travis.log", family: "python", errorLine: "E       assert 3 == 4", before: "tests/test_mod2.py", rootCause: /assert 3 == 4/, matchId: "python.pytest-assertion" },
  { file: "go-build.log", family: "go", errorLine: "undefined: NewCache", rootCause: /`NewCache` is undefined at internal\/store\/store\.go:27/, matchId: "go.undefined" },
  { file: "rust-cargo.log", family: "rust", errorLine: "error[E0425]", before: "Compiling dep3 v0.1.3", rootCause: /E0425: cannot find value `conifg`/, matchId: "rust.compile-error" },
  { file: "maven-compile.log", family: "java", errorLine: "Cart.java:[23,9] cannot find symbol", before: "lib5-1.0.jar", rootCause: /cannot be found in .*Cart\.java line 23/, matchId: "java.cannot-find-symbol" },
  { file: "docker-build.log", family: "docker", errorLine: "ERROR: failed to solve", before: "#2 [internal]", rootCause: /apk add --no-cache python4/, matchId: "docker.failed-to-solve" },
  { file: "missing-tool.log", family: "missing-tool", errorLine: "aws: command not found", rootCause: /`aws` is not installed/, matchId: "missing-tool.command-not-found", patch: /install -y aws/ },
  { file: "memory-heap.log", family: "memory", errorLine: "JavaScript heap out of memory", before: "[5/50] building modules", rootCause: /heap/, matchId: "memory.js-heap", patch: /max-old-space-size/ },
];

describe("logs/diagnose", () => {
  for (const c of cases) {
    it(`finds the ${c.family} failure in ${c.file} and rests its diagnosis on the failing lines`, () => {
      const log = fixtureLog(c.file);
      const result = diagnoseLog(log);
      expect(Value.Check(DiagnosisSchema, result)).toBe(true);
      expect(result.engine).toBe("rules");
      expect(result.family).toBe(c.family);
      expect(result.root_cause).toMatch(c.rootCause);
      expect(result.matches[0]?.id).toBe(c.matchId);
      const error = lineOf(log, c.errorLine);
      expect(result.matches[0]?.line).toBe(error);
      expect(result.failing_lines.from).toBeLessThanOrEqual(error);
      expect(result.failing_lines.to).toBeGreaterThanOrEqual(error);
      if (c.before) expect(result.failing_lines.from).toBeGreaterThan(lineOf(log, c.before));
      expect(result.confidence).toBeGreaterThanOrEqual(0.8);
      expect(result.fix_steps.length).toBeGreaterThan(0);
      expect(result.diagnosis[0]).toContain(`line ${error}`);
      expect(result.window).toContain(c.errorLine.replace(/\s+/g, " ").trim().split(" ")[0] as string);
      if (c.patch) expect(result.patch_sketch ?? "").toMatch(c.patch);
    });
  }

  it("is honest when nothing matches: unknown family, low confidence, a generic diagnosis and no patch", () => {
    const log = fixtureLog("unknown.log");
    const result = diagnoseLog(log);
    expect(Value.Check(DiagnosisSchema, result)).toBe(true);
    expect(result.family).toBe("unknown");
    expect(result.confidence).toBeLessThanOrEqual(0.2);
    expect(result.patch_sketch).toBeNull();
    expect(result.matches).toEqual([]);
    expect(result.diagnosis[0]).toContain("No entry of the failure pattern table matched");
    expect(result.failing_lines.to).toBe(lineOf(log, 'The command "./run-checks" exited with 3.'));
  });

  it("ranks the specific cause above the package manager's generic summary", () => {
    const result = diagnoseLog(fixtureLog("npm-travis.log"));
    const ids = result.matches.map((m) => m.id);
    expect(ids.indexOf("npm.cannot-find-module")).toBeLessThan(ids.indexOf("npm.lifecycle"));
    expect(result.confidence).toBeGreaterThan(0.4);
  });

  it("looks before the window for a specific cause when the window names none, with less confidence", () => {
    // The OOM kill is in an earlier command's output; the failing command printed nothing recognisable.
    const log = ["$ ./warm-cache.sh", "worker OOMKilled, continuing without cache", "$ ./build.sh", ...Array.from({ length: 30 }, (_, i) => `step ${i}`), 'The command "./build.sh" exited with 1.'].join("\n");
    const result = diagnoseLog(log);
    expect(result.family).toBe("memory");
    expect(result.failing_lines.from).toBeGreaterThan(2);
    expect(result.matches[0]?.line).toBe(2);
    expect(result.confidence).toBeLessThan(0.6);
    expect(result.diagnosis).toContain("The matching line lies before the failure window, so the cause is less certain.");
  });

  it("stays fast on the longest log a buyer may send, one 200,000-character line (no regex backtracks on it)", () => {
    for (const unit of ["y", "a.b-", "/a", "1", "E "]) {
      const started = performance.now();
      const result = diagnoseLog(unit.repeat(200_000 / unit.length));
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(result.failing_lines).toEqual({ from: 1, to: 1 });
    }
  });
});
