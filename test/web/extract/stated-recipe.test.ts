/**
 * A recipe page whose JSON-LD states a Recipe: when the detected content holds few of its stated ingredients and
 * steps (a prose block named as content wins over a table of short lines), the block of the page holding them is
 * the content. A page that states nothing, or whose content holds the recipe, is read as before.
 */
import { describe, expect, it } from "bun:test";
import { extractHtmlSync } from "../../../src/web/extract/extract.ts";

const ingredients = ["125 g Mehl", "65 g Zucker", "65 g Butter", "1 Ei", "500 ml Milch"];
const steps = ["Den Pudding kochen und abkühlen lassen.", "Den Boden kneten und in die Form drücken.", "Bei 175 °C etwa 80 Minuten backen."];

const recipeLd = JSON.stringify({ "@context": "https://schema.org", "@type": "Recipe", name: "Schmandkuchen", recipeIngredient: ingredients, recipeInstructions: steps.map((text) => ({ "@type": "HowToStep", text })) });

const review = (n: number) =>
  `<p>Bewertung ${n}: Ein Leser schreibt ausführlich, dass ihm dieser Kuchen schon oft gelungen ist, und erzählt von seiner Familie, die ihn jeden Sonntag isst.</p>`;

function page(ld: string | undefined): string {
  const rows = ingredients.map((line) => line.split(" ")).map((words) => `<tr><td>${words.slice(0, -1).join(" ")}</td> <td>${words.at(-1)}</td></tr>`).join("");
  return `<html><head><title>Schmandkuchen</title>${ld ? `<script type="application/ld+json">${ld}</script>` : ""}</head><body>
    <div class="page"><h1>Schmandkuchen</h1>
      <div class="recipe"><h2>Zutaten</h2><table>${rows}</table>
        <h2>Zubereitung</h2>${steps.map((step) => `<div>${step}</div>`).join("")}</div>
      <div id="content" class="article-content">${[1, 2, 3, 4, 5].map(review).join("")}</div>
    </div></body></html>`;
}

const extract = (html: string) => extractHtmlSync({ html, url: "https://example.com/", markdown: false }).text;

describe("a recipe stated in JSON-LD", () => {
  it("is the content when the detected block holds few of its parts", () => {
    const text = extract(page(recipeLd));
    expect(text).toContain("65 g | Butter");
    expect(text).toContain("Bei 175 °C etwa 80 Minuten backen.");
  });

  it("changes nothing on a page that states no recipe", () => {
    const text = extract(page(undefined));
    expect(text).toContain("Bewertung 5");
    expect(text).not.toContain("65 g | Butter");
  });

  it("changes nothing when the stated parts are not in the page", () => {
    const other = JSON.stringify({ "@type": "Recipe", recipeIngredient: ["3 Äpfel", "1 Zimtstange", "200 g Quark"] });
    expect(extract(page(other))).toContain("Bewertung 5");
  });
});
