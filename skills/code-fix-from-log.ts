/** Buys a diagnosis of a CI, build or runtime log: ordered findings, root cause, fix steps, a patch sketch when possible, the failing lines. */
import { DiagnosisSchema, defineSkill, diagnoseLog, t } from "tollbooth";

export default defineSkill({
  skill: "code.fix_from_log",
  summary: "Diagnoses a failing CI, build or runtime log: ordered diagnosis, root cause, fix steps, a patch sketch when possible, the failing lines, family, confidence and engine.",
  description:
    "A deterministic reducer strips ANSI codes, carriage-return progress and timestamps, collapses repeated lines and finds the failure window (anchored at the last failing-command marker); a pattern table (npm/yarn/pnpm, TypeScript, Python/pytest, Go, Rust, Java/Maven/Gradle, Docker, GitHub Actions, missing tools, memory, C/C++, make) names the cause. `engine` says which engine answered; `rules` needs no model. When no pattern matches, the family is `unknown` and the confidence low.",
  input: t.Object(
    {
      log: t.String({ minLength: 1, maxLength: 200_000, description: "The log text (CI, build or runtime), at most 200,000 characters." }),
      json_only: t.Optional(t.Boolean({ description: "Return the result as a JSON-encoded string." })),
    },
    { additionalProperties: false },
  ),
  output: DiagnosisSchema,
  price: "0.08",
  async: true,
  timeoutMs: 180_000,
  examples: [
    {
      input: { log: "$ npm test\n\n> app@1.0.0 test\n> node test.js\n\nError: Cannot find module 'left-pad'\nnpm ERR! code ELIFECYCLE\nThe command \"npm test\" exited with 1." },
      output: {
        diagnosis: [
          "Node could not resolve the module `left-pad`: it is not installed, not built yet, or the import path is wrong. (line 6: \"Error: Cannot find module 'left-pad'\")",
          "Also on line 7 (npm): An npm/yarn/pnpm script exited with an error; the reason is in that script's output above the package manager's summary.",
          'The failure window is lines 1–8 of 8, ending at the failing command\'s marker on line 8: "The command "npm test" exited with 1.".',
        ],
        root_cause: "Node could not resolve the module `left-pad`: it is not installed, not built yet, or the import path is wrong.",
        fix_steps: [
          "If it is a package, add it to dependencies and install (npm install left-pad).",
          "If it is a local file, check the path and its case (CI file systems are case-sensitive).",
          "If it is a build output, run the build before this step.",
        ],
        patch_sketch: null,
        failing_lines: { from: 1, to: 8 },
        family: "npm",
        confidence: 0.85,
        engine: "rules",
        matches: [
          { id: "npm.cannot-find-module", family: "npm", line: 6 },
          { id: "npm.lifecycle", family: "npm", line: 7 },
        ],
        window: "$ npm test\n\n> app@1.0.0 test\n> node test.js\n\nError: Cannot find module 'left-pad'\nnpm ERR! code ELIFECYCLE\nThe command \"npm test\" exited with 1.",
      },
    },
  ],
  async run({ log }) {
    return diagnoseLog(log);
  },
});
