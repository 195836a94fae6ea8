/** src/logs/reduce.ts and clean.ts: cleaning lines and finding the failure window. @see issue 16 */
import { describe, expect, it } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { cleanLine, stripAnsi, stripTimestamp } from "../../src/logs/clean.ts";
import { LogWindowSchema, reduceLog } from "../../src/logs/reduce.ts";
import { fixtureLog, lineOf } from "./fixture-logs.ts";

describe("logs/clean", () => {
  it("strips colour, cursor and OSC codes, and colour codes that lost their ESC byte", () => {
    expect(stripAnsi("\x1b[1;31merror\x1b[0m: \x1b[2Kgone \x1b]0;title\x07ok")).toBe("error: gone ok");
    expect(stripAnsi("[31mDubious, test returned 1[0m")).toBe("Dubious, test returned 1");
  });

  it("strips ISO, GitHub Actions, bracketed and syslog timestamps, and nothing else", () => {
    expect(stripTimestamp("2024-01-01T00:00:00.0000000Z ##[error]boom")).toBe("##[error]boom");
    expect(stripTimestamp("2024-01-01 12:00:00,123 ERROR x")).toBe("ERROR x");
    expect(stripTimestamp("[12:34:56] Starting 'build'...")).toBe("Starting 'build'...");
    expect(stripTimestamp("Jan 02 15:04:05 host kernel: Killed")).toBe("host kernel: Killed");
    expect(stripTimestamp("12 tests ran")).toBe("12 tests ran");
  });

  it("keeps what a terminal shows after carriage-return overwrites and drops Travis fold tokens", () => {
    expect(cleanLine("progress 10%\rprogress 50%\rdone\r")).toBe("done");
    expect(cleanLine("travis_fold:start:install\r\x1b[0K\x1b[33;1mInstalling\x1b[0m")).toBe("Installing");
    expect(cleanLine("travis_time:end:0b95:start=1,finish=2,duration=3\r\x1b[0KThe command \"x\" exited with 1.")).toBe('The command "x" exited with 1.');
    expect(cleanLine("line with a Windows ending\r")).toBe("line with a Windows ending");
  });
});

