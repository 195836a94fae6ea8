/**
 * @module quotes/log-shape — whether a goal is a pasted log (then code.fix_from_log does the job).
 * Stack frames, exit codes, compiler and package-manager errors, timestamped level lines.
 */
const logLinePatterns: readonly RegExp[] = [
  /^\s+at\s+\S.*(?:\(.*:\d+(?::\d+)?\)|:\d+:\d+)\s*$/, // JavaScript/Java stack frame
  /^\s*File ".+", line \d+/, // Python frame
  /^Traceback \(most recent call last\)/,
  /\b(?:exit(?:ed)?\s+(?:with\s+)?(?:code|status)|exit code|returned non-zero exit status)\s*:?\s*\d+/i,
  /^\s*(?:npm ERR!|error(?:\[E\d+\])?:|ERROR[: \]]|FATAL[: \]]|panic:|Exception in thread|Caused by:|fatal:)/,
  /\berror (?:TS|CS|C)\d+\b/,
  /^\s*\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?/, // timestamped line
  /^\s*(?:\[\s*)?(?:INFO|WARN|WARNING|DEBUG|TRACE|ERROR)\s*\]?\s*[:-]?\s/,
  /^\s*goroutine \d+ \[/,
  /^\s+at .+\.(?:java|kt|scala):\d+\)/,
];

/** At least three log lines, or two when one is a stack frame or an exit code. */
export function isLogShaped(text: string): boolean {
  let hits = 0;
  let strong = false;
  for (const line of text.split("\n")) {
    const index = logLinePatterns.findIndex((p) => p.test(line));
    if (index < 0) continue;
    hits++;
    if (index <= 3) strong = true;
    if (hits >= 3 || (hits >= 2 && strong)) return true;
  }
  return false;
}
