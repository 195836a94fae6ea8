/**
 * Builds dist/tollbooth once per test run: every test file that needs the compiled binary awaits the same
 * promise (bun test runs all files in one process), so the ~20 s build happens once.
 */
import { join } from "node:path";

export const repoRoot = join(import.meta.dir, "../..");
export const binaryPath = join(repoRoot, "dist/tollbooth");

let building: Promise<string> | undefined;

/** Resolves to the path of the freshly built binary; rejects with the build's stderr if it fails. */
export function buildBinary(): Promise<string> {
  building ??= runBuild();
  return building;
}

async function runBuild(): Promise<string> {
  const build = Bun.spawn([process.execPath, join(repoRoot, "scripts/build.ts")], { cwd: repoRoot, stdout: "pipe", stderr: "pipe" });
  const [code, stderr] = await Promise.all([build.exited, new Response(build.stderr).text()]);
  if (code !== 0) throw new Error(`build failed:\n${stderr}`);
  return binaryPath;
}
