/**
 * Builds dist/tollbooth once per test run: every test file that needs the compiled binary awaits the same
 * promise (bun test runs a lane's files in one process), so the ~20 s build happens once.
 *
 * `npm test` runs the files in several `bun test` processes (scripts/test.ts) and names the run's
 * folder in TOLLBOOTH_TEST_RUN_DIR: the first process to ask claims the build there (an exclusive
 * mkdir) and writes how it went; the others wait for that note instead of building over it.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const repoRoot = join(import.meta.dir, "../..");
export const binaryPath = join(repoRoot, "dist/tollbooth");

/** How long a file waits for the build: about 50 s on a quiet 2-core box, past two minutes beside the type check and a loaded machine. */
export const BUILD_WAIT_MS = 300_000;

/** The variable scripts/test.ts names the run's own folder in (shared by its `bun test` processes). */
export const RUN_DIR_VARIABLE = "TOLLBOOTH_TEST_RUN_DIR";

let building: Promise<string> | undefined;

/** Resolves to the path of the freshly built binary; rejects with the build's stderr if it fails. */
export function buildBinary(): Promise<string> {
  building ??= buildOncePerRun(process.env[RUN_DIR_VARIABLE]);
  return building;
}

async function buildOncePerRun(runDir: string | undefined): Promise<string> {
  if (!runDir) return runBuild();
  const note = join(runDir, "binary-build.json");
  try {
    mkdirSync(join(runDir, "binary-build.claimed"));
  } catch {
    return awaitNote(note);
  }
  let outcome: { error?: string };
  try {
    await runBuild();
    outcome = {};
  } catch (error) {
    outcome = { error: (error as Error).message };
  }
  // Written whole under another name, then renamed: a waiting process never reads half a note.
  writeFileSync(`${note}.partial`, JSON.stringify(outcome));
  renameSync(`${note}.partial`, note);
  if (outcome.error) throw new Error(outcome.error);
  return binaryPath;
}

/** Another lane's build: its note, once written. */
async function awaitNote(note: string): Promise<string> {
  for (;;) {
    let text: string;
    try {
      text = readFileSync(note, "utf8");
    } catch {
      await Bun.sleep(250);
      continue;
    }
    const outcome = JSON.parse(text) as { error?: string };
    if (outcome.error) throw new Error(outcome.error);
    return binaryPath;
  }
}

async function runBuild(): Promise<string> {
  const build = Bun.spawn([process.execPath, join(repoRoot, "scripts/build.ts")], { cwd: repoRoot, stdout: "pipe", stderr: "pipe" });
  const [code, stderr] = await Promise.all([build.exited, new Response(build.stderr).text()]);
  if (code !== 0) throw new Error(`build failed:\n${stderr}`);
  return binaryPath;
}
