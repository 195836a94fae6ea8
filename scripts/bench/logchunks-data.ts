/**
 * The LogChunks data set (Brandt et al., MSR 2020) for the logchunks bench: each labelled example's
 * log text, language, repository, and where its labelled chunk lies in the log (1-based lines).
 *
 * The labels hold the chunk's text, not line numbers, and lost the ESC byte of every colour code
 * (XML 1.0 cannot carry it), so a chunk is located by comparing normalised lines: colour codes
 * (with or without their ESC), `\r`, `<` and `>` (the labels lost text that looked like a tag, some
 * only its `<`) and surrounding spaces removed. A chunk line matches a log line
 * that contains it (the first and last lines of a chunk may be cut mid-line). A chunk may occur
 * more than once in its log (a test runner prints a failure, then the summary repeats it): every
 * complete occurrence is kept, and the bench says how it scores them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface ChunkSpan {
  readonly from: number;
  readonly to: number;
}

export interface LabelledLog {
  /** Path under `logs/`, e.g. `C/git@git/failed/565956904.log`. */
  readonly file: string;
  readonly language: string;
  /** `owner@name`. */
  readonly repository: string;
  readonly log: string;
  readonly chunk: string;
  /** Every place the chunk occurs, in log order; empty when it could not be located. */
  readonly spans: readonly ChunkSpan[];
}

const entities: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function decodeXml(text: string): string {
  const unwrapped = text.replace(/^<!\[CDATA\[([\s\S]*)\]\]>$/, "$1");
  return unwrapped.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) => {
    if (name[0] === "#") return String.fromCodePoint(name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1)));
    return entities[name] ?? whole;
  });
}

/** Comparable form of a line: no colour codes (even without ESC), no `\r`, `<` or `>`, no outer spaces, spaces collapsed. */
export function normaliseLine(line: string): string {
  return line
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")
    .replace(/\[[0-9;]*[mK]/g, "")
    .replace(/[\x00-\x08\x0b-\x1f\x7f<>]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Every occurrence of `chunk`'s non-blank lines, in order, in `logLines` (already normalised). Up to a
 * fifth of the chunk's lines may be missing (the labels lost text that looked like XML tags, such as
 * `<Method>d__24`): a missing line still takes one log line. Up to four log lines may separate two
 * consecutive chunk lines (blank and colour-only lines the labeller dropped).
 */
export function locateChunk(logLines: readonly string[], chunk: string): ChunkSpan[] {
  const wanted = chunk.split("\n").map(normaliseLine).filter((l) => l.length > 0);
  if (wanted.length === 0) return [];
  const allowedMisses = Math.floor(wanted.length / 5);
  const spans: ChunkSpan[] = [];
  for (let start = 0; start < logLines.length; start++) {
    // The chunk starts here when its first line (or, if that one is lost, its second) is on this line.
    const lead = (logLines[start] as string).includes(wanted[0] as string) ? 0 : wanted.length > 1 && allowedMisses > 0 && (logLines[start] as string).includes(wanted[1] as string) ? 1 : -1;
    if (lead < 0) continue;
    if (lead === 1 && spans.at(-1)?.to === start) continue;
    let at = start;
    let misses = lead;
    for (let k = lead + 1; k < wanted.length && misses <= allowedMisses; k++) {
      let found = -1;
      for (let j = at; j < logLines.length && j <= at + 5; j++) {
        if ((logLines[j] as string).includes(wanted[k] as string)) {
          found = j;
          break;
        }
      }
      if (found < 0) {
        misses++;
        at = Math.min(at + 1, logLines.length - 1);
      } else at = found;
    }
    if (misses > allowedMisses) continue;
    const span = { from: start + 1 - lead, to: at + 1 };
    if (!spans.some((s) => s.from <= span.to && span.from <= s.to)) spans.push(span);
  }
  return spans;
}

/** Reads `DIR/build-failure-reason/<lang>/<owner@repo>.xml` and the logs under `DIR/logs`. */
export function loadLogChunks(dataDir: string): LabelledLog[] {
  const labelDir = join(dataDir, "build-failure-reason");
  const out: LabelledLog[] = [];
  for (const language of readdirSync(labelDir).sort()) {
    for (const xmlFile of readdirSync(join(labelDir, language)).filter((f) => f.endsWith(".xml")).sort()) {
      const xml = readFileSync(join(labelDir, language, xmlFile), "utf8");
      for (const example of xml.matchAll(/<Example>([\s\S]*?)<\/Example>/g)) {
        const body = example[1] as string;
        const file = decodeXml(/<Log>([\s\S]*?)<\/Log>/.exec(body)?.[1] ?? "").trim();
        const chunk = decodeXml(/<Chunk>([\s\S]*?)<\/Chunk>/.exec(body)?.[1] ?? "");
        if (!file) continue;
        const log = readFileSync(join(dataDir, "logs", file), "utf8");
        const logLines = log.split("\n").map(normaliseLine);
        out.push({ file, language, repository: xmlFile.replace(/\.xml$/, ""), log, chunk, spans: locateChunk(logLines, chunk) });
      }
    }
  }
  return out;
}
