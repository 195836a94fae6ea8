/** Counts the words, lines and characters of a text: a complete skill in one file. */
import { defineSkill, t } from "tollbooth";

export default defineSkill({
  skill: "word.count",
  summary: "Counts words, lines and characters of a text.",
  input: t.Object(
    {
      text: t.String({ maxLength: 100_000, description: "The text to count." }),
    },
    { additionalProperties: false },
  ),
  output: t.Object({ words: t.Integer(), lines: t.Integer(), characters: t.Integer() }),
  price: "0.001",
  async: false,
  timeoutMs: 2_000,
  examples: [{ input: { text: "one two\nthree" }, output: { words: 3, lines: 2, characters: 13 } }],
  async run({ text }) {
    const words = text.split(/\s+/).filter(Boolean).length;
    return { words, lines: text === "" ? 0 : text.split("\n").length, characters: [...text].length };
  },
});
