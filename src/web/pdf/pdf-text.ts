/**
 * @module web/pdf/pdf-text — canonical page text for PDFs: the web's canonical form (canonical-text.ts: well-formed,
 * `\n` line ends, spaces collapsed, lines trimmed, at most one blank line in a row) without control characters,
 * which PDF text layers carry (unmapped glyphs, form feeds) and HTML text does not.
 */
import { normalizeText } from "../text/canonical-text.ts";

// C0/C1 controls other than \t \n \r (normalizeText handles those); U+FEFF is an invisible BOM/ZWNBSP. Dropped.
// Ligatures and presentation forms (Latin ﬁ, Arabic lam-alef, Hebrew points): mupdf keeps them as one character
// (preserve-ligatures), folded here to the letters they stand for, in logical order; nothing else is folded.
// One class for both, so a page is scanned once: no fold yields a control character.
const CONTROL_OR_FORM = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFEFF\uFB00-\uFDFF\uFE70-\uFEFE]/g;

export function canonicalizePdfText(raw: string): string {
  return normalizeText(raw.replace(CONTROL_OR_FORM, (c) => (c >= "\uFB00" && c !== "\uFEFF" ? c.normalize("NFKC") : "")));
}
