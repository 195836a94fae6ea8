/**
 * @module web/compare/compare-summary — the one deterministic sentence of comparison.summary (spec web-evidence §2.2).
 *
 * Format (identical inputs give identical sentences):
 * - first snapshot:        `First snapshot: no baseline to compare; keep text_sha256 or text as the baseline.`
 * - hash only, same:       `Unchanged: the text hash equals previous_sha256.`
 * - hash only, different:  `Changed: the text hash differs from previous_sha256; send previous_text to get added and removed lines.`
 * - text, same:            `Unchanged: 0 line(s) added, 0 removed.`
 * - text, only order/count/spacing differs:
 *                          `Changed: 0 line(s) added, 0 removed (the same lines, reordered, repeated or re-spaced).`
 * - text, different:       `Changed: 2 line(s) added, 1 removed. Added: "Price: $12"; "New item". Removed: "Price: $10".`
 * - trigger_patterns, none of the added or removed lines matches:
 *                          `Unchanged: no line matching trigger_patterns was added or removed (3 other line(s) added, 1 removed).`
 * - trigger_patterns, some match (the lists hold only those):
 *                          `Changed: 1 line(s) matching trigger_patterns added, 0 removed. Added: "Price: $12".`
 * Each line is a JSON string literal (quotes, backslashes and control characters escaped, so the sentence is
 * unambiguous), cut to 200 characters with `…` inside the quotes; lines are joined by `; ` in the order of
 * `added`/`removed`. The sentence is at most 2,000 characters: lines that do not fit are counted, as in
 * `"a"; "b"; +37 more.` When both lists do not fit, each gets half of the room, and a list that needs less
 * leaves the rest to the other.
 */
import { SUMMARY_MAX_CHARS } from "./compare-schema.ts";
import { countCodePoints, limitText } from "../text/text-output.ts";

const LINE_MAX_CHARS = 200;

export type SummaryInput =
  | { kind: "first" }
  | { kind: "hash"; changed: boolean }
  | { kind: "lines"; changed: boolean; added: readonly string[]; removed: readonly string[] }
  /** `added`/`removed`: the lines that match a trigger pattern; `other…`: how many changed lines do not. */
  | { kind: "triggers"; added: readonly string[]; removed: readonly string[]; otherAdded: number; otherRemoved: number };

export function formatSummary(input: SummaryInput): string {
  if (input.kind === "first") return "First snapshot: no baseline to compare; keep text_sha256 or text as the baseline.";
  if (input.kind === "hash") {
    return input.changed
      ? "Changed: the text hash differs from previous_sha256; send previous_text to get added and removed lines."
      : "Unchanged: the text hash equals previous_sha256.";
  }
  const { added, removed } = input;
  if (input.kind === "triggers") {
    if (added.length === 0 && removed.length === 0) {
      return `Unchanged: no line matching trigger_patterns was added or removed (${input.otherAdded} other line(s) added, ${input.otherRemoved} removed).`;
    }
    return withLists(`Changed: ${added.length} line(s) matching trigger_patterns added, ${removed.length} removed.`, added, removed);
  }
  const counts = `${added.length} line(s) added, ${removed.length} removed`;
  if (!input.changed) return `Unchanged: ${counts}.`;
  if (added.length === 0 && removed.length === 0) {
    return `Changed: ${counts} (the same lines, reordered, repeated or re-spaced).`;
  }
  return withLists(`Changed: ${counts}.`, added, removed);
}

/** `head` followed by the added and removed lists, within SUMMARY_MAX_CHARS (rules in the module comment). */
function withLists(head: string, added: readonly string[], removed: readonly string[]): string {
  const room = SUMMARY_MAX_CHARS - countCodePoints(head);
  const addedLabel = " Added: ";
  const removedLabel = " Removed: ";
  if (added.length === 0) return head + removedLabel + renderList(removed, room - removedLabel.length);
  if (removed.length === 0) return head + addedLabel + renderList(added, room - addedLabel.length);

  const listRoom = room - addedLabel.length - removedLabel.length;
  const fullAdded = renderList(added, Number.POSITIVE_INFINITY);
  const fullRemoved = renderList(removed, Number.POSITIVE_INFINITY);
  const half = Math.floor(listRoom / 2);
  let addedRoom = half;
  let removedRoom = listRoom - half;
  const fullAddedChars = countCodePoints(fullAdded);
  const fullRemovedChars = countCodePoints(fullRemoved);
  if (fullAddedChars + fullRemovedChars <= listRoom) {
    addedRoom = fullAddedChars;
    removedRoom = fullRemovedChars;
  } else if (fullRemovedChars <= half) {
    removedRoom = fullRemovedChars;
    addedRoom = listRoom - removedRoom;
  } else if (fullAddedChars <= half) {
    addedRoom = fullAddedChars;
    removedRoom = listRoom - addedRoom;
  }
  return head + addedLabel + renderList(added, addedRoom) + removedLabel + renderList(removed, removedRoom);
}

/** `"a"; "b".` or `"a"; +K more.`, at most `room` code points (a list always has room for its `+K more.`). */
function renderList(lines: readonly string[], room: number): string {
  let out = "";
  let used = 0;
  for (let i = 0; i < lines.length; i++) {
    const item = quoteLine(lines[i] ?? "");
    const sep = i === 0 ? "" : "; ";
    const isLast = i === lines.length - 1;
    const piece = sep + item + (isLast ? "." : "");
    const pieceChars = countCodePoints(piece);
    // What must still fit after this line if later lines are left out.
    const tail = isLast ? 0 : `; +${lines.length - i - 1} more.`.length;
    if (used + pieceChars + tail > room) return `${out}${sep}+${lines.length - i} more.`;
    out += piece;
    used += pieceChars;
  }
  return out;
}

function quoteLine(line: string): string {
  const cut = limitText(line, LINE_MAX_CHARS);
  return JSON.stringify(cut.truncated ? `${cut.value}…` : line);
}
