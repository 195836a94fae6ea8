/**
 * `npm test`: the type check and the test suite side by side, then one summary of what was skipped
 * and how to get what was missing (issue 41). Arguments go to `bun test` (`npm test -- test/flows`).
 *
 * The type check is incremental (its state under node_modules/.cache), so a second run checks only
 * what changed. Skips come from test/support/requirements.ts, which appends each to the skip log
 * this script names in TOLLBOOTH_TEST_SKIP_LOG; the counts come from bun's JUnit report, so a skip
 * from anywhere else is counted too. Under CI (CI=true) a run that skipped anything fails.
 *
 * Where PostgreSQL is installed, one server serves the whole run (test/support/postgres.ts): each
 * file creates its own databases on it instead of running initdb and starting a server itself.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RUN_POSTGRES_VARIABLE, startOwnPostgres, type TestPostgres } from "../test/support/postgres.ts";
import { installHint, requirementProblem, type RequirementId, type SkipRecord } from "../test/support/requirements.ts";

const root = join(import.meta.dir, "..");
const work = mkdtempSync(join(tmpdir(), "tb-test-run-"));
const skipLog = join(work, "skips.jsonl");
const junit = join(work, "junit.xml");
const cache = join(root, "node_modules/.cache/tollbooth");
mkdirSync(cache, { recursive: true });

const startedAt = performance.now();
const seconds = (from: number) => `${((performance.now() - from) / 1000).toFixed(1)} s`;

const typecheck = Bun.spawn([join(root, "node_modules/.bin/tsc"), "--noEmit", "--incremental", "--tsBuildInfoFile", join(cache, "tsc.tsbuildinfo")], {
  cwd: root,
  stdout: "pipe",
  stderr: "pipe",
});
const typecheckDone = Promise.all([new Response(typecheck.stdout).text(), new Response(typecheck.stderr).text(), typecheck.exited]).then(([out, err, code]) => ({ out: out + err, code, took: seconds(startedAt) }));

const postgres: TestPostgres | undefined = requirementProblem("postgres") ? undefined : await startOwnPostgres({ maxConnections: 300 });
const tests = Bun.spawn([process.execPath, "test", "--timeout", "30000", "--reporter=junit", `--reporter-outfile=${junit}`, ...process.argv.slice(2)], {
  cwd: root,
  stdio: ["inherit", "inherit", "inherit"],
  env: { ...process.env, TOLLBOOTH_TEST_SKIP_LOG: skipLog, ...(postgres ? { [RUN_POSTGRES_VARIABLE]: postgres.url } : {}) },
});
// An interrupted run leaves no server behind.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    tests.kill(signal);
    void postgres?.stop().finally(() => process.exit(130));
  });
}
const testsCode = await tests.exited;
await postgres?.stop();
const testsTook = seconds(startedAt);
const checked = await typecheckDone;

/** Skipped tests per file, from the top-level <testsuite> of each file in bun's JUnit report. */
function skippedByFile(xml: string): Map<string, number> {
  const skipped = new Map<string, number>();
  for (const [, attributes] of xml.matchAll(/<testsuite ([^>]*)>/g)) {
    if (/\bline="/.test(attributes!)) continue;
    const file = /\bfile="([^"]*)"/.exec(attributes!)?.[1];
    const count = Number(/\bskipped="(\d+)"/.exec(attributes!)?.[1] ?? 0);
    if (file && count > 0) skipped.set(file, count);
  }
  return skipped;
}

const skipped = existsSync(junit) ? skippedByFile(readFileSync(junit, "utf8")) : new Map<string, number>();
const records: SkipRecord[] = existsSync(skipLog)
  ? readFileSync(skipLog, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as SkipRecord)
  : [];
rmSync(work, { recursive: true, force: true });

const lines: string[] = [""];
lines.push(checked.code === 0 ? `type check: passed (${checked.took})` : `type check: FAILED (${checked.took})\n${checked.out.trim()}`);
lines.push(`tests: ${testsCode === 0 ? "passed" : "FAILED"} (${testsTook})`);
const total = [...skipped.values()].reduce((sum, n) => sum + n, 0);
if (total > 0 || records.length > 0) {
  lines.push(`skipped: ${total} test(s) in ${skipped.size} file(s)`);
  const byRequirement = Map.groupBy(records, (r) => r.requirement);
  for (const [requirement, found] of byRequirement) {
    const files = [...new Set(found.map((r) => r.file))];
    const tests = files.reduce((sum, file) => sum + (skipped.get(file) ?? 0), 0);
    const named = files.length > 3 ? `${files.slice(0, 3).join(", ")}, …` : files.join(", ");
    lines.push(`  without ${requirement}: ${tests} test(s) in ${files.length} file(s) (${named}); to run them: ${installHint(requirement as RequirementId)}`);
  }
  const explained = new Set(records.map((r) => r.file));
  for (const [file, count] of skipped) if (!explained.has(file)) lines.push(`  ${file}: ${count} skipped with no requirement recorded (a test.skip or test.todo)`);
} else {
  lines.push("skipped: none");
}
const ciSkipped = process.env.CI === "true" && (total > 0 || records.length > 0);
if (ciSkipped) lines.push("CI runs every test: install what is missing (.ci/run does) instead of skipping.");
console.log(lines.join("\n"));
process.exit(testsCode !== 0 || checked.code !== 0 || ciSkipped ? 1 : 0);
