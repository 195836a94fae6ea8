/**
 * @module web/pdf-text — canonical page text, code-point counting and cutting, hashing.
 *
 * Canonical form (the same rules as page text from the web extractor): well-formed UTF-16 (lone surrogates
 * become U+FFFD, so any client recomputing text_sha256 from the JSON gets ours), `\n` line ends, no control
 * characters, runs of horizontal whitespace as one space, lines trimmed, at most one blank line in a row, no
 * leading or trailing blank lines.
 */
import { createHash } from "node:crypto";

// C0/C1 controls other than \n and \t (\t becomes a space below); U+FEFF is an invisible BOM/ZWNBSP.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFEFF]/g;
const HORIZONTAL_SPACE = /[^\S\n]+/g;

/** Text as returned to callers: canonical lines, blank runs collapsed. */
export function canonicalizeText(raw: string): string {
  const lines = toWellFormed(raw).replace(/\r\n?/g, "\n").replace(CONTROL, "").split("\n");
  const out: string[] = [];
  for (const line of lines) {
    const clean = line.replace(HORIZONTAL_SPACE, " ").trim();
    if (clean === "" && (out.length === 0 || out[out.length - 1] === "")) continue;
    out.push(clean);
  }
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out.join("\n");
}

/** `String.prototype.toWellFormed` (ES2024; tsconfig's lib stops at ES2023, every runtime we target has it). */
export function toWellFormed(text: string): string {
  return (text as string & { toWellFormed(): string }).toWellFormed();
}

/** Number of Unicode code points (what `characters` counts). */
export function countCodePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The first `max` code points of `text` (never splits a surrogate pair). */
export function cutCodePoints(text: string, max: number): string {
  if (text.length <= max) return text; // UTF-16 length bounds the code-point count from above
  let n = 0;
  let end = 0;
  for (const ch of text) {
    if (n === max) break;
    end += ch.length;
    n++;
  }
  return text.slice(0, end);
}

/** Lowercase hex SHA-256 of the UTF-8 bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
