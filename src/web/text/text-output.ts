/**
 * @module web/text/text-output — the returned strings: well-formed, cut by code point to max_chars,
 * hashed as exactly the UTF-8 bytes a client receives.
 *
 * Room web/text/: the canonical text form, hashes and character limits every other room shares; it imports nothing of web/.
 */
import { createHash } from "node:crypto";

/**
 * Replaces lone UTF-16 surrogates with U+FFFD so that the UTF-8 a client receives hashes like ours
 * (notes/platform.md). String.prototype.toWellFormed is ES2024, newer than the project's lib setting.
 */
export function makeWellFormed(text: string): string {
  return (text as unknown as { toWellFormed(): string }).toWellFormed();
}

export interface LimitedText {
  value: string;
  /** Code points in `value`. */
  characters: number;
  truncated: boolean;
}

/** Cuts `input` to at most `maxChars` code points (never splitting a surrogate pair), trimming trailing whitespace of a cut. */
export function limitText(input: string, maxChars: number): LimitedText {
  const text = makeWellFormed(input);
  // Fast path: UTF-16 length bounds the code point count from above.
  if (text.length <= maxChars) return { value: text, characters: countCodePoints(text), truncated: false };
  let codePoints = 0;
  let end = 0;
  while (end < text.length && codePoints < maxChars) {
    const code = text.charCodeAt(end);
    end += code >= 0xd800 && code <= 0xdbff && end + 1 < text.length ? 2 : 1;
    codePoints++;
  }
  if (end >= text.length) return { value: text, characters: codePoints, truncated: false };
  const value = text.slice(0, end).trimEnd();
  return { value, characters: countCodePoints(value), truncated: true };
}

const SURROGATE = /[\uD800-\uDFFF]/;

export function countCodePoints(text: string): number {
  // Most text is all in the BMP: one native scan instead of a loop over its code units.
  if (!SURROGATE.test(text)) return text.length;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** SHA-256 (lowercase hex) of bytes, or of a string's UTF-8 encoding (made well-formed first). */
export function sha256Hex(input: string | Uint8Array): string {
  const data = typeof input === "string" ? makeWellFormed(input) : input;
  return createHash("sha256").update(data).digest("hex");
}
