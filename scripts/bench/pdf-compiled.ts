/**
 * Checks that PDF extraction works inside a `bun build --compile` binary (the mupdf .wasm must be embedded):
 * compiles scripts/bench/pdf-cli.ts into a temporary folder, runs it from another working directory on a
 * fixture, and exits non-zero unless it extracts the expected text.
 *   bun scripts/bench/pdf-compiled.ts
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "tollbooth-pdf-compiled-"));
const binary = join(work, "pdf-cli");
try {
  const build = Bun.spawnSync([process.execPath, "build", "--compile", join(root, "scripts/bench/pdf-cli.ts"), "--outfile", binary], {
    cwd: root,
    stderr: "pipe",
    stdout: "pipe",
  });
  if (build.exitCode !== 0) throw new Error(`bun build --compile failed: ${build.stderr.toString()}`);
  const fixture = join(root, "test/fixtures/pdf/multi-page.pdf");
  const run = Bun.spawnSync([binary, fixture], { cwd: work, stderr: "pipe", stdout: "pipe" });
  const result = JSON.parse(run.stdout.toString()) as { ok: boolean; page_count?: number; pages?: { text: string }[] };
  const ok = run.exitCode === 0 && result.ok && result.page_count === 3 && result.pages?.[2]?.text === "Third page\nThe end.";
  console.log(`compiled binary ${(statSync(binary).size / 1e6).toFixed(1)} MB, run from ${work}: ${ok ? "extracts the fixture" : "FAILED"}`);
  if (!ok) {
    console.log(run.stdout.toString(), run.stderr.toString());
    process.exitCode = 1;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
