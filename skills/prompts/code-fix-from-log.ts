/** What code.fix_from_log asks of the model: the system text and the prompt around the reducer's failure window. */
export const diagnosisSystem =
  "You diagnose a failing CI, build or runtime log for a developer. Order the diagnosis by importance, name the root cause, give concrete fix steps, " +
  "and a patch sketch (a unified diff or the changed lines) only when the log shows enough to write one, else null. Family is one short word (npm, typescript, python, go, rust, java, docker, github-actions, missing-tool, memory, c, make, unknown). " +
  "Confidence is how sure you are, from 0 to 1.";

export function diagnosisPrompt(lines: { readonly from: number; readonly to: number }, findings: string): string {
  return `A deterministic reducer cut the log to its failure window (lines ${lines.from} to ${lines.to}); a pattern table found:\n${findings}\n\nThe window is in the data block.`;
}
