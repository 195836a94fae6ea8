/**
 * @module logs/clean — one raw log line as a reader sees it: what a terminal would show after
 * carriage-return overwrites, without colour or cursor codes, CI bookkeeping tokens or a leading
 * timestamp.
 */

// CSI (colours, erase line, cursor moves), OSC (titles, hyperlinks) and lone two-byte escapes.
const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;
// Colour codes whose ESC byte was lost on the way (copied from a web view, stored in XML).
const BARE_SGR = /\[[0-9;]*m/g;
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;
// Travis CI writes fold and timing markers in front of a `\r`, or glued to the next text.
const CI_TOKENS = /travis_(?:fold|time):[a-z]+:[\w.:=,-]*|##\[(?:group|endgroup)\]/g;

const TIMESTAMPS = [
  // 2024-01-01T00:00:00.0000000Z (GitHub Actions), 2024-01-01 00:00:00,123, with an optional zone, maybe in brackets
  /^\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2}| ?UTC)?\]?:?(?: |\t|$)/,
  // [12:34:56] or [12:34:56.789] (gulp, webpack, many tools)
  /^\[\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\] ?/,
  // 12:34:56.789 followed by text
  /^\d{2}:\d{2}:\d{2}[.,]\d+(?: |$)/,
  // Jan 02 15:04:05 (syslog)
  /^[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}(?: |$)/,
];

/** Removes every ANSI escape sequence and other control characters but tab. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, "").replace(BARE_SGR, "").replace(CONTROL, "");
}

/** Removes one leading timestamp of a known shape and the one space after it (indentation behind it stays). */
export function stripTimestamp(line: string): string {
  for (const shape of TIMESTAMPS) {
    const match = shape.exec(line);
    if (match) return line.slice(match[0].length);
  }
  return line;
}

/**
 * The cleaned text of one raw line (split on `\n`): a trailing `\r` is a line ending; an inner `\r`
 * overwrote what came before it, so the last segment with visible text wins.
 */
export function cleanLine(raw: string): string {
  const body = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  let text = body;
  if (body.includes("\r")) {
    const segments = body.split("\r");
    text = "";
    for (let i = segments.length - 1; i >= 0; i--) {
      const visible = stripAnsi((segments[i] as string).replace(CI_TOKENS, ""));
      if (visible.trim() !== "") {
        text = segments[i] as string;
        break;
      }
    }
  }
  const plain = stripAnsi(text.replace(CI_TOKENS, "")).replace(CI_TOKENS, "");
  return stripTimestamp(plain.trimEnd()).trimEnd();
}
