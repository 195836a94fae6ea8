/**
 * @module quotes/log-shape — whether a goal is a pasted log, so code.fix_from_log does the job:
 * the log reducer's failure patterns or failing-command markers hit (src/logs), or the text holds
 * stack frames, exit codes and error lines of its own.
 */
import { builtinPatterns } from "../logs/patterns.ts";
import { cleanLines, isFailingCommand } from "../logs/reduce.ts";

const frameOrExit: readonly RegExp[] = [
  /^\s+at\s+\S.*(?:\(.*:\d+(?::\d+)?\)|:\d+:\d+)\s*$/, // JavaScript stack frame
  /^\s+at .+\.(?:java|kt|scala):\d+\)/, // JVM stack frame
  /^\s*File ".+", line \d+/, // Python frame
  /^Traceback \(most recent call last\)/,
  /^\s*goroutine \d+ \[/,
  /\b(?:exit(?:ed)?\s+(?:with\s+)?(?:code|status)|exit code|returned non-zero exit status)\s*:?\s*[1-9]\d*/i,
];

const errorLine: readonly RegExp[] = [
  /^\s*(?:npm ERR!|error(?:\[E\d+\])?:|ERROR[: \]]|FATAL[: \]]|panic:|Exception in thread|Caused by:|fatal:)/,
  /^\s*\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?.*\b(?:ERROR|FATAL|CRITICAL)\b/,
];

/** A failure pattern or failing command of the reducer, or two frame, exit-code or error lines. */
export function isLogShaped(text: string): boolean {
  const lines = cleanLines(text);
  const patterns = builtinPatterns();
  let hits = 0;
  for (const line of lines) {
    if (line.trim() === "") continue;
    if (isFailingCommand(line) || patterns.some((p) => p.pattern.test(line))) return true;
    if (frameOrExit.some((p) => p.test(line)) || errorLine.some((p) => p.test(line))) hits++;
    if (hits >= 2) return true;
  }
  return false;
}
