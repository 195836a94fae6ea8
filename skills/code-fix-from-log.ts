/** Buys a diagnosis of a CI, build or runtime log: ordered findings, root cause, fix steps, a patch sketch when possible, the failing lines. */
import { ApiError, DiagnosisSchema, defineSkill, diagnoseLog, ModelUsageSchema, t } from "tollbooth";
import { diagnosisPrompt, diagnosisSystem } from "./prompts/code-fix-from-log.ts";

const skill = "code.fix_from_log";
const priceUsd = 0.08;

/** What the model writes; the failing lines, matches and window stay the reducer's. */
const ModelDiagnosis = t.Object(
  {
    diagnosis: t.Array(t.String({ minLength: 1, maxLength: 600 }), { minItems: 1, maxItems: 8 }),
    root_cause: t.String({ minLength: 1, maxLength: 600 }),
    fix_steps: t.Array(t.String({ minLength: 1, maxLength: 600 }), { minItems: 1, maxItems: 10 }),
    patch_sketch: t.Union([t.String({ maxLength: 4000 }), t.Null()]),
    family: t.String({ minLength: 1, maxLength: 40 }),
    confidence: t.Number({ minimum: 0, maximum: 1 }),
  },
  { additionalProperties: false },
);

export default defineSkill({
  skill,
  summary: "Diagnoses a failing CI, build or runtime log: ordered diagnosis, root cause, fix steps, a patch sketch when possible, the failing lines, family, confidence and engine.",
  description:
    "A deterministic reducer strips ANSI codes, carriage-return progress and timestamps, collapses repeated lines and finds the failure window (anchored at the last failing-command marker); a pattern table (npm/yarn/pnpm, TypeScript, Python/pytest, Go, Rust, Java/Maven/Gradle, Docker, GitHub Actions, missing tools, memory, C/C++, make) names the cause. `engine` says which engine answered; `rules` needs no model. When no pattern matches, the family is `unknown` and the confidence low. " +
    "With a model on the server, only the failure window (never the rest of the log) goes to one tool-less call, marked as untrusted data, with the rules' findings; the model writes the diagnosis, root cause, fix steps and patch sketch (`engine: \"model\"`, with `usage`). If the model fails, the rules engine answers and says so.",
  input: t.Object(
    {
      log: t.String({ minLength: 1, maxLength: 200_000, description: "The log text (CI, build or runtime), at most 200,000 characters." }),
      json_only: t.Optional(t.Boolean({ description: "Return the result as a JSON-encoded string." })),
    },
    { additionalProperties: false },
  ),
  output: t.Object({ ...DiagnosisSchema.properties, usage: t.Optional(ModelUsageSchema) }),
  price: String(priceUsd),
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
  errors: ["MODEL_REFUSED"],
  engine: (llm) => {
    const model = llm.model(skill);
    return llm.configured && model ? { available: true, engine: "model", model } : { available: true, engine: "rules" };
  },
  async run({ log }, ctx) {
    const rules = diagnoseLog(log);
    if (!ctx.llm.configured) return rules;
    const findings = [
      `Failure family by the rules: ${rules.family} (confidence ${rules.confidence}).`,
      `Rules' root cause: ${rules.root_cause}`,
      ...rules.diagnosis.map((d) => `- ${d}`),
    ].join("\n");
    try {
      const { value, usage } = await ctx.llm.structured<{
        diagnosis: string[];
        root_cause: string;
        fix_steps: string[];
        patch_sketch: string | null;
        family: string;
        confidence: number;
      }>({
        skill,
        system: diagnosisSystem,
        prompt: diagnosisPrompt(rules.failing_lines, findings),
        data: rules.window,
        schema: ModelDiagnosis,
        limits: { maxSteps: 2, maxToolCalls: 0, maxUsd: priceUsd * 0.3 },
        signal: ctx.signal,
      });
      return {
        ...rules,
        ...value,
        family: rules.family !== "unknown" ? rules.family : value.family,
        engine: "model" as const,
        usage: { ...usage },
      };
    } catch (error) {
      if (ctx.signal.aborted || (error instanceof ApiError && error.code === "MODEL_REFUSED")) throw error;
      const code = error instanceof ApiError ? error.code : "MODEL_ERROR";
      ctx.log.warn("code.fix_from_log: the model failed, the rules engine answered", { code });
      const diagnosis: string[] = [...rules.diagnosis, `The language model failed (${code}); this diagnosis is the rules engine's.`];
      return { ...rules, diagnosis };
    }
  },
});
