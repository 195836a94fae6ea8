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
 *
 * The files run in two `bun test` processes side by side (TOLLBOOTH_TEST_LANES sets how many), split
 * by the time each took last run (scripts/test-lanes.ts); a flag among the arguments (`-t NAME`)
 * sends them all to one `bun test` as they are. The binary is built once for all lanes
 * (test/support/binary-build.ts, through the run's folder named in TOLLBOOTH_TEST_RUN_DIR).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RUN_DIR_VARIABLE } from "../test/support/binary-build.ts";
import { RUN_POSTGRES_VARIABLE, startOwnPostgres, type TestPostgres } from "../test/support/postgres.ts";
import { installHint, requirementProblem, type RequirementId, type SkipRecord } from "../test/support/requirements.ts";
import { fileTimes, recordTimes, resultsByFile, selectedFiles, splitFiles, type FileResult } from "./test-lanes.ts";

const root = join(import.meta.dir, "..");
const work = mkdtempSync(join(tmpdir(), "tb-test-run-"));
const skipLog = join(work, "skips.jsonl");
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

const postgres: TestPostgres | undefined = requirementProblem("postgres") ? undefined : await startOwnPostgres({ maxConnections: 300, removeInBackground: true });
const postgresTook = seconds(startedAt);
const args = process.argv.slice(2);
const files = selectedFiles(root, args);
const timesCommitted = join(root, "scripts/test-times.json");
const timesCached = join(cache, "test-times.json");
const times = fileTimes(timesCommitted, timesCached);
// No file list (a flag among the arguments, or nothing matched): one lane takes the arguments as they are.
const laneCount = files && files.length > 0 ? Math.max(1, Number(process.env.TOLLBOOTH_TEST_LANES ?? 2) || 1) : 1;
const lanes = files && files.length > 0 && laneCount > 1 ? splitFiles(files, times, laneCount).map((lane) => lane.map((f) => `./${f}`)) : [args];
const env = { ...process.env, TOLLBOOTH_TEST_SKIP_LOG: skipLog, [RUN_DIR_VARIABLE]: work, ...(postgres ? { [RUN_POSTGRES_VARIABLE]: postgres.url } : {}) };
const tookByLane: string[] = [];
const running = lanes.map((laneArgs, i) => {
  const report = join(work, `junit-${i + 1}.xml`);
  const several = lanes.length > 1;
  const lane = Bun.spawn([process.execPath, "test", "--timeout", "30000", "--reporter=junit", `--reporter-outfile=${report}`, ...laneArgs], {
    cwd: root,
    // Side by side, each lane's lines carry its number ("[1] "), so a failure is read in its own lane's order.
    stdio: ["inherit", several ? "pipe" : "inherit", several ? "pipe" : "inherit"],
    env: several && process.stdout.isTTY ? { ...env, FORCE_COLOR: "1" } : env,
  });
  const copied = several ? Promise.all([prefixLines(lane.stdout as ReadableStream<Uint8Array>, `[${i + 1}] `, process.stdout), prefixLines(lane.stderr as ReadableStream<Uint8Array>, `[${i + 1}] `, process.stderr)]) : Promise.resolve();
  return { lane, report, done: Promise.all([lane.exited, copied]).then(([code]) => ((tookByLane[i] = seconds(startedAt)), code)) };
});
if (lanes.length > 1) console.log(`${files!.length} test files in ${lanes.length} lanes (${lanes.map((l) => l.length).join(" + ")} files; TOLLBOOTH_TEST_LANES=1 runs one)`);

/** Copies `stream` to `out` a whole line at a time, each line after `prefix`. */
async function prefixLines(stream: ReadableStream<Uint8Array>, prefix: string, out: NodeJS.WriteStream): Promise<void> {
  const decoder = new TextDecoder();
  let pending = "";
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    pending += decoder.decode(read.value, { stream: true });
    const end = pending.lastIndexOf("\n");
    if (end < 0) continue;
    out.write(pending.slice(0, end + 1).replace(/^(?=.)/gm, prefix));
    pending = pending.slice(end + 1);
  }
  pending += decoder.decode();
  if (pending) out.write(`${prefix}${pending}\n`);
}

// An interrupted run leaves no server behind.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    for (const { lane } of running) lane.kill(signal);
    typecheck.kill(signal);
    void Promise.all(running.map((r) => r.lane.exited))
      .then(() => postgres?.stop())
      .finally(() => {
        rmSync(work, { recursive: true, force: true });
        process.exit(130);
      });
  });
}
const codes = await Promise.all(running.map((r) => r.done));
const testsCode = codes.find((code) => code !== 0) ?? 0;
const stopping = performance.now();
await postgres?.stop();
const postgresStop = seconds(stopping);
const testsTook = seconds(startedAt);
const checked = await typecheckDone;

const results = new Map<string, FileResult>();
for (const { report } of running) if (existsSync(report)) for (const [file, result] of resultsByFile(readFileSync(report, "utf8"))) results.set(file, result);
if (results.size > 0) recordTimes(timesCached, times, results);
const skipped = new Map([...results].filter(([, r]) => r.skipped > 0).map(([file, r]) => [file, r.skipped]));
const records: SkipRecord[] = existsSync(skipLog)
  ? readFileSync(skipLog, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as SkipRecord)
  : [];
rmSync(work, { recursive: true, force: true });

const lines: string[] = [""];
lines.push(checked.code === 0 ? `type check: passed (${checked.took})` : `type check: FAILED (${checked.took})\n${checked.out.trim()}`);
const count = (key: "tests" | "failures" | "skipped") => [...results.values()].reduce((sum, r) => sum + r[key], 0);
lines.push(`tests: ${testsCode === 0 ? "passed" : "FAILED"} (${testsTook}): ${count("tests")} tests in ${results.size} files, ${count("failures")} failed; PostgreSQL up at ${postgresTook} (stopped in ${postgresStop}), ${lanes.length > 1 ? `lanes done at ${tookByLane.join(", ")}` : "done"}`);
const total = count("skipped");
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