describe("logs/reduce", () => {
  it("anchors at the last failing command and reaches back to the first error line of that failure", () => {
    const log = fixtureLog("npm-travis.log");
    const window = reduceLog(log);
    expect(Value.Check(LogWindowSchema, window)).toBe(true);
    expect(window.anchor?.n).toBe(lineOf(log, 'The command "npm test" exited with 1.'));
    expect(window.to).toBe(window.anchor?.n as number);
    expect(window.from).toBeLessThanOrEqual(lineOf(log, "Error: Cannot find module 'left-pad'"));
    expect(window.from).toBeLessThanOrEqual(lineOf(log, "internal/modules/cjs/loader.js:638"));
    // The install step that passed earlier is not in the window.
    expect(window.from).toBeGreaterThan(lineOf(log, 'The command "npm ci" exited with 0.'));
    expect(window.total_lines).toBe(log.split("\n").length);
  });

  it("gives original line numbers to the lines it keeps, cleaned of timestamps and colours", () => {
    const log = fixtureLog("typescript-gha.log");
    const window = reduceLog(log);
    const error = window.lines.find((l) => l.text.includes("TS2322"));
    expect(error?.n).toBe(lineOf(log, "TS2322"));
    expect(error?.text).toBe("src/server.ts:42:7 - error TS2322: Type 'string' is not assignable to type 'number'.");
    expect(window.anchor?.text).toBe("##[error]Process completed with exit code 2.");
    expect(window.to).toBe(lineOf(log, "Process completed with exit code 2"));
    expect(window.text).not.toContain("2024-03-01T");
    expect(window.text).not.toContain("\x1b");
  });

  it("collapses repeated lines with a count and keeps the window within maxLines", () => {
    const log = ["$ ./check", ...Array.from({ length: 30 }, () => "retrying connection..."), "fatal: could not reach the database", 'The command "./check" exited with 1.'].join("\n");
    const window = reduceLog(log, { maxLines: 40 });
    const repeated = window.lines.find((l) => l.text === "retrying connection...");
    expect(repeated?.repeat).toBeGreaterThan(10);
    expect(window.text).toContain("retrying connection... (×");
    expect(window.lines.at(-2)?.text).toBe("fatal: could not reach the database");
    const small = reduceLog(log, { maxLines: 5, contextLines: 0 });
    expect(small.to - small.from + 1).toBeLessThanOrEqual(5);
    expect(small.lines.some((l) => l.text.startsWith("fatal:"))).toBe(true);
  });

  it("steps over the failing command's boilerplate and a multi-line quoted command to the real error", () => {
    const log = [
      "$ make check",
      ...Array.from({ length: 40 }, (_, i) => `CC src/file${i}.o`),
      "src/parse.c:88:12: error: 'tokn' undeclared (first use in this function)",
      "   88 |     return tokn;",
      "      |            ^~~~",
      "make: *** [Makefile:30: src/parse.o] Error 1",
      'The command "make check &&',
      "  ./run-tests",
      '" exited with 2.',
      "",
      "Done. Your build exited with 1.",
    ].join("\n");
    const window = reduceLog(log, { contextLines: 0 });
    expect(window.anchor?.n).toBe(lineOf(log, '" exited with 2.'));
    expect(window.from).toBeLessThanOrEqual(lineOf(log, "error: 'tokn' undeclared"));
    expect(window.from).toBeGreaterThan(lineOf(log, "CC src/file30.o"));
  });

  it("passes over a later command that failed without a word to the failing command that says why", () => {
    const log = [
      "$ ./deploy.sh",
      ...Array.from({ length: 30 }, (_, i) => `uploading part ${i}`),
      "Error: An unexpected error has occurred.",
      "error Command failed with exit code 1.",
      'The command "./deploy.sh" exited with 1.',
      "",
      "$ ./smoke.sh",
      'The command "./smoke.sh" exited with 1.',
      "",
      "Done. Your build exited with 1.",
    ].join("\n");
    const window = reduceLog(log, { contextLines: 0 });
    expect(window.anchor?.n).toBe(lineOf(log, 'The command "./deploy.sh" exited with 1.'));
    expect(window.from).toBeLessThanOrEqual(lineOf(log, "Error: An unexpected error"));
    expect(window.to).toBeLessThan(lineOf(log, "$ ./smoke.sh"));
  });

  it("reads a failure that follows right on another one together with it", () => {
    const log = [
      "$ ./build.sh",
      ...Array.from({ length: 30 }, (_, i) => `[${i} of 30] Compiling Module${i}`),
      "Linking dist/app ...",
      "dist/app.o: undefined reference to `main_loop'",
      "collect2: error: ld returned 1 exit status",
      'The command "./build.sh" exited with 1.',
      "",
      "$ cp dist/app deploy/",
      "cp: cannot stat 'dist/app': No such file or directory",
      'The command "cp dist/app deploy/" exited with 1.',
    ].join("\n");
    const window = reduceLog(log, { contextLines: 0 });
    expect(window.anchor?.n).toBe(lineOf(log, 'The command "cp dist/app deploy/" exited with 1.'));
    expect(window.to).toBe(window.anchor?.n as number);
    expect(window.from).toBeLessThanOrEqual(lineOf(log, "undefined reference to `main_loop'"));
    expect(window.from).toBeGreaterThan(lineOf(log, "[20 of 30] Compiling"));
  });

  it("without a failing-command marker, ends the window at the last error near the end", () => {
    const log = ["starting", ...Array.from({ length: 100 }, (_, i) => `step ${i} ok`), "Traceback (most recent call last):", '  File "app.py", line 3, in <module>', "    main()", "ValueError: bad port", ""].join("\n");
    const window = reduceLog(log, { contextLines: 0 });
    expect(window.anchor).toBeNull();
    expect(window.from).toBeLessThanOrEqual(lineOf(log, "Traceback"));
    expect(window.to).toBeGreaterThanOrEqual(lineOf(log, "ValueError: bad port"));
    expect(window.to - window.from).toBeLessThan(15);
  });

  it("answers for an empty log", () => {
    const window = reduceLog("");
    expect(window.from).toBe(1);
    expect(window.to).toBe(1);
    expect(window.anchor).toBeNull();
  });
});
