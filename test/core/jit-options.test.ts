/**
 * `tollbooth serve` runs with JavaScriptCore's options of runtime/jit-options.ts: started without them, it starts
 * itself again at once (same pid) with them in its environment; an operator's own settings win.
 * @see issue 41 (the soak's peak: the JIT's compilations at a load's start)
 */
import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commandOf } from "../../src/runtime/command-line.ts";
import { missingJitOptions, SERVE_JIT_OPTIONS } from "../../src/runtime/jit-options.ts";
import { type StartedProcess, startProcess } from "../support/spawn-binary.ts";

const root = join(import.meta.dir, "../..");
const started: StartedProcess[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.stop()));
});

/** The server's environment as the kernel holds it (after any execve). */
function environOf(pid: number): Record<string, string> {
  const pairs = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
  return Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));
}

/** `bun src/main.ts serve` with the given BUN_JSC_ variables only (any of the test runner's removed). */
async function serveFromSource(jsc: Record<string, string>): Promise<StartedProcess> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("BUN_JSC_"))) as Record<string, string>;
  const data = mkdtempSync(join(tmpdir(), "tb-jit-options-"));
  const server = await startProcess([process.execPath, join(root, "src/main.ts"), "serve", "--port", "0", "--data", data], { cwd: root, env: { ...env, ...jsc }, inheritEnv: false });
  started.push(server);
  return server;
}

describe("runtime/jit-options", () => {
  it("adds an option only when the environment leaves it unset", () => {
    const options = { BUN_JSC_a: "1", BUN_JSC_b: "1" };
    expect(missingJitOptions({}, options)).toEqual(options);
    expect(missingJitOptions({ BUN_JSC_a: "2" }, options)).toEqual({ BUN_JSC_b: "1" });
    expect(missingJitOptions({ BUN_JSC_a: "", BUN_JSC_b: "0" }, options)).toEqual({});
    expect(missingJitOptions({ OTHER: "x" }, options)).toEqual(options);
  });

  it("knows a serve command line before the program loads, as command.ts reads it", () => {
    for (const args of [[], ["serve"], ["serve", "--port", "0"], ["--port", "8080"], ["--local-try"]]) expect({ args, serves: commandOf(args) === "serve" }).toEqual({ args, serves: true });
    for (const args of [["doctor"], ["read", "https://example.com/"], ["--help"], ["--version"], ["help", "serve"], ["skills"]]) expect({ args, serves: commandOf(args) === "serve" }).toEqual({ args, serves: false });
  });

  it("restarts before the program loads: the entry imports nothing else statically", () => {
    const entry = readFileSync(join(root, "src/main.ts"), "utf8");
    expect([...entry.matchAll(/^import .* from "([^"]+)";$/gm)].map((match) => match[1])).toEqual(["./runtime/command-line.ts", "./runtime/jit-options.ts"]);
    expect(entry).toContain('await import("./command.ts")');
  });

  it("runs serve with the JIT inlining less: the options in its environment, the same process", async () => {
    const server = await serveFromSource({});
    const environ = environOf(server.proc.pid);
    for (const [name, value] of Object.entries(SERVE_JIT_OPTIONS)) expect({ name, value: environ[name] }).toEqual({ name, value });
    expect(environ.BUN_JSC_maximumInliningDepth).toBe("3");
    expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200);
  }, 30_000);

  it("keeps an operator's own setting and still adds the others", async () => {
    const server = await serveFromSource({ BUN_JSC_maximumInliningDepth: "5" });
    const environ = environOf(server.proc.pid);
    expect(environ.BUN_JSC_maximumInliningDepth).toBe("5");
    expect(environ.BUN_JSC_maximumFunctionForCallInlineCandidateBytecodeCostForFTL).toBe("80");
  }, 30_000);
});
