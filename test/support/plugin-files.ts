/** Writes plugin files into a fresh temporary folder, as an operator would drop them. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function pluginFolder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "tb-plugins-"));
  for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, name), source);
  return dir;
}

/** A valid skill file for id `name` (file name must be the id with dots as dashes). */
export function skillSource(name: string, overrides: Partial<Record<"price" | "timeoutMs" | "examples" | "input" | "async" | "freeText", string>> = {}): string {
  return `import { defineSkill, t } from "tollbooth";
export default defineSkill({
  skill: ${JSON.stringify(name)},
  summary: "Echoes a word in upper case.",
  input: ${overrides.input ?? `t.Object({ word: t.String({ maxLength: 50 }) }, { additionalProperties: false })`},
  price: ${overrides.price ?? `"0.002"`},
  async: ${overrides.async ?? "false"},
  timeoutMs: ${overrides.timeoutMs ?? "1000"},${overrides.freeText ? `\n  freeText: ${overrides.freeText},` : ""}
  examples: ${overrides.examples ?? `[{ input: { word: "hi" }, output: { upper: "HI" } }]`},
  async run({ word }) { return { upper: word.toUpperCase() }; },
});
`;
}

/** A valid plugin (HTTP endpoint) file. */
export function pluginSource(id: string, route: string, price = `"0.004"`): string {
  return `import { definePlugin, t } from "tollbooth";
export default definePlugin({
  id: ${JSON.stringify(id)},
  route: ${JSON.stringify(route)},
  summary: "Reverses a string.",
  input: t.Object({ text: t.String({ maxLength: 100 }), times: t.Optional(t.Integer({ minimum: 1, maximum: 3 })) }, { additionalProperties: false }),
  output: t.Object({ reversed: t.String() }),
  price: ${price},
  timeoutMs: 1000,
  errors: ["INVALID_REQUEST"],
  examples: [{ input: { text: "abc" }, output: { reversed: "cba" } }],
  async run({ text, times }) { return { reversed: [...text].reverse().join("").repeat(times ?? 1) }; },
});
`;
}
