/**
 * @module web/pdf/pdf-dingbats — Unicode for ZapfDingbats glyphs. The font's glyphs are named `a1` … `a206`; mupdf reads
 * such a name as the number after the `a`, so a non-embedded ZapfDingbats check mark comes out as a control
 * character or a stray letter (a20 → U+0014, a117 → "u"). The numbers below are the Adobe Glyph List's for the
 * font (its zapfdingbats list, a public mapping).
 */

/** a-number → code point, written as runs: [first a-number, first code point, count] where both rise by one. */
const RUNS: readonly (readonly [number, number, number])[] = [
  [1, 0x2701, 2], [3, 0x2704, 1], [4, 0x260e, 1], [5, 0x2706, 1], [6, 0x271d, 4], [10, 0x2721, 1], [11, 0x261b, 1], [12, 0x261e, 1],
  [13, 0x270c, 4], [17, 0x2711, 12], [29, 0x2722, 6], [35, 0x2605, 1], [36, 0x2729, 35], [71, 0x25cf, 1], [72, 0x274d, 1],
  [73, 0x25a0, 1], [74, 0x274f, 1], [75, 0x2751, 1], [76, 0x25b2, 1], [77, 0x25bc, 1], [78, 0x25c6, 1], [79, 0x2756, 1],
  [81, 0x25d7, 1], [82, 0x2758, 3], [85, 0x276f, 1], [86, 0x2771, 3], [89, 0x2768, 2], [91, 0x276c, 2], [93, 0x276a, 2],
  [95, 0x2774, 2], [97, 0x275b, 4], [101, 0x2761, 4], [105, 0x2710, 1], [106, 0x2765, 3], [109, 0x2660, 1], [110, 0x2665, 2],
  [112, 0x2663, 1], [117, 0x2709, 1], [118, 0x2708, 1], [119, 0x2707, 1], [120, 0x2460, 10], [130, 0x2776, 30], [160, 0x2794, 1],
  [161, 0x2192, 1], [162, 0x27a3, 1], [163, 0x2194, 2], [165, 0x2799, 1], [166, 0x279b, 5], [171, 0x27a0, 3], [174, 0x27a4, 6],
  [180, 0x27ab, 1], [181, 0x27ad, 1], [182, 0x27af, 1], [183, 0x27b2, 2], [185, 0x27b5, 1], [186, 0x27b8, 1], [187, 0x27ba, 4],
  [191, 0x27be, 1], [192, 0x279a, 1], [193, 0x27aa, 1], [194, 0x27b6, 1], [195, 0x27b9, 1], [196, 0x2798, 1], [197, 0x27b4, 1],
  [198, 0x27b7, 1], [199, 0x27ac, 1], [200, 0x27ae, 1], [201, 0x27b1, 1], [202, 0x2703, 1], [203, 0x2750, 1], [204, 0x2752, 1],
  [205, 0x276e, 1], [206, 0x2770, 1],
];

const TABLE = new Map<number, string>();
for (const [a, cp, count] of RUNS) for (let k = 0; k < count; k++) TABLE.set(a + k, String.fromCodePoint(cp + k));

/** A font name of the ZapfDingbats family (base-14 name, subset tag or mupdf's substitute). */
export function isDingbatsFont(name: string): boolean {
  return /dingbats/i.test(name);
}

/**
 * The character a ZapfDingbats glyph stands for, given what mupdf made of its name; the character itself when
 * it is no a-number (a space, or a font whose /ToUnicode already says what it is).
 */
export function dingbatCharacter(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  if (c.length !== 1 || code === 0x20 || code > 206) return c;
  return TABLE.get(code) ?? c;
}
