/**
 * @module a2a/free-text — where a text-only A2A message goes: to the skill the message names
 * (metadata `skill`) when that skill takes free text, else to the one skill whose declaration
 * takes this text (plugin contract `freeText`): skills that take only some texts (a URL in it)
 * before those that take any text (a prompt). Two of a kind taking it is a question for the caller.
 */
import type { A2aSkill } from "./skills.ts";

export type TextRoute =
  | { readonly kind: "routed"; readonly skill: string; readonly input: Record<string, unknown> }
  | { readonly kind: "ambiguous"; readonly skills: readonly string[] }
  | { readonly kind: "refused"; readonly skill: string }
  | { readonly kind: "none" };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The input a skill's declaration makes of the text; undefined when it takes no text or not this one. A declaration that throws takes nothing. */
function inputFor(skill: A2aSkill, text: string): Record<string, unknown> | undefined {
  const freeText = skill.entry.definition.freeText;
  if (!freeText) return undefined;
  try {
    const input = freeText.input(text) as unknown;
    return isObject(input) ? input : undefined;
  } catch {
    return undefined;
  }
}

export function routeText(text: string, named: string | undefined, byId: ReadonlyMap<string, A2aSkill>): TextRoute {
  if (named !== undefined) {
    const skill = byId.get(named);
    const input = skill && inputFor(skill, text);
    return input ? { kind: "routed", skill: named, input } : { kind: "refused", skill: named };
  }
  const some: { skill: string; input: Record<string, unknown> }[] = [];
  const any: typeof some = [];
  for (const [id, skill] of byId) {
    const input = inputFor(skill, text);
    if (input) (skill.entry.definition.freeText?.anyText ? any : some).push({ skill: id, input });
  }
  for (const takers of [some, any]) {
    if (takers.length === 1) return { kind: "routed", ...takers[0]! };
    if (takers.length > 1) return { kind: "ambiguous", skills: takers.map((t) => t.skill) };
  }
  return { kind: "none" };
}

/** The skills that take free text, for the hint a refused message gets: `web.brief (a text with one URL in it)`. */
export function textSkills(byId: ReadonlyMap<string, A2aSkill>): string[] {
  return [...byId].flatMap(([id, s]) => {
    const freeText = s.entry.definition.freeText;
    return freeText ? [`${id} (${freeText.takes ?? (freeText.anyText ? "any text" : "some texts")})`] : [];
  });
}
