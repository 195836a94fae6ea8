/**
 * A recipe's ingredients and method, named so by their class ("wprm-recipe-ingredients", "recipe-card-directions",
 * "recipePartSteps"), stay in the content though the counting rules of cleaning take a list of short linked lines for
 * chrome; an unnamed list of links inside the post still goes.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const para = (n: number) => `<p>Paragraph ${n} of the post says, plainly and at length, why this lemon cake is so moist, and when to bake it.</p>`;
const linked = (items: string[]) => items.map((item) => `<li><a href="/shop/${item.length}">${item}</a></li>`).join("");

function extract(list: string): string {
  const html = `<html><head><title>Lemon sheet cake</title></head><body><article class="post"><h1>Lemon sheet cake</h1>${[1, 2, 3, 4].map(para).join("")}${list}</article></body></html>`;
  return extractHtmlSync({ html, url: "https://example.com/", markdown: false }).text;
}

describe("a recipe's parts", () => {
  it("stay when named as ingredients or directions", () => {
    const text = extract(
      `<div class="recipe-card"><ul class="wprm-recipe-ingredients">${linked(["6 eggs", "200 g sugar", "2 lemons", "300 g flour"])}</ul><ul class="recipePartStepsList">${linked(["Beat the eggs", "Fold in flour"])}</ul></div>`,
    );
    expect(text).toContain("200 g sugar");
    expect(text).toContain("Fold in flour");
  });

  it("do not keep an unnamed list of links", () => {
    const text = extract(`<div class="box"><ul class="more">${linked(["Orange cake", "Apple pie", "Cherry tart", "Plum crumble"])}</ul></div>`);
    expect(text).toContain("Paragraph 4 of the post");
    expect(text).not.toContain("Apple pie");
  });
});
